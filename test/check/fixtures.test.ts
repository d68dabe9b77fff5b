/**
 * The fixture table of stage 2 (STYLE.md §1): every code a rule declares has `fixtures/check/<code>/valid/*`
 * cases that must not report it and `fixtures/check/<code>/invalid/*` cases that must report exactly what
 * their `expected.yaml` lists. A case is a directory checked as a user would: `--install packages.yaml`
 * when it has one, else the default targets (./packages/* or the directory itself when it is a package).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { RULES } from '../../src/check/rules/index.js';

const ROOT = join(import.meta.dirname, '../../fixtures/check');

interface Expected {
  code: string;
  file: string;
  line: number;
  column: number;
  path: string;
  message?: string;
  hint?: string;
}

const codes = [...new Map(RULES.flatMap((rule) => Object.keys(rule.codes).map((code) => [code, { rule: rule.id, code }] as const))).values()];

function cases(code: string, kind: 'valid' | 'invalid'): string[] {
  const dir = join(ROOT, code, kind);
  return existsSync(dir) ? readdirSync(dir).sort().map((name) => join(dir, name)) : [];
}

async function findingsOf(dir: string) {
  const install = existsSync(join(dir, 'packages.yaml')) ? { install: 'packages.yaml' } : {};
  const { report } = await check({ cwd: dir, ...install });
  return [...report.errors, ...report.warnings, ...report.suppressed];
}

describe('every rule code has fixtures', () => {
  it.each(codes)('$code ($rule) has a valid and an invalid case', ({ code }) => {
    expect(cases(code, 'valid').length, `fixtures/check/${code}/valid/<case>/`).toBeGreaterThan(0);
    expect(cases(code, 'invalid').length, `fixtures/check/${code}/invalid/<case>/`).toBeGreaterThan(0);
  });
});

describe.each(codes.filter(({ code }) => existsSync(join(ROOT, code))))('$code', ({ code }) => {
  it.each(cases(code, 'valid'))('valid: %s', async (dir) => {
    const findings = await findingsOf(dir);
    expect(findings.filter((f) => f.code === code)).toEqual([]);
    expect(findings.filter((f) => f.severity === 'error'), 'a valid case is a clean package').toEqual([]);
  });

  it.each(cases(code, 'invalid'))('invalid: %s', async (dir) => {
    const expected = parse(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Expected[];
    expect(expected.some((e) => e.code === code), 'an invalid case must expect its code').toBe(true);
    const findings = await findingsOf(dir);
    const actual = findings
      .filter((f) => expected.some((e) => e.code === f.code))
      .map((f) => ({ code: f.code, file: f.file, line: f.line, column: f.column, path: f.path, message: f.message, hint: f.hint }));
    expect(actual).toHaveLength(expected.length);
    for (const [i, e] of expected.entries()) {
      const { message, hint, ...place } = e;
      expect(actual[i]).toMatchObject(place);
      if (message !== undefined) expect(actual[i]?.message).toContain(message);
      if (hint !== undefined) expect(actual[i]?.hint).toContain(hint);
    }
    if (code !== 'schema_violation') {
      expect(findings.filter((f) => f.code === 'schema_violation'), 'stage 2 runs only on documents that pass the schema').toEqual([]);
    }
  });
});
