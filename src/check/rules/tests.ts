/**
 * Package tests (compat-package-sdk-check.md §2.11): what a `tests/*.test.yaml` names — its subject, the steps
 * it completes, approves and expects, the agents that act in it — exists, and what it gives the core is what
 * the core accepts. A test is about an object of its own package, never of its requires.
 */
import { forEachAt } from '../../json/walk.js';
import { childPointer, dottedPath } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { ObjectKind } from '../../model/kinds.js';
import type { PackageObject, PackageTest } from '../../model/package.js';
import { processModel, STEP_KINDS_WITH_DUE } from '../../process/index.js';
import { defineRule, type RuleContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

/** What the core accepts as the content of one given artifact, in UTF-8 bytes. */
export const GIVEN_CONTENT_LIMIT = 1024 * 1024;
const AGENT_REF = /^agent:([a-z0-9][a-z0-9-]{0,62})$/;
/** Step verbs whose `due` sets a deadline (`expect.sla` reads its state). */
/** The subject kinds of a test, by `subject`, and the field that names it. */
const SUBJECTS: Record<string, { kind: ObjectKind; field: string; noun: string }> = {
  process: { kind: 'Process', field: 'process', noun: 'process' },
  rule: { kind: 'WorkRule', field: 'rule', noun: 'rule' },
  taskType: { kind: 'TaskType', field: 'taskType', noun: 'taskType' },
};

export const packageTests = defineRule({
  id: 'tests/references',
  description: "A package test names its own package's objects, steps that exist, and gives what the core accepts.",
  codes: {
    given_content_too_large: {
      severity: 'error',
      summary: 'A given artifact content is at most 1 MiB in UTF-8 bytes: the core rejects a larger given.',
      message: (d: { at: string; bytes: number }) =>
        `${d.at}: ${d.bytes} bytes in UTF-8 — more than ${GIVEN_CONTENT_LIMIT} (1 MiB), the core will reject such a given`,
    },
    unknown_subject: {
      severity: 'error',
      summary: 'The process, rule or task type a test is about is an object of the same package.',
      message: (d: { noun: string; key: string; kind: string; pkg: string }) => `${d.noun} '${d.key}' — no such ${d.kind} in package ${d.pkg}`,
    },
    agent_ref: {
      severity: 'warning',
      summary: 'An actor of a test step written agent:<key> names an Agent of the package or its requires.',
      message: (d: { field: string; written: string; pkg: string; malformed: boolean }) =>
        d.malformed
          ? `${d.field} '${d.written}' is not an agent reference — an agent reference is written agent:<key>`
          : `${d.field} '${d.written}' — no such Agent in package ${d.pkg} or its requires`,
    },
    unknown_test_step: {
      severity: 'error',
      summary: 'A step a process test completes, approves, binds an observation to or expects is an element of the process.',
      message: (d: { field: string; id: string; process: string }) => `${d.field} '${d.id}' — no such element in process ${d.process}`,
    },
    emit_task_without_observation: {
      severity: 'error',
      summary: "emit.task goes with emit.observation: only an observation is bound to a step's task.",
      message: () => "emit.task binds an observation to the latest task of a step — only an observation is bound to a step's task, not an event",
    },
    unknown_sla_target: {
      severity: 'error',
      summary: 'A key of expect.sla is process or the id of an element of the process.',
      message: (d: { id: string; process: string }) => `expect.sla '${d.id}' — no such element in process ${d.process} (keys are step ids, or process)`,
    },
    sla_without_due: {
      severity: 'error',
      summary: 'expect.sla names the process or an element that has a due: without one there is no deadline state.',
      message: (d: { id: string; process: string }) =>
        d.id === 'process'
          ? `expect.sla 'process' — process ${d.process} has no spec.due, so it has no deadline state`
          : `expect.sla '${d.id}' — element ${d.id} of process ${d.process} has no due, so it has no deadline state`,
    },
  },
  check(context) {
    for (const test of context.tests()) {
      if (!isRecord(test.document.value)) continue;
      const value = test.document.value;
      checkGivenContent(context, test, value);
      checkAgents(context, test, value);
      const subject = subjectOf(context, test, value);
      if (subject?.kind === 'Process') checkProcessSteps(context, test, value, subject);
    }
  },
});

type Context = RuleContext<(typeof packageTests)['codes']>;

function checkGivenContent(context: Context, test: PackageTest, value: Record<string, unknown>): void {
  forEachAt(value, ['given', 'artifacts', '*', 'content'], '', (content, pointer) => {
    if (typeof content !== 'string' || content.length * 3 <= GIVEN_CONTENT_LIMIT) return; // no string under 1/3 MiB can be over
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes <= GIVEN_CONTENT_LIMIT) return;
    const index = pointer.split('/')[3];
    context.report('given_content_too_large', { document: test.document, pointer }, { at: `given.artifacts[${index}].content`, bytes }, {
      hint: 'give a smaller excerpt: the test needs only what the checks read',
    });
  });
}

/** `by` of test steps (who emits, completes, approves): a principal of the test, or an agent of the package. */
function checkAgents(context: Context, test: PackageTest, value: Record<string, unknown>): void {
  forEachAt(value, ['steps', '*', '*', 'by'], '', (by, pointer) => {
    if (typeof by !== 'string' || !by.startsWith('agent:')) return;
    const field = fieldOf(pointer);
    const key = AGENT_REF.exec(by)?.[1];
    if (key === undefined) {
      context.report('agent_ref', { document: test.document, pointer }, { field, written: by, pkg: test.package, malformed: true }, { hint: 'write agent:<key of an Agent>' });
    } else if (context.lookup(test.package, 'Agent', key) === undefined) {
      const hint = context.suggest(test.package, 'Agent', key);
      context.report('agent_ref', { document: test.document, pointer }, { field, written: by, pkg: test.package, malformed: false }, hint ? { hint } : {});
    }
  });
}

/** The object the test is about, from its own package; reported when it is not there. */
function subjectOf(context: Context, test: PackageTest, value: Record<string, unknown>): PackageObject | undefined {
  const subject = SUBJECTS[typeof value.subject === 'string' ? value.subject : 'process'];
  if (subject === undefined) return undefined;
  const key = value[subject.field];
  if (typeof key !== 'string') return undefined;
  const own = (context.workspace.package(test.package)?.objects ?? []).filter((o) => o.kind === subject.kind);
  const found = own.find((o) => o.key === key);
  if (found !== undefined) return found;
  const elsewhere = context.lookup(test.package, subject.kind, key);
  const hint = elsewhere
    ? `a test is about an object of its own package; ${subject.kind} ${key} is in package ${elsewhere.package} — test it there`
    : didYouMean(key, own.map((o) => o.key));
  context.report('unknown_subject', { document: test.document, pointer: childPointer('', subject.field) }, { noun: subject.noun, key, kind: subject.kind, pkg: test.package }, hint ? { hint } : {});
  return undefined;
}

/** Steps of a process test name elements of the process; expect.sla names what has a deadline. */
function checkProcessSteps(context: Context, test: PackageTest, value: Record<string, unknown>, process: PackageObject): void {
  const elements = new Map(processModel(process.spec).elements.map((element) => [element.id, element.node]));
  const ids = [...elements.keys()];
  const at = (pointer: string, part?: 'key') => ({ document: test.document, pointer, ...(part ? { part } : {}) });
  const element = (id: unknown, pointer: string) => {
    if (typeof id !== 'string' || elements.has(id)) return;
    const field = fieldOf(pointer);
    const hint = didYouMean(id, ids);
    context.report('unknown_test_step', at(pointer), { field, id, process: process.key }, hint ? { hint } : {});
  };
  forEachAt(value, ['steps', '*'], '', (step, pointer) => {
    if (!isRecord(step)) return;
    forEachAt(step, ['complete', 'step'], pointer, element);
    forEachAt(step, ['approve', 'step'], pointer, element);
    forEachAt(step, ['emit', 'task'], pointer, (task, where) => {
      const emit = step.emit as Record<string, unknown>;
      if (emit.observation === undefined) context.report('emit_task_without_observation', at(where, 'key'), undefined, { hint: 'emit an observation, or leave task out' });
      else element(task, where);
    });
    forEachAt(step, ['expect', 'rules', '*', 'step'], pointer, element);
    forEachAt(step, ['expect', 'tasks', '*', 'step'], pointer, element);
    forEachAt(step, ['expect', 'sla'], pointer, (sla, where) => {
      if (!isRecord(sla)) return;
      for (const id of Object.keys(sla)) {
        const place = at(childPointer(where, id), 'key');
        if (id === 'process') {
          if (process.spec.due === undefined) context.report('sla_without_due', place, { id, process: process.key }, { hint: 'set spec.due of the process, or leave process out of expect.sla' });
          continue;
        }
        const node = elements.get(id);
        if (node === undefined) {
          const hint = didYouMean(id, ids);
          context.report('unknown_sla_target', place, { id, process: process.key }, hint ? { hint } : {});
        } else if (!hasDue(node)) {
          context.report('sla_without_due', place, { id, process: process.key }, { hint: `give step ${id} a due, or leave it out of expect.sla` });
        }
      }
    });
  });
}

function hasDue(node: Record<string, unknown>): boolean {
  return node.due !== undefined || STEP_KINDS_WITH_DUE.some((verb) => isRecord(node[verb]) && node[verb].due !== undefined);
}

/** `/steps/5/expect/rules/0/step` → `expect.rules[0].step`: the place inside one test step, as messages name it. */
function fieldOf(pointer: string): string {
  return dottedPath(`/${pointer.split('/').slice(3).join('/')}`);
}
