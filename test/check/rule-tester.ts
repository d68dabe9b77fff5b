/**
 * The rule tester (STYLE.md §1): a valid case gives no finding at all, and an invalid case gives exactly the
 * findings its expected.yaml lists — every code, in the order `check` reports them (errors, warnings, notes,
 * then suppressed), each at its file, line, column and path, with its message and its hint. The message of a rule's
 * code is built by the rule's own message function from the `data` the case writes, so a case states what the
 * rule says rather than a copy of its wording; the message of a code of loading or of the schema stage is
 * written word for word. The tester refuses a case that could pass without proving anything.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { codeCatalog } from '../../src/check/catalog.js';
import { check } from '../../src/check/index.js';
import type { CodeMeta, Rule } from '../../src/check/rule.js';
import { RULES } from '../../src/check/rules/index.js';
import type { Finding } from '../../src/model/finding.js';
import { CASE_EXPECTED, overlayCase } from '../support/overlay.js';

/** One finding as an expected.yaml writes it. */
export interface ExpectedFinding {
  code: string;
  /** The rule that reports it, named when several rules declare the code. */
  rule?: string;
  file: string;
  line: number;
  column: number;
  path: string;
  /** A rule's code: what its message is built from; `null` stands for a field the finding does not have. */
  data?: Record<string, unknown>;
  /** A code of loading or of the schema stage: the message, word for word. */
  message?: string;
  hint?: string;
  suppressed?: true;
}

/** What a finding is compared on. */
export interface Compared {
  code: string;
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
  hint?: string;
  suppressed?: true;
}

/** The fixture cases of one code: directories laid over their base (fixtures/check/README.md). */
export interface CaseTable {
  code: string;
  valid: readonly string[];
  invalid: readonly string[];
}

export const ruleTester = {
  /** The cases of `rule`'s codes, one vitest test each. */
  run(rule: Rule, tables: readonly CaseTable[]): void {
    describe(rule.id, () => {
      for (const { code, valid, invalid } of tables) {
        describe(code, () => {
          it.each(valid.map(named))('valid: %s', async (_name, dir) => {
            expect(await findingsOfCase(dir), 'a valid case gives no finding at all').toEqual([]);
          });
          it.each(invalid.map(named))('invalid: %s', async (_name, dir) => {
            const expected = expectedFindings(code, parse(readFileSync(join(dir, CASE_EXPECTED), 'utf8')) ?? []);
            expect(await findingsOfCase(dir)).toEqual(expected);
          });
        });
      }
    });
  },
};

const named = (dir: string): [string, string] => [basename(dir), dir];

/** The findings of a case, compared as the tester compares them, its temporary layout removed afterwards. */
async function findingsOfCase(caseDir: string): Promise<Compared[]> {
  const dir = overlayCase(caseDir);
  try {
    return (await findingsOf(dir)).map(compared);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `check` reports for `dir` as a user runs it there: `--install packages.yaml` when it has one, else the default targets. */
async function findingsOf(dir: string): Promise<Finding[]> {
  const install = existsSync(join(dir, 'packages.yaml')) ? { install: 'packages.yaml' } : {};
  const { report } = await check({ cwd: dir, ...install });
  return [...report.errors, ...report.warnings, ...report.notes, ...report.suppressed];
}

function compared(finding: Finding): Compared {
  return comparable(finding, finding.message);
}

/** The fields the tester compares, of a finding or of what a case expects, with `message`. */
function comparable(f: Pick<Compared, 'code' | 'file' | 'line' | 'column' | 'path' | 'hint'> & { suppressed?: boolean }, message: string): Compared {
  const { code, file, line, column, path, hint, suppressed } = f;
  return { code, file, line, column, path, message, ...(hint === undefined ? {} : { hint }), ...(suppressed ? { suppressed: true } : {}) };
}

/**
 * The findings an invalid case of `caseCode` expects, messages built. Throws when the case is one the tester
 * refuses: it expects nothing or not its own code, names a code nothing declares, writes a message where the rule
 * builds it (or data where there is no rule), or leaves out a field the message reads.
 */
export function expectedFindings(caseCode: string, expected: readonly ExpectedFinding[]): Compared[] {
  if (expected.length === 0) throw new Error('an invalid case expects at least one finding');
  if (!expected.some((e) => e.code === caseCode)) throw new Error(`an invalid case of ${caseCode} expects a ${caseCode} finding`);
  return expected.map((e, i) => {
    const where = `finding ${i + 1} (${e.code})`;
    if (e.code === 'schema_violation' && caseCode !== 'schema_violation') {
      throw new Error(`${where}: the rules run only on documents that pass the schema — fix the case's schema mistake`);
    }
    return comparable(e, messageOf(e, where));
  });
}

function messageOf(e: ExpectedFinding, where: string): string {
  const declaring = RULES.filter((rule) => e.code in rule.codes);
  if (declaring.length === 0) {
    if (!CATALOG_CODES.has(e.code)) throw new Error(`${where}: no rule and no entry of the code catalog declares '${e.code}'`);
    if (e.data !== undefined || e.rule !== undefined) throw new Error(`${where}: '${e.code}' is no rule's code — write its message, not data or rule`);
    if (typeof e.message !== 'string') throw new Error(`${where}: write the message of '${e.code}' word for word`);
    return e.message;
  }
  if (e.message !== undefined) throw new Error(`${where}: the rule builds the message of '${e.code}' — write its data, not the message`);
  return buildMessage(ruleOf(e, declaring, where).codes[e.code], e.data ?? {}, where);
}

const CATALOG_CODES: ReadonlySet<string> = new Set(codeCatalog().map((info) => info.code));

function ruleOf(e: ExpectedFinding, declaring: readonly Rule[], where: string): Rule {
  const ids = declaring.map((rule) => rule.id).join(', ');
  if (e.rule === undefined) {
    if (declaring.length > 1) throw new Error(`${where}: '${e.code}' is declared by ${ids} — name the rule that reports it`);
    return declaring[0];
  }
  const rule = declaring.find((candidate) => candidate.id === e.rule);
  if (!rule) throw new Error(`${where}: rule '${e.rule}' does not declare '${e.code}' (${ids} do)`);
  return rule;
}

/**
 * The rule's message from the case's data. Every field the message reads must be written, `null` for one the
 * finding does not have: a field left out would otherwise read as undefined and could go unnoticed.
 */
function buildMessage(meta: CodeMeta<unknown>, data: Record<string, unknown>, where: string): string {
  const strict = new Proxy(data, {
    get(target, field) {
      if (typeof field === 'string' && !(field in target)) throw new Error(`${where}: its data lacks the field '${field}' the message reads`);
      const value: unknown = Reflect.get(target, field);
      return value === null ? undefined : value;
    },
  });
  return meta.message(strict);
}
