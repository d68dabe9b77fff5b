/**
 * What the process-language rules (expressions of processes and views, decision tables, reachability) report
 * when `check` runs over a package or installation: `file:line:column code message`, one line each.
 */
import { expect } from 'vitest';
import { check } from '../../../src/check/index.js';
import { decisionTables } from '../../../src/check/rules/decision-tables.js';
import { processExpressionRules } from '../../../src/check/rules/process-expressions.js';
import { processReachability } from '../../../src/check/rules/process-reachability.js';
import { viewExpressionRules } from '../../../src/check/rules/view-expressions.js';

export const PROCESS_LANGUAGE_RULES = [processExpressionRules, viewExpressionRules, decisionTables, processReachability];
const CODES = new Set(PROCESS_LANGUAGE_RULES.flatMap((rule) => Object.keys(rule.codes)));

export async function processLanguageFindings(options: Parameters<typeof check>[0]): Promise<string[]> {
  const { report, workspace } = await check(options);
  expect(workspace.objects('Process').length, 'a process was loaded').toBeGreaterThan(0);
  return [...report.errors, ...report.warnings]
    .filter((f) => CODES.has(f.code))
    .map((f) => `${f.file}:${f.line}:${f.column} ${f.code} ${f.message}`);
}
