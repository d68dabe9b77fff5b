import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { dottedPath, processModel, STEP_KINDS_WITH_DUE, type ProcessElement } from '../../process/index.js';
import { defineRule } from '../rule.js';
import { eachMapping } from '../values.js';
import { isRecord } from '../../json/guards.js';

/**
 * Process statics (compat-package-sdk-check.md §2.6): element ids are unique, and what a step names inside
 * the process — a decision table, elements to compensate, migration targets — exists. References out of the
 * process (task types, skills, agents) belong to references/closure.
 */
export const processElementRules = defineRule({
  id: 'process/elements',
  description: 'Element ids of a process are unique, and decide/compensate/migrations name elements that exist.',
  codes: {
    duplicate_element_id: {
      severity: 'error',
      summary: 'Two elements of one process (stages, steps, timers, milestones, branches, decision tables) share an id.',
      message: (d: { id: string; first: string }) => `id '${d.id}' is already taken (${d.first}) — an element id is unique in a process`,
    },
    unknown_decision_table: {
      severity: 'error',
      summary: 'decide.table names no decision table of spec.decisions.',
      message: (d: { step: string; table: string }) => `step ${d.step}: decide.table '${d.table}' — no such table in spec.decisions`,
    },
    unknown_element: {
      severity: 'error',
      summary: 'compensate names an element that the process does not have.',
      message: (d: { step: string; id: string }) => `step ${d.step}: compensate '${d.id}' — no such element in the process`,
    },
    unknown_migration_target: {
      severity: 'error',
      summary: 'The map of the migration to the current version maps an element to an id the process does not have.',
      message: (d: { from: string; to: string; target: string }) => `migrations ${d.from}→${d.to}: '${d.target}' — no such element in the process`,
    },
    process_owner_missing: {
      severity: 'warning',
      summary: 'A process has no owner: tasks about it (deviation from the procedure, instance errors) have no one to go to.',
      message: () => 'owner is not set — tasks about the process (deviation from the procedure, instance errors) have no one to be addressed to',
    },
  },
  check(context) {
    for (const process of context.objects('Process')) {
      const elements = processModel(process.spec).elements;
      const ids = new Set(elements.map((element) => element.id));
      const tables = elements.filter((element) => element.table).map((element) => element.id);
      const place = (pointer: string) => ({ document: process.document, pointer });

      const first = new Map<string, ProcessElement>();
      for (const element of elements) {
        const earlier = first.get(element.id);
        if (!earlier) first.set(element.id, element);
        else context.report('duplicate_element_id', place(childPointer(element.pointer, 'id')), { id: element.id, first: dottedPath(earlier.pointer) }, {
          hint: 'give this element an id of its own',
        });
      }

      const model = processModel(process.spec);
      for (const element of elements) {
        const step = model.stepAt(element.pointer);
        if (step?.kind === 'decide' && isRecord(step.body) && typeof step.body.table === 'string' && !tables.includes(step.body.table)) {
          const hint = didYouMean(step.body.table, tables);
          context.report('unknown_decision_table', place(`${step.pointer}/decide/table`), {
            step: element.id,
            table: step.body.table,
          }, hint ? { hint } : { hint: 'declare the table in spec.decisions' });
        }
        if (step?.kind === 'compensate' && Array.isArray(step.body)) {
          step.body.forEach((target, index) => {
            if (typeof target !== 'string' || ids.has(target)) return;
            const hint = didYouMean(target, ids);
            context.report('unknown_element', place(`${step.pointer}/compensate/${index}`), { step: element.id, id: target }, hint ? { hint } : {});
          });
        }
      }

      checkMigrations(process, ids, (pointer, data, hint) => context.report('unknown_migration_target', place(pointer), data, hint ? { hint } : {}));

      const owner = process.spec.owner;
      if (!Array.isArray(owner) || owner.length === 0) {
        context.report('process_owner_missing', { document: process.document, pointer: '/spec', part: 'key' }, undefined, {
          hint: 'set spec.owner, e.g. owner: [{role: <role>}]',
        });
      }
    }
  },
});

/** Only the migration into the current version maps to elements of this definition. */
function checkMigrations(
  process: PackageObject,
  ids: ReadonlySet<string>,
  report: (pointer: string, data: { from: string; to: string; target: string }, hint: string | undefined) => void,
): void {
  const version = process.spec.version;
  eachMapping(process.spec.migrations, '/spec/migrations', (migration, pointer) => {
    if (migration.to !== version || !isRecord(migration.map)) return;
    for (const [source, target] of Object.entries(migration.map)) {
      if (typeof target !== 'string' || ids.has(target)) continue;
      report(childPointer(childPointer(pointer, 'map'), source), { from: String(migration.from), to: String(migration.to), target }, didYouMean(target, ids));
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
 * Calendars of a process (compat-package-sdk-check.md §2.6): a calendar that no visible package declares must
 * already exist in the tenant; a deadline counted in workdays or workhours needs a calendar, and workhours need
 * one with working hours.
 */
export const processCalendars = defineRule({
  id: 'process/calendars',
  description: 'Calendars a process names are declared, and deadlines in working units have a calendar that can count them.',
  codes: {
    unknown_calendar: {
      severity: 'warning',
      summary: 'A calendar is declared neither in the package nor in its requires: it must already exist in the tenant.',
      message: (d: { field: string; calendar: string }) =>
        `${d.field}: calendar '${d.calendar}' is not declared in the package and its requires — it must already exist in the tenant`,
    },
    due_calendar_missing: {
      severity: 'error',
      summary: 'A deadline counts workdays or workhours, but neither it nor the process names a calendar.',
      message: (d: { where: string }) =>
        `${d.where}: workdays and/or workhours are counted by a calendar, but there is no calendar — set the process spec.calendar or the due calendar`,
    },
    due_calendar_no_hours: {
      severity: 'error',
      summary: 'A deadline counts workhours by a calendar that has no workingHours.',
      message: (d: { where: string; calendar: string }) =>
        `${d.where}: workhours are counted by the calendar working hours, but calendar '${d.calendar}' has no workingHours`,
    },
  },
  check(context) {
    for (const process of context.objects('Process')) {
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
        const units = workingUnits(deadline.due);
        if (units.size === 0) continue;
        if (calendar === undefined) {
          context.report('due_calendar_missing', place(deadline.pointer), { where: deadline.where }, {
            hint: 'add calendar: <key of a Calendar> to the due, or spec.calendar to the process',
          });
        } else if (units.has('workhours') && calendarObject && !isRecord(calendarObject.spec.workingHours)) {
          context.report('due_calendar_no_hours', place(deadline.pointer), { where: deadline.where, calendar }, {
            hint: `add workingHours to calendar ${calendar}, or count the deadline in workdays or a duration`,
          });
        }
      }
    }
  },
});

/** The deadline of the whole process and those of its steps. */
function deadlinesOf(process: PackageObject): Deadline[] {
  const deadlines: Deadline[] = [];
  if (isRecord(process.spec.due)) deadlines.push({ due: process.spec.due, pointer: '/spec/due', where: 'spec.due' });
  const model = processModel(process.spec);
  for (const element of model.elements) {
    const step = model.stepAt(element.pointer);
    if (step === undefined || !(STEP_KINDS_WITH_DUE as readonly string[]).includes(step.kind)) continue;
    const due = isRecord(step.body) ? step.body.due : undefined;
    if (isRecord(due)) deadlines.push({ due, pointer: `${step.pointer}/${step.kind}/due`, where: `step ${element.id}: ${step.kind}.due` });
  }
  return deadlines;
}

/** Which working units a deadline counts, in its amount or its warning threshold. */
function workingUnits(due: Record<string, unknown>): Set<'workdays' | 'workhours'> {
  const units = new Set<'workdays' | 'workhours'>();
  for (const part of [due, due.warnBefore]) {
    if (!isRecord(part)) continue;
    if (part.workdays !== undefined) units.add('workdays');
    if (part.workhours !== undefined) units.add('workhours');
  }
  return units;
}
