/**
 * CEL diagnostics as findings: the codes of the expression profile, worded by the checker, reported at the
 * characters they are about. Shared by the rules that check process and view expressions.
 */
import { CEL_CODES, type CelCode, type CheckResult } from '../cel/index.js';
import type { SourceDocument } from '../json/document.js';
import type { CodeMeta, RuleContext } from './rule.js';

/** The profile's codes that an expression of a process or a view can get (aggregates are the screens rule's). */
export type ExpressionCode = Exclude<CelCode, 'aggregate_outside_metrics'>;

/** Metadata of the profile's codes: the checker words each message itself. */
export const EXPRESSION_CODES = Object.fromEntries(
  (Object.keys(CEL_CODES) as CelCode[])
    .filter((code): code is ExpressionCode => code !== 'aggregate_outside_metrics')
    .map((code) => [code, { severity: 'error', summary: CEL_CODES[code], message: (d: { message: string }) => d.message }]),
) as Record<ExpressionCode, CodeMeta<{ message: string }>>;

/** Reports the diagnostics of one checked expression, at the characters they are about. */
export function reportDiagnostics(
  context: RuleContext<typeof EXPRESSION_CODES>,
  document: SourceDocument,
  pointer: string,
  result: CheckResult,
): void {
  for (const d of result.diagnostics) {
    if (d.code === 'aggregate_outside_metrics') continue;
    context.report(d.code, { document, pointer, offset: d.offset, length: d.length }, { message: d.message }, d.hint === undefined ? {} : { hint: d.hint });
  }
}

