import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { codeCatalog, renderFindingsDoc } from '../../src/check/catalog.js';
import { RULES } from '../../src/check/rules/index.js';
import { CASE_EXPECTED, FIXTURES } from '../support/overlay.js';

const ROOT = join(import.meta.dirname, '../..');
const CATALOG = new Set(codeCatalog().map((info) => info.code));

/** The sources of findings and refusals: check, loading, the lock, plan and apply, and the core client errors plan refuses with. */
const EMITTERS = ['src/check', 'src/load', 'src/sources', 'src/lock', 'src/plan', 'src/client'];

/** The snake_case words of those sources that are no code of package-sdk, and what they are. */
const NOT_CODES: Record<string, string> = {
  node_modules: 'a folder the cache pruning leaves alone',
  new_space: "V8's name of the young generation's heap space",
  workspace_type: "the core's etag of workspace types",
  secret_ref: 'a field name the secret scanner knows',
  invalid_credentials: 'a code of the core: a 401 a fresh credential may cure',
  invalid_token: 'a code of the core: a 401 a fresh credential may cure',
  depends_on: 'a relation of tasks (approval actions, artifact inputs)',
  spawned_by: 'a relation of tasks (approval actions, artifact inputs)',
  related_to: 'a relation of tasks (approval actions)',
  terminal_success: 'a category of lifecycle statuses',
  terminal_cancelled: 'a category of lifecycle statuses',
  in_progress: 'a status of the system lifecycle',
  in_params: 'an authStyle of oauth2 connection types',
  in_header: 'an authStyle of oauth2 connection types',
  external_write: 'a side effect of skills',
  llm_judge: 'a kind of acceptance checks',
  ensure_work: 'a kind of work rule actions',
  update_work: 'a kind of work rule actions',
  cancel_work: 'a kind of work rule actions',
  complete_work: 'a kind of work rule actions',
  request_decision: 'a kind of work rule actions',
  external_write_not_pinned: 'a reason the core gives in invalid_approval_schema',
  external_write_on_rejected: 'a reason the core gives in invalid_approval_schema',
  invalid_wrapper: 'a former code, named in docs/findings.md as invalid_document',
  data_ref_invalid: 'a former code, named in docs/findings.md as unresolved_data_ref',
  artifact_media_wider: 'a former code, named in docs/findings.md as invalid_artifact_schema',
};

/** Every quoted snake_case word of `paths` (files, or folders read recursively). */
function quotedWords(paths: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const file of paths.flatMap(typeScriptFiles)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/['"`]([a-z][a-z0-9]*(?:_[a-z0-9]+)+)['"`]/g)) words.add(match[1]);
  }
  return words;
}

function typeScriptFiles(path: string): string[] {
  const absolute = join(ROOT, path);
  if (!statSync(absolute).isDirectory()) return [absolute];
  return (readdirSync(absolute, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(absolute, file));
}

/** The codes the invalid cases of fixtures/check expect — exactly what check gives for them (test/check/fixtures.test.ts). */
function codesOfTheCases(): Set<string> {
  const codes = new Set<string>();
  const root = join(FIXTURES, 'check');
  for (const invalid of readdirSync(root).map((code) => join(root, code, 'invalid')).filter((dir) => existsSync(dir))) {
    for (const name of readdirSync(invalid)) {
      const expected = parse(readFileSync(join(invalid, name, CASE_EXPECTED), 'utf8')) as { code: string }[];
      for (const finding of expected) codes.add(finding.code);
    }
  }
  return codes;
}

describe('the code catalog', () => {
  it('lists each code once, in snake_case, with a summary', () => {
    const codes = codeCatalog().map((info) => info.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const info of codeCatalog()) {
      expect(info.code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(info.summary.length).toBeGreaterThan(10);
    }
  });

  it('names where each code comes from: load, schema, lock, plan, or the rules that report it', () => {
    const ruleIds = new Set(RULES.map((rule) => rule.id));
    for (const info of codeCatalog()) {
      const sources = info.source.split(', ');
      expect(sources.every((source) => ['load', 'schema', 'lock', 'plan'].includes(source) || ruleIds.has(source)), `${info.code}: ${info.source}`).toBe(true);
    }
  });

  it('holds every code the cases of the rules produce', () => {
    const cases = codesOfTheCases();
    expect(cases.size).toBeGreaterThan(RULES.length);
    expect([...cases].filter((code) => !CATALOG.has(code))).toEqual([]);
  });

  it('holds every code that check, loading, the lock, plan and apply name in src/', () => {
    const missing = [...quotedWords(EMITTERS)].filter((word) => !CATALOG.has(word) && !(word in NOT_CODES));
    expect(missing, 'add them to src/check/catalog.ts, or to NOT_CODES when they are no code').toEqual([]);
  });

  it('holds no code of loading, the lock or plan that src/ no longer names, and NOT_CODES only words it does', () => {
    const words = quotedWords(EMITTERS);
    const ruleCodes = new Set(RULES.flatMap((rule) => Object.keys(rule.codes)));
    expect([...CATALOG].filter((code) => !ruleCodes.has(code) && !words.has(code))).toEqual([]);
    expect(Object.keys(NOT_CODES).filter((word) => !words.has(word))).toEqual([]);
  });

  it('docs/findings.md is generated from it and up to date (npm run docs:findings)', () => {
    expect(readFileSync(new URL('../../docs/findings.md', import.meta.url), 'utf8')).toBe(renderFindingsDoc());
  });
});
