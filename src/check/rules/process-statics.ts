import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { dottedPath } from '../../json/pointer.js';
import { processModel, STEP_KINDS_WITH_DUE, type ProcessElement, type ProcessModel } from '../../process/index.js';
import { defineObjectRule } from '../rule.js';
import { eachMapping } from '../values.js';
import { isRecord } from '../../json/guards.js';

/**
 * Process statics (compat-core-validators.md §2.5, §2.8, §2.13): element ids are unique, a catch does not bind
 * its error to a name of the profile, compensation names steps that can be compensated, migrations go forward
 * to elements that exist, the process has an owner. References out of the process (task types, skills, agents)
 * belong to references/closure.
 */
export const processElementRules = defineObjectRule({
  id: 'process/elements',
  description: 'Element ids of a process are unique; catch names, compensate targets, decide tables and migrations name what exists.',
  codes: {
    duplicate_element_id: {
      severity: 'error',
      core: true,
      summary: 'Two elements of one process (stages, steps, timers, milestones, branches, decision tables) share an id.',
      message: (d: { id: string; kind: string }) => `element id '${d.id}' is already used by a ${d.kind}`,
    },
    unknown_decision_table: {
      severity: 'error',
      core: true,
      summary: 'decide.table names no decision table of spec.decisions.',
      message: (d: { table: string }) => `the process has no decision table '${d.table}'`,
    },
    invalid_error_binding: {
      severity: 'error',
      core: true,
      summary: 'A catch binds its error (as) to a variable of the profile: data, event, step, task, stage, instance, milestone, or compensated inside onCompensate.',
      message: (d: { name: string }) => `'${d.name}' is a variable of the profile; name the error otherwise`,
    },
    unknown_compensation_target: {
      severity: 'error',
      core: true,
      summary: 'compensate names something that is not a step with onCompensate.',
      message: (d: { id: string }) => `'${d.id}' is not a step with onCompensate`,
    },
    nothing_to_compensate: {
      severity: 'warning',
      core: true,
      summary: 'compensate: all, but no step of the process declares onCompensate.',
      message: () => 'compensate: all, but no step declares onCompensate',
    },
    invalid_migration: {
      severity: 'error',
      core: true,
      summary: 'A migration goes from an older version to a newer one, at most the current spec.version.',
      message: (d: { version: string }) => `a migration goes from an older version to a newer one, at most ${d.version}`,
    },
    unknown_element: {
      severity: 'error',
      core: true,
      summary: 'The map of the migration to the current version maps an element to an id the process does not have.',
      message: (d: { version: string; id: string }) => `version ${d.version} has no element '${d.id}'`,
    },
    process_owner_missing: {
      severity: 'warning',
      core: true,
      summary: 'A process has no owner: tasks about it (deviation from the procedure, instance errors) have no one to go to.',
      message: () => 'owner is not set — tasks about the process (deviation from the procedure, instance errors) have no one to be addressed to',
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const model = processModel(process.spec);
    const elements = model.elements;
    const ids = new Set(elements.map((element) => element.id));
    const tables = elements.filter((element) => element.table).map((element) => element.id);
    const place = (pointer: string) => ({ document: process.document, pointer });

    const first = new Map<string, ProcessElement>();
    for (const element of elements) {
      const earlier = first.get(element.id);
      if (!earlier) first.set(element.id, element);
      else context.report('duplicate_element_id', place(childPointer(element.pointer, 'id')), { id: element.id, kind: elementKind(model, earlier) }, {
        hint: `the first is ${dottedPath(earlier.pointer)}: give this element an id of its own`,
      });
    }

    const compensable = model.steps.filter((step) => Array.isArray(step.node.onCompensate)).map((step) => step.id);
    for (const step of model.steps) {
      if (step.kind === 'decide' && isRecord(step.body) && typeof step.body.table === 'string' && !tables.includes(step.body.table)) {
        const hint = didYouMean(step.body.table, tables);
        context.report('unknown_decision_table', place(`${step.pointer}/decide/table`), { table: step.body.table }, { hint: hint ?? 'declare the table in spec.decisions' });
      }
      if (step.kind === 'compensate') checkCompensate(step.body, `${step.pointer}/compensate`, compensable, (code, pointer, data, hint) =>
        context.report(code, place(pointer), data as never, hint === undefined ? {} : { hint }));
      if (step.kind === 'try' && isRecord(step.body)) {
        const inCompensation = step.pointer.includes('/onCompensate/');
        eachMapping(step.body.catch, `${step.pointer}/try/catch`, (clause, pointer) => {
          const name = clause.as;
          if (typeof name === 'string' && (PROFILE_VARIABLES.has(name) || (inCompensation && name === 'compensated'))) {
            context.report('invalid_error_binding', place(`${pointer}/as`), { name }, { hint: 'for example: as: error' });
          }
        });
      }
    }

    checkMigrations(process, ids, (code, pointer, data) => context.report(code, place(pointer), data as never));

    const owner = process.spec.owner;
    if (!Array.isArray(owner) || owner.length === 0) {
      context.report('process_owner_missing', { document: process.document, pointer: '/spec/owner' }, undefined, {
        hint: 'set spec.owner, e.g. owner: [{role: <role>}]',
      });
    }
  },
});

/** The variables of the profile a catch may not rebind (settings it may: that shadows the package settings). */
const PROFILE_VARIABLES: ReadonlySet<string> = new Set(['data', 'event', 'step', 'task', 'stage', 'instance', 'milestone']);

/** How the message of a duplicate id names the element that has it first. */
function elementKind(model: ProcessModel, element: ProcessElement): string {
  if (element.table) return 'decision table';
  if (model.stepAt(element.pointer) !== undefined) return 'step';
  const kind = /\/(stages|milestones|timers|branches)\/\d+$/.exec(element.pointer)?.[1];
  return kind === 'stages' ? 'stage' : kind === 'milestones' ? 'milestone' : kind === 'timers' ? 'timer' : kind === 'branches' ? 'fork branch' : 'element';
}

type Report = (code: 'unknown_compensation_target' | 'nothing_to_compensate', pointer: string, data: unknown, hint?: string) => void;

/** `compensate: all` needs a step with onCompensate; `compensate: [ids]` names only such steps. */
function checkCompensate(body: unknown, pointer: string, compensable: readonly string[], report: Report): void {
  if (body === 'all') {
    if (compensable.length === 0) report('nothing_to_compensate', pointer, undefined, 'declare onCompensate on the steps whose effects can be undone');
    return;
  }
  if (!Array.isArray(body)) return;
  body.forEach((target, index) => {
    if (typeof target !== 'string' || compensable.includes(target)) return;
    report('unknown_compensation_target', `${pointer}/${index}`, { id: target }, didYouMean(target, compensable) ?? 'name a step that declares onCompensate');
  });
}

/**
 * Migrations go forward, to at most the current version; the map of the migration into the current version maps
 * to elements of this definition.
 */
function checkMigrations(
  process: PackageObject,
  ids: ReadonlySet<string>,
  report: (code: 'invalid_migration' | 'unknown_element', pointer: string, data: unknown) => void,
): void {
  const version = process.spec.version;
  eachMapping(process.spec.migrations, '/spec/migrations', (migration, pointer) => {
    const { from, to } = migration;
    if (typeof from === 'number' && typeof to === 'number' && typeof version === 'number' && (from >= to || to > version)) {
      report('invalid_migration', pointer, { version: String(version) });
      return;
    }
    if (to !== version || !isRecord(migration.map)) return;
    for (const [source, target] of Object.entries(migration.map)) {
      if (typeof target !== 'string' || ids.has(target)) continue;
      report('unknown_element', childPointer(childPointer(pointer, 'map'), source), { version: String(version), id: target });
    }
  });
}

/** A deadline of a process or of a step, and how a message names it. */
interface Deadline {
  due: Record<string, unknown>;
  pointer: string;
  where: string;
}

/**
 * Calendars of a process (compat-core-validators.md §2.9): a calendar that no visible package declares must
 * already exist in the tenant; a deadline counted in workdays or workhours (in its amount or its warnBefore)
 * needs a calendar — its own, else the process's — and workhours need one with working hours.
 */
export const processCalendars = defineObjectRule({
  id: 'process/calendars',
  description: 'Calendars a process names are declared, and deadlines in working units have a calendar that can count them.',
  codes: {
    unknown_calendar: {
      severity: 'warning',
      summary: 'A calendar is declared neither in the package nor in its requires: it must already exist in the tenant (the core refuses it otherwise).',
      message: (d: { field: string; calendar: string }) =>
        `${d.field}: calendar '${d.calendar}' is not declared in the package and its requires — it must already exist in the tenant`,
    },
    sla_calendar_missing: {
      severity: 'error',
      core: true,
      summary: 'A deadline counts workdays or workhours, but neither it nor the process names a calendar.',
      message: (d: { unit: string }) => `${d.unit} are counted by a calendar, and the process has none`,
    },
    sla_calendar_without_hours: {
      severity: 'error',
      core: true,
      summary: 'A deadline counts workhours by a calendar that has no workingHours.',
      message: (d: { calendar: string }) => `workhours are counted by the working hours of calendar '${d.calendar}', and it has none`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const place = (pointer: string) => ({ document: process.document, pointer });
    const declared = (calendar: string, pointer: string, field: string): PackageObject | undefined => {
      if (calendar.includes('$')) return undefined;
      const found = context.lookup(process.package, 'Calendar', calendar);
      if (!found) {
        const hint = context.suggest(process.package, 'Calendar', calendar);
        context.report('unknown_calendar', place(pointer), { field, calendar }, hint ? { hint } : {});
      }
      return found;
    };
    const processCalendar = typeof process.spec.calendar === 'string' ? process.spec.calendar : undefined;
    const processCalendarObject = processCalendar === undefined ? undefined : declared(processCalendar, '/spec/calendar', 'spec.calendar');

    for (const deadline of deadlinesOf(process)) {
      const own = typeof deadline.due.calendar === 'string' ? deadline.due.calendar : undefined;
      const calendarObject = own === undefined ? processCalendarObject : declared(own, childPointer(deadline.pointer, 'calendar'), `${deadline.where}.calendar`);
      const calendar = own ?? processCalendar;
      const units = workingUnits(deadline.due, deadline.pointer);
      if (units.length === 0) continue;
      if (calendar === undefined) {
        context.report('sla_calendar_missing', place(units[0]!.pointer), { unit: units[0]!.unit }, {
          hint: 'add calendar: <key of a Calendar> to the due, or spec.calendar to the process',
        });
        continue;
      }
      const hours = units.find((unit) => unit.unit === 'workhours');
      if (hours !== undefined && calendarObject && !isRecord(calendarObject.spec.workingHours)) {
        context.report('sla_calendar_without_hours', place(hours.pointer), { calendar }, {
          hint: `add workingHours to calendar ${calendar}, or count the deadline in workdays or a duration`,
        });
      }
    }
  },
});

/** The deadline of the whole process and those of its steps. */
function deadlinesOf(process: PackageObject): Deadline[] {
  const deadlines: Deadline[] = [];
  if (isRecord(process.spec.due)) deadlines.push({ due: process.spec.due, pointer: '/spec/due', where: 'spec.due' });
  for (const step of processModel(process.spec).steps) {
    if (!(STEP_KINDS_WITH_DUE as readonly string[]).includes(step.kind)) continue;
    const due = isRecord(step.body) ? step.body.due : undefined;
    if (isRecord(due)) deadlines.push({ due, pointer: `${step.pointer}/${step.kind}/due`, where: `step ${step.id}: ${step.kind}.due` });
  }
  return deadlines;
}

/** The working units a deadline counts, in its amount and then its warnBefore, with where each is written. */
function workingUnits(due: Record<string, unknown>, pointer: string): { unit: 'workdays' | 'workhours'; pointer: string }[] {
  const units: { unit: 'workdays' | 'workhours'; pointer: string }[] = [];
  for (const [part, at] of [[due, pointer], [due.warnBefore, `${pointer}/warnBefore`]] as const) {
    if (!isRecord(part)) continue;
    for (const unit of ['workdays', 'workhours'] as const) if (part[unit] !== undefined) units.push({ unit, pointer: `${at}/${unit}` });
  }
  return units;
}
