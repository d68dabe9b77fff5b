/**
 * What `check` shows its users, as reviewed files (STYLE.md §2.5): the text (code frames, no colour), JSON,
 * SARIF and GitHub renderings of a few invalid packages of fixtures/check/ are snapshots under
 * snapshots/check/, so a change of wording or layout is a diff in review. The renderers run in process;
 * the built CLI, run once per format, prints the same bytes.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { codeCatalog } from '../../src/check/catalog.js';
import { check } from '../../src/check/index.js';
import type { Format } from '../../src/cli/check.js';
import { allFindings, renderCheckText, summaryLine } from '../../src/report/check.js';
import { renderGithub } from '../../src/report/github.js';
import { paintFor } from '../../src/report/paint.js';
import { renderSarif } from '../../src/report/sarif.js';
import { ROOT, runCli, scratchDir } from '../support/cli.js';
import { FIXTURES, overlayCase } from '../support/overlay.js';

/**
 * Packages checked from inside (file names relative to the package): a directory of fixtures/check/, or a
 * package of a rule case of fixtures/check/ laid over its base.
 */
const CASES = {
  // a schema error with its did-you-mean hint, a finding suppressed by a comment, a file that is not YAML
  'schema-hint-suppressed-not-yaml': () => join(FIXTURES, 'check/cli/broken/packages/shop'),
  // a rule finding on a range inside a CEL expression, with a hint
  'cel-type-error': () => casePackage('expression_type_error/invalid/int-times-double', 'orders'),
  // a CEL range inside a quoted YAML string: columns count from the line, not the expression
  'cel-range-in-quoted-string': () => casePackage('expression_too_complex/invalid/four-nested-macros', 'orders'),
  // a warning and nothing else: the check passes
  'warning-only': () => casePackage('table_rule_unreachable/invalid/catch-all-first', 'orders'),
} as const;

const laidCases: string[] = [];
afterAll(() => laidCases.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function casePackage(ruleCase: string, pkg: string): string {
  const laid = overlayCase(join(FIXTURES, 'check', ruleCase));
  laidCases.push(laid);
  return join(laid, 'packages', pkg);
}

const EXTENSION: Record<Format, string> = { text: 'txt', json: 'json', sarif: 'sarif.json', github: 'github.txt' };
const FORMATS = Object.keys(EXTENSION) as Format[];
const PLAIN = paintFor({ isTTY: false });
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** What `check --format <format>` prints with the package directory as working directory. */
async function rendered(dir: string, format: Format): Promise<string> {
  const { report, workspace } = await check({ cwd: dir });
  const documents = workspace.documents();
  const sourceOf = (file: string) => documents.get(file)?.text ?? readText(join(dir, file));
  const findings = allFindings(report);
  const output = {
    text: () => renderCheckText(report, sourceOf, PLAIN),
    json: () => JSON.stringify(report, null, 2),
    sarif: () => withoutToolVersion(renderSarif(findings, { version: VERSION, summaries: new Map(codeCatalog().map((info) => [info.code, info.summary])) })),
    github: () => [renderGithub(findings), summaryLine(report, PLAIN)].filter(Boolean).join('\n'),
  }[format]();
  return `${output}\n`;
}

/** The SARIF log without package-sdk's version, which every release changes. */
function withoutToolVersion(sarif: string): string {
  const log = JSON.parse(sarif) as { runs: { tool: { driver: { version: string } } }[] };
  for (const run of log.runs) run.tool.driver.version = '(package-sdk version)';
  return JSON.stringify(log, null, 2);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

describe.each(Object.entries(CASES))('check of %s', (name, fixture) => {
  it.for(FORMATS)('as %s', async (format, { expect }) => {
    await expect(await rendered(fixture(), format)).toMatchFileSnapshot(`snapshots/check/${name}.${EXTENSION[format]}`);
  });
});

describe.concurrent('the built CLI prints what the renderers give', () => {
  const cache = scratchDir('check-rendering-cache-');
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const dir = CASES['schema-hint-suppressed-not-yaml']();
  const flags: Record<Format, string[]> = { text: [], json: ['--json'], sarif: ['--format', 'sarif'], github: ['--format', 'github'] };

  it.for(FORMATS)('check %s', async (format, { expect }) => {
    const { code, stdout, stderr } = await runCli(['check', ...flags[format]], { cwd: dir, env: { PACKAGE_SDK_CACHE: cache } });
    expect(code, stderr).toBe(1);
    expect(format === 'sarif' ? `${withoutToolVersion(stdout)}\n` : stdout).toBe(await rendered(dir, format));
  });
});
