import { isRecord } from '../../json/guards.js';
import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { dataSchemaProblem, EVENT_TYPES, knownEventType, processModel, type ProcessModel, type Trigger } from '../../process/index.js';
import { jsonSchemaProblem } from '../../schema/json-schema.js';
import { defineObjectRule } from '../rule.js';
import { eachMapping } from '../values.js';

/**
 * The definition of a process as the core takes it before any expression (compat-core-validators.md §2.4, §2.8,
 * §2.12): it acts as an agent (`identity`), its data and its forms are JSON Schemas, its triggers name events of
 * the core's catalog, and the regulations it is governed by are named as the knowledge base names documents.
 */
export const processDefinition = defineObjectRule({
  id: 'process/definition',
  description: 'A process has an identity, its data and forms are JSON Schemas, and its triggers name events of the core.',
  codes: {
    process_identity_required: {
      severity: 'error',
      core: true,
      summary: 'A process has no spec.identity: it acts as an agent of the registry.',
      message: () => 'a process acts as an agent of the registry: spec.identity is missing',
    },
    invalid_data_schema: {
      severity: 'error',
      core: true,
      summary: 'spec.data is not a JSON Schema (Draft 2020-12), or not an object schema: the data of an instance is an object.',
      message: (d: { problem: string }) => d.problem,
    },
    invalid_form_schema: {
      severity: 'error',
      core: true,
      summary: "A human step's form.schema is not a JSON Schema (Draft 2020-12).",
      message: (d: { problem: string }) => `form.schema is not a JSON Schema: ${d.problem}`,
    },
    unknown_event_type: {
      severity: 'error',
      core: true,
      summary: "A trigger's on.event is not a type of the core's event catalog (facts of connectors are on.observation).",
      message: (d: { type: string }) => `'${d.type}' is not in the event catalog`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const place = (pointer: string) => ({ document: process.document, pointer });
    if (!isRecord(process.spec.identity)) {
      context.report('process_identity_required', place('/spec/identity'), undefined, { hint: 'add identity: {agent: <key of an Agent>}' });
    }
    const data = context.facts.dataSchema(process);
    const dataProblem = data === undefined ? undefined : dataSchemaProblem(data);
    if (dataProblem !== undefined) context.report('invalid_data_schema', place(dataProblem.pointer), { problem: dataProblem.message }, hintOf(dataProblem));
    const model = processModel(process.spec);
    for (const step of model.steps) {
      const form = step.kind === 'human' && isRecord(step.body) && isRecord(step.body.form) ? step.body.form.schema : undefined;
      const problem = form === undefined ? undefined : jsonSchemaProblem(form);
      if (problem !== undefined) {
        context.report('invalid_form_schema', place(`${step.pointer}/human/form/schema${problem.pointer}`), { problem: problem.message }, hintOf(problem));
      }
    }
    for (const { trigger, pointer } of eventTriggers(model)) {
      if (trigger.event === undefined || trigger.event.includes('$') || knownEventType(trigger.event) !== false) continue;
      context.report('unknown_event_type', place(childPointer(pointer, 'event')), { type: trigger.event }, { hint: eventTypeHint(trigger.event) });
    }
  },
});

function hintOf(problem: { allowed?: readonly string[] }): { hint?: string } {
  return problem.allowed === undefined ? {} : { hint: `allowed: ${problem.allowed.join(', ')}` };
}

/** A close misspelling of a type of the same family (`task.complted`), else where facts of connectors go. */
function eventTypeHint(type: string): string {
  const family = `${type.split('.')[0]}.`;
  return didYouMean(type, EVENT_TYPES.filter((known) => known.startsWith(family))) ?? `observation: ${type} for facts of connectors`;
}

/** Every trigger that may name an event type: start, correlations, event handlers and listen options. */
function eventTriggers(model: ProcessModel): { trigger: Trigger; pointer: string }[] {
  const found: { trigger: Trigger; pointer: string }[] = [];
  const add = (trigger: Trigger | undefined, pointer: string) => trigger !== undefined && found.push({ trigger, pointer: `${pointer}/on` });
  if (model.start !== undefined) add(model.start.on, model.start.pointer);
  for (const handler of [...model.correlate, ...model.onEvent]) add(handler.on, handler.pointer);
  for (const step of model.steps) {
    if (step.kind !== 'listen' || !isRecord(step.body)) continue;
    eachMapping(step.body.any, `${step.pointer}/listen/any`, (option, pointer) => {
      if (isRecord(option.on)) add(option.on as Trigger, pointer);
    });
  }
  return found;
}

/** Every `governedBy` list of a process: of the process, its stages, milestones, steps, decision tables and their rules. */
function governedByLists(process: PackageObject): { list: unknown[]; pointer: string }[] {
  const lists: { list: unknown[]; pointer: string }[] = [];
  const add = (node: Record<string, unknown>, pointer: string) => {
    if (Array.isArray(node.governedBy)) lists.push({ list: node.governedBy, pointer: `${pointer}/governedBy` });
  };
  const model = processModel(process.spec);
  add(process.spec, '/spec');
  for (const stage of model.stages) {
    add(stage.node, stage.pointer);
    eachMapping(stage.node.milestones, `${stage.pointer}/milestones`, add);
  }
  for (const step of model.steps) add(step.node, step.pointer);
  for (const table of model.decisions) {
    add(table.node, table.pointer);
    eachMapping(table.node.rules, `${table.pointer}/rules`, add);
  }
  return lists;
}

/**
 * `governedBy` names regulations by the natural key of a document of the knowledge base (compat-core-validators.md
 * §2.12). Whether the document exists is the core's to tell (its memory); its form and repetitions are judged here.
 */
export const processGovernedBy = defineObjectRule({
  id: 'process/governed-by',
  description: 'governedBy names each regulation once, by the natural key of a knowledge document.',
  codes: {
    invalid_governed_by: {
      severity: 'error',
      core: true,
      summary: 'A governedBy document is blank or has spaces around it: it is the natural key of a knowledge document.',
      message: () => 'the document is a natural key of the knowledge base, without outer spaces',
    },
    duplicate_governed_by: {
      severity: 'warning',
      core: true,
      summary: 'One governedBy list names the same document and section twice.',
      message: (d: { document: string; section: string | null }) =>
        `${d.section === null ? `document '${d.document}'` : `section '${d.section}' of '${d.document}'`} is already named in this governedBy`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const place = (pointer: string) => ({ document: process.document, pointer });
    for (const { list, pointer } of governedByLists(process)) {
      const seen = new Set<string>();
      eachMapping(list, pointer, (entry, at) => {
        const { document, section } = entry;
        if (typeof document !== 'string') return;
        if (document.trim() === '' || document.trim() !== document) {
          context.report('invalid_governed_by', place(childPointer(at, 'document')), undefined, {
            hint: document.trim() === '' ? 'name the document by its key in the knowledge base' : `write '${document.trim()}'`,
          });
          return;
        }
        const sectionName = typeof section === 'string' ? section : null;
        const key = JSON.stringify([document, sectionName]);
        if (seen.has(key)) context.report('duplicate_governed_by', place(at), { document, section: sectionName }, { hint: 'remove the repetition' });
        seen.add(key);
      });
    }
  },
});
