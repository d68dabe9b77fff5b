/**
 * How the rules declare and report the problems of the domain validators: every such code has one message form,
 * `<field>: <problem>` — the field as the core's messages name it, the problem in its words.
 */
import type { Severity } from '../../model/finding.js';
import type { PackageObject } from '../../model/package.js';
import type { CodeMeta, Codes, SharedContext } from '../rule.js';
import type { DomainProblem } from './problems.js';

export interface DomainData {
  field: string;
  problem: string;
}

/** `<field>: <problem>`, or the problem alone when it names its field first, as many of the core's messages do. */
function domainMessage(data: DomainData): string {
  return data.problem.startsWith(`${data.field} `) ? data.problem : `${data.field}: ${data.problem}`;
}

/**
 * A code of the core's domain validators as a rule declares it: an error unless said, `core: true` when the
 * core's package check (`packages:test`) reports it — the local core runs those.
 */
export function domainCode(summary: string, options: { severity?: Severity; core?: boolean } = {}): CodeMeta<DomainData> {
  return { severity: options.severity ?? 'error', summary, message: domainMessage, ...(options.core ? { core: true as const } : {}) };
}

/** Codes several kinds report, with one summary for all of them. */
const SHARED_SUMMARIES = {
  invalid_json_schema: 'A stored JSON Schema (field, metadata, settings, skill input or output schema) is not a Draft 2020-12 schema, or refers outside itself with $ref.',
  payload_too_large: 'A stored document (a schema, a lifecycle, a part of a rule or a contract) is over its budget: 64 KiB of JSON (16 KiB for some) or 5000 values.',
  payload_too_deep: 'A stored document (a schema, a lifecycle, a part of a rule or a contract) is nested more than 20 levels deep.',
  secret_material_rejected: 'A document the core stores holds a member named like a secret (password, token, apiKey, …) or credential-shaped text.',
  invalid_lifecycle_schema: 'A lifecycle is refused: statuses (keys, categories of the kind, no repeats), initialStatus, transitions, claim, release and completion statuses.',
  invalid_instructions: 'Instructions for executors are not text.',
  instructions_too_large: 'Instructions for executors are more than 16 KiB in UTF-8.',
  invalid_rule_condition: 'A condition is not the rule grammar: true, false or one operator (and, or, not, eq, ne, lt, le, gt, ge, in, exists) over paths of the roots of its place.',
} as const;

/** A code several kinds report, declared with its one summary. */
export function sharedCode(code: keyof typeof SHARED_SUMMARIES, options: { core?: boolean } = {}): CodeMeta<DomainData> {
  return domainCode(SHARED_SUMMARIES[code], options);
}

/** Reports the problems of one object, each at its node (the key of a member that should not be there). */
export function reportProblems(context: SharedContext<Codes>, object: PackageObject, problems: readonly DomainProblem[]): void {
  for (const problem of problems) {
    const place = problem.span
      ? { document: object.document, pointer: problem.pointer, ...problem.span }
      : { document: object.document, pointer: problem.pointer, ...(problem.atKey ? { part: 'key' as const } : {}) };
    context.report(
      problem.code,
      place,
      { field: problem.field, problem: problem.problem },
      problem.hint === undefined ? {} : { hint: problem.hint },
    );
  }
}
