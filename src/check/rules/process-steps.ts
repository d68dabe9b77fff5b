import { childPointer } from '../../json/pointer.js';
import { isRecord } from '../../json/guards.js';
import type { PackageObject } from '../../model/package.js';
import { processModel, type Step } from '../../process/index.js';
import { defineObjectRule, type ObjectContext } from '../rule.js';
import { eachMapping } from '../values.js';

/**
 * What the core checks of single steps beyond their expressions and references (compat-core-validators.md §2.8):
 * an escalation has what its action needs, a case anchor has a case to anchor to, and a called process exists.
 */
export const processSteps = defineObjectRule({
  id: 'process/steps',
  description: 'Escalations have what their action needs, case anchors have spec.memory, and a called process is published.',
  codes: {
    invalid_escalation: {
      severity: 'error',
      core: true,
      summary: 'An escalation reassigns without to, or raises without error.',
      message: (d: { action: 'reassign' | 'raise' }) => (d.action === 'reassign' ? 'reassign needs to: <assign chain>' : 'raise needs error: {type}'),
    },
    memory_case_undeclared: {
      severity: 'error',
      core: true,
      summary: 'A recall or context anchor is the case (case: true), and the process declares no spec.memory: there is no case node.',
      message: () => 'the case is an anchor here, but the process declares no spec.memory: it has no case in memory',
    },
    unknown_process: {
      severity: 'warning',
      core: true,
      summary: 'A call step calls a process that no visible package declares: it must be published in the tenant before this one runs.',
      message: (d: { process: string }) => `no process '${d.process}' is published yet`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const place = (pointer: string) => ({ document: process.document, pointer });
    const memory = isRecord(process.spec.memory);
    for (const step of processModel(process.spec).steps) {
      if (!isRecord(step.body)) continue;
      const at = `${step.pointer}/${step.kind}`;
      if (step.kind === 'human' || step.kind === 'approve') {
        eachMapping(step.body.escalations, `${at}/escalations`, (escalation, pointer) => {
          const action = missingPart(escalation);
          if (action !== undefined) context.report('invalid_escalation', place(pointer), { action }, { hint: ESCALATION_HINT[action] });
        });
      }
      if (!memory) {
        for (const pointer of caseAnchors(step)) {
          context.report('memory_case_undeclared', place(pointer), undefined, { hint: 'declare spec.memory with its case, or anchor on an entity: {kind, key}' });
        }
      }
      if (step.kind === 'call' && typeof step.body.process === 'string') checkCalledProcess(step.body.process, `${at}/process`, process, context);
    }
  },
});

type StepsContext = ObjectContext<(typeof processSteps)['codes']>;

const ESCALATION_HINT = {
  reassign: 'add to: [{role: <role>}] — who the task goes to',
  raise: 'add error: {type: <error type>} — the error the step fails with',
} as const;

/** The action of an escalation that lacks the part its action needs. */
function missingPart(escalation: Record<string, unknown>): 'reassign' | 'raise' | undefined {
  if (escalation.action === 'reassign' && !(Array.isArray(escalation.to) && escalation.to.length > 0)) return 'reassign';
  if (escalation.action === 'raise' && !isRecord(escalation.error)) return 'raise';
  return undefined;
}

/** The `case: true` of the anchors of a recall step and of the context of a human, approve or call step. */
function caseAnchors(step: Step): string[] {
  const body = step.body as Record<string, unknown>;
  const [anchors, pointer] = step.kind === 'recall'
    ? [body.anchors, `${step.pointer}/recall/anchors`]
    : isRecord(body.context) ? [body.context.anchors, `${step.pointer}/${step.kind}/context/anchors`] : [undefined, ''];
  const found: string[] = [];
  eachMapping(anchors, pointer, (anchor, at) => {
    if (anchor.case === true) found.push(childPointer(at, 'case'));
  });
  return found;
}

/** A called process other than this one must be declared where the package sees it, or be in the tenant already. */
function checkCalledProcess(key: string, pointer: string, process: PackageObject, context: StepsContext): void {
  if (key === process.key || key.includes('$') || context.lookup(process.package, 'Process', key) !== undefined) return;
  const hint = context.suggest(process.package, 'Process', key);
  context.report('unknown_process', { document: process.document, pointer }, { process: key }, {
    hint: hint ?? 'declare the process in this package or one it requires, or publish it to the tenant first',
  });
}

/**
 * `remember` of an entity links it to the case; without `spec.memory` the process has no case node, and the core
 * warns (the entity is written without its link).
 */
export const processRemember = defineObjectRule({
  id: 'process/remember',
  description: 'A remember step that writes an entity needs spec.memory for the case the entity is linked to.',
  codes: {
    memory_case_undeclared: {
      severity: 'warning',
      core: true,
      summary: 'A remember step writes an entity, and the process declares no spec.memory: the entity has no case to be linked to.',
      message: () => 'remember writes an entity of the case, but the process declares no spec.memory: it has no case in memory',
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    if (isRecord(process.spec.memory)) return;
    for (const step of processModel(process.spec).steps) {
      if (step.kind !== 'remember' || !isRecord(step.body) || !isRecord(step.body.entity)) continue;
      context.report('memory_case_undeclared', { document: process.document, pointer: step.pointer }, undefined, {
        hint: 'declare spec.memory with its case',
      });
    }
  },
});
