/**
 * The YAML fragments `edit` takes on the command line (`--step`, `--row`, `--value` …): YAML text read with
 * the core's loader rules (so `on` stays a string and `012` is twelve), or `@file` for the text of a file.
 * A caller of the library (the MCP server) may hand the value itself instead of its text.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseYaml } from '../../load/yaml.js';
import { Refusal } from '../../fs/refusal.js';
import { isRecord } from '../../json/guards.js';

/** The value of a fragment: text (YAML, or `@file`) is read; any other value is taken as it is. */
export function fragmentValue(fragment: unknown, what: string, cwd: string): unknown {
  if (typeof fragment !== 'string') return fragment;
  let text = fragment;
  let source = what;
  if (fragment.startsWith('@')) {
    source = fragment.slice(1);
    try {
      text = readFileSync(resolve(cwd, source), 'utf8');
    } catch (error) {
      throw new Refusal('fragment_unreadable', `${what} ${fragment}: ${(error as Error).message}`, { exitCode: 2 });
    }
  }
  const { document, findings } = parseYaml(text, source);
  const problem = findings.find((finding) => finding.severity === 'error');
  if (problem || !document) {
    throw new Refusal('invalid_fragment', `${what} is not YAML: ${problem ? `line ${problem.line}: ${problem.message}` : 'empty'}`, { exitCode: 2 });
  }
  return document.value;
}

/** A fragment that must be a mapping (a step, a stage, a row …). */
export function mappingFragment(fragment: unknown, what: string, cwd: string): Record<string, unknown> {
  const value = fragmentValue(fragment, what, cwd);
  if (!isRecord(value)) throw new Refusal('invalid_fragment', `${what} must be a mapping (${what === '--step' ? 'id: …, human: …' : 'key: value …'})`, { exitCode: 2 });
  return value;
}
