/**
 * The integration skeleton `init --integration` adds to a new package, as the reference's init does: an observer
 * that turns what happens in an outside system into the observations that start the package's process, its
 * agent (an observer executor running the integration's image), the Python project it lives in with a test,
 * and the Dockerfile of the image.
 */
import type { FileTemplate } from './templates.js';
import { API_VERSION, titleOf } from './templates.js';

/** `claims-intake` → `claims_intake`, the Python module of the integration. */
export function moduleOf(key: string): string {
  return key.replace(/[^a-z0-9]+/g, '_');
}

/** The image the agent runs unless --image names another. */
export function defaultImage(key: string): string {
  return `registry.example.com/${key}/observer:0.1.0`;
}

/** The observer's agent: it writes observations `<key>.requested`, which start the package's process. */
export function observerAgent(key: string, image: string): FileTemplate {
  return {
    path: `agents/${key}-observer.yaml`,
    schema: 'object',
    comment: [`The observer of ${key}: runs integration/ in its image and writes an observation ${key}.requested for each new request.`],
    value: {
      apiVersion: API_VERSION, kind: 'Agent', key: `${key}-observer`,
      spec: {
        displayName: `${titleOf(key)} observer`,
        description: `Requests of the outside system as observations ${key}.requested`,
        identity: { kind: 'agent', permissions: ['observations.write'] },
        executor: { kind: 'observer', image, params: { entrypoint: `${moduleOf(key)}.observer:observe`, intervalSeconds: 60 } },
        placement: { resources: { cpus: 1, memoryMb: 256 } },
        state: 'running',
      },
    },
    hintsOf: 'Agent',
  };
}

/** The files of integration/ (not objects: check does not read them), by path under the package. */
export function integrationFiles(key: string): Record<string, string> {
  const module = moduleOf(key);
  return {
    'integration/pyproject.toml': `[project]
name = "${key}-integration"
version = "0.1.0"
description = "The observer of the package ${key}"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
test = ["pytest"]

[tool.pytest.ini_options]
pythonpath = ["src"]
`,
    [`integration/src/${module}/__init__.py`]: `"""Integration code of the package ${key}."""\n`,
    [`integration/src/${module}/observer.py`]: `"""The observer of ${key}: each new request of the outside system becomes an observation
${key}.requested, which starts the process ${key}. The executor calls observe() every intervalSeconds
with what the agent's params.config holds and the cursor it returned last time."""

from typing import Any


def observe(config: dict[str, Any], cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The observations since \`cursor\`, and the cursor to pass next time."""
    requests = fetch_requests(config, cursor)
    observations = [
        {"kind": "${key}.requested", "payload": {"id": request["id"]}}
        for request in requests
    ]
    return observations, (requests[-1]["id"] if requests else cursor)


def fetch_requests(config: dict[str, Any], cursor: str | None) -> list[dict[str, Any]]:
    """Read the requests after \`cursor\` from the outside system (replace with its client)."""
    return list(config.get("requests", []))
`,
    'integration/tests/test_observer.py': `from ${module}.observer import observe


def test_each_request_becomes_an_observation():
    observations, cursor = observe({"requests": [{"id": "R-1"}, {"id": "R-2"}]}, None)
    assert observations == [
        {"kind": "${key}.requested", "payload": {"id": "R-1"}},
        {"kind": "${key}.requested", "payload": {"id": "R-2"}},
    ]
    assert cursor == "R-2"


def test_no_request_keeps_the_cursor():
    assert observe({}, "R-2") == ([], "R-2")
`,
    'integration/Dockerfile': `# The image of the observer agents/${key}-observer.yaml runs (build it from the package directory).
FROM python:3.12-slim
WORKDIR /app
COPY integration/pyproject.toml ./
COPY integration/src ./src
RUN pip install --no-cache-dir .
`,
  };
}
