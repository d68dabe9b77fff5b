/**
 * CEL diagnostics as findings: the codes of the expression profile, worded by the checker, reported at the
 * characters they are about. Shared by the rules that check process and view expressions.
 */
import { CEL_CODES, type CelCode, type CheckResult } from '../cel/index.js';
import type { SourceDocument } from '../json/document.js';
import type { CodeMeta, SharedContext } from './rule.js';

/** The profile's codes that an expression of a process or a view can get (aggregates are the screens rule's). */
export type ExpressionCode = Exclude<CelCode, 'aggregate_outside_metrics'>;

function codesOf(core: boolean): Record<ExpressionCode, CodeMeta<{ message: string }>> {
  return Object.fromEntries(
    (Object.keys(CEL_CODES) as CelCode[])
      .filter((code): code is ExpressionCode => code !== 'aggregate_outside_metrics')
      .map((code) => [code, { severity: 'error', summary: CEL_CODES[code], message: (d: { message: string }) => d.message, ...(core ? { core: true } : {}) }]),
  ) as Record<ExpressionCode, CodeMeta<{ message: string }>>;
}

/** Metadata of the profile's codes for processes: the core compiles them at packages:test. */
export const EXPRESSION_CODES = codesOf(true);

/** The same codes for screens, which the core checks when it plans, not at packages:test. */
export const SCREEN_EXPRESSION_CODES = codesOf(false);

/** Reports the diagnostics of one checked expression, at the characters they are about. */
export function reportDiagnostics(
  context: SharedContext<typeof EXPRESSION_CODES>,
  document: SourceDocument,
  pointer: string,
  result: CheckResult,
): void {
  for (const d of result.diagnostics) {
    if (d.code === 'aggregate_outside_metrics') continue;
    context.report(d.code, { document, pointer, offset: d.offset, length: d.length }, { message: d.message }, d.hint === undefined ? {} : { hint: d.hint });
  }
}
