/**
 * The human form of a plan (STYLE.md §3, compat-package-sdk-install §4.6): one line per change with its
 * mark, the fields that change, the console edits kept or overwritten, and totals computed from the same
 * list of changes the body shows — so body and summary cannot disagree.
 */
import type { ApplyResult } from '../plan/apply.js';
import { differences, shortValue } from '../plan/difference.js';
import type { Change, CorePlanChange, CoreSection, Operation, PlanDocument } from '../plan/document.js';
import type { Paint } from './paint.js';

type Mark = '+' | '~' | '-';

/** One table maps an operation (installer or core action) to its mark; null = no change. */
const MARK: Record<Operation | 'update' | 'rename' | 'restore', Mark | null> = {
  create: '+', register: '+', enable: '+', restore: '+',
  version: '~', patch: '~', update: '~', rename: '~',
  deprecate: '-', disable: '-', retire: '-',
  unchanged: null,
};

/** The mark of an installer operation or a core action; null when it changes nothing. */
export function markOf(action: string): Mark | null {
  return action in MARK ? MARK[action as keyof typeof MARK] : '~';
}

const MEANING: Record<Mark, string> = { '+': 'add', '~': 'change', '-': 'retire' };

interface Line {
  mark: Mark;
  text: string;
  /** The fields an update changes, before → after, shown under it. */
  fields?: string[];
  /** Shown, not counted: what happens to live instances is a consequence of a change, not one. */
  info?: true;
}

/** The body lines of every section, in plan order. */
export function planLines(document: PlanDocument): { title: string; lines: Line[] }[] {
  const out: { title: string; lines: Line[] }[] = [];
  for (const section of document.sections) {
    switch (section.kind) {
      case 'catalog':
      case 'notification-rules':
        out.push({ title: section.kind, lines: section.changes.map(changeLine) });
        break;
      case 'core':
        out.push({ title: `core ${section.package}`, lines: coreLines(section) });
        break;
      case 'knowledge':
        out.push({ title: 'knowledge', lines: [
          ...(section.register ?? []).map(changeLine),
          ...(section.enable ?? []).map((item) => ({ mark: '+' as const,
            text: `workspace ${item.workspace}: packs ${item.packs.join(', ')}${item.strict ? ' (strict)' : ''} (now: ${item.current.join(', ') || '—'})` })),
        ] });
        break;
      case 'retire':
        out.push({ title: 'retire', lines: section.items.map(changeLine) });
        break;
    }
  }
  return out;
}

export function changeLine(change: Change): Line {
  const version = change.version !== undefined && change.operation !== 'deprecate' ? `@${change.version}` : '';
  const owner = change.package ? ` (${change.package})` : '';
  const fields = change.fields?.length ? `: ${change.fields.join(', ')}` : '';
  return { mark: MARK[change.operation] ?? '~', text: `${change.kind}/${change.key}${version}${owner}${fields} — ${change.detail}` };
}

function coreLines(section: CoreSection): Line[] {
  const lines: Line[] = [];
  for (const change of section.plan.changes ?? []) {
    const mark = change.action in MARK ? MARK[change.action as keyof typeof MARK] : '~';
    const deprecates = change.deprecates?.length ? ` (new version, deprecates ${change.deprecates.map((v) => `v${v}`).join(', ')})` : '';
    if (mark === null && !deprecates) continue;
    // A new object's fields are the whole of its form: naming them tells nothing.
    const fields = change.action === 'create' ? [] : packageFields(change);
    const nested = change.action === 'create' ? [] : fieldDifferences(change);
    lines.push({ mark: mark ?? '~', text: `${change.kind}/${change.key}: ${change.action}${fields.length ? ` ${fields.join(', ')}` : ''}${deprecates}`,
      ...(nested.length > 0 ? { fields: nested } : {}) });
  }
  for (const process of section.plan.processes ?? []) {
    const open = (process.instances ?? []).reduce((sum, instance) => sum + instance.open, 0);
    if (open > 0) lines.push({ mark: '~', info: true, text: `Process/${process.key}: ${open} open instances (${(process.instances ?? []).map((i) => `v${i.version} ${i.fate}`).join(', ')})` });
  }
  return lines;
}

/**
 * Each changed leaf of the package's fields as Terraform shows an update: `~ path: before → after`, `+ path:
 * value` for a new one, `- path: value` for one removed; long values cut in the middle.
 */
function fieldDifferences(change: CorePlanChange): string[] {
  return (change.fields ?? []).filter((field) => field.owner !== 'console').flatMap((field) =>
    differences(field.before, field.after, field.path).map(({ path, before, after }) =>
      before === undefined ? `+ ${path}: ${shortValue(after)}`
        : after === undefined ? `- ${path}: ${shortValue(before)}`
          : `~ ${path}: ${shortValue(before)} → ${shortValue(after)}`));
}

function packageFields(change: CorePlanChange): string[] {
  return (change.fields ?? []).filter((field) => field.owner !== 'console').map((field) => field.path);
}

/** Changes counted as the reference counts them (§4.6). */
export function countChanges(document: PlanDocument): Record<Mark, number> {
  const n: Record<Mark, number> = { '+': 0, '~': 0, '-': 0 };
  for (const { lines } of planLines(document)) for (const line of lines) if (!line.info) n[line.mark] += 1;
  return n;
}

export function totalChanges(document: PlanDocument): number {
  const n = countChanges(document);
  return n['+'] + n['~'] + n['-'];
}

/** `Plan: …` and `total changes: N`, or `no changes`. */
export function planSummary(document: PlanDocument): string[] {
  const n = countChanges(document);
  const total = n['+'] + n['~'] + n['-'];
  if (total === 0) return ['no changes'];
  return [`Plan: ${n['+']} to add, ${n['~']} to change, ${n['-']} to retire.`, `total changes: ${total}`];
}

/** Console-edited fields of core objects, and whether apply overwrites them. */
export function consoleEdits(document: PlanDocument): { applies: boolean; label: string }[] {
  const edits: { applies: boolean; label: string }[] = [];
  for (const section of document.sections) {
    if (section.kind !== 'core') continue;
    for (const change of section.plan.changes ?? []) {
      const fields = (change.fields ?? []).filter((field) => field.owner === 'console');
      if (fields.length === 0) continue;
      const applies = fields.some((field) => field.applies ?? document.overwriteConsole);
      edits.push({ applies, label: `${change.kind}/${change.key} (${section.package}): ${fields.map((field) => field.path).join(', ')}` });
    }
  }
  return edits;
}

export function renderPlan(document: PlanDocument, paint: Paint, warnings: readonly string[] = []): string {
  const out: string[] = [];
  for (const warning of warnings) out.push(paint.warning(`warning: ${warning}`));
  out.push(`${paint.bold('Plan')} of installation ${document.installation ?? '(no key)'} for ${document.server} (control-plane ${document.engines['control-plane'] ?? '?'})`);
  const sections = planLines(document).filter((section) => section.lines.length > 0);
  const marks = new Set(sections.flatMap((section) => section.lines.map((line) => line.mark)));
  if (marks.size > 0) out.push(`  ${[...marks].sort(byMark).map((mark) => `${colour(mark, paint)} ${MEANING[mark]}`).join('   ')}`);
  for (const section of sections) {
    out.push('', `${section.title}:`);
    for (const line of section.lines) {
      out.push(`  ${colour(line.mark, paint)} ${line.text}`);
      for (const field of line.fields ?? []) out.push(`      ${field}`);
    }
  }
  const edits = consoleEdits(document);
  if (edits.length > 0) {
    out.push('');
    if (document.overwriteConsole) {
      out.push('console edits: overwritten (overwriteConsole)', '  will be overwritten:', ...edits.map((edit) => `  ! ${edit.label}`));
    } else {
      out.push('console edits: kept (to overwrite — plan --overwrite-console)', '  stay as in the console:', ...edits.map((edit) => `  = ${edit.label}`));
    }
  }
  out.push('', ...planSummary(document));
  return out.join('\n');
}

/** The question of an interactive apply. */
export function confirmQuestion(document: PlanDocument): string {
  return document.overwriteConsole
    ? `Apply plan ${document.planHash} overwriting console edits (overwriteConsole)?`
    : `Apply plan ${document.planHash}?`;
}

/** What apply wrote (each line, unless progress already showed them), then the totals. */
export function renderApplied(result: ApplyResult, withLines = true): string {
  const changed = result.applied.length;
  const lines = !withLines ? [] : result.applied.map((item) => `  ${item.kind}/${item.key}: ${item.operation}${item.version !== undefined ? ` v${item.version}` : ''}`);
  const written = changed === 0 ? 'nothing to write' : `${changed} ${changed === 1 ? 'change' : 'changes'} written`;
  return [...lines, `applied plan ${result.planHash} (package-sdk.plan/v1): ${written}`].join('\n');
}

function colour(mark: Mark, paint: Paint): string {
  return mark === '+' ? paint.added(mark) : mark === '~' ? paint.changed(mark) : paint.error(mark);
}

function byMark(a: Mark, b: Mark): number {
  return '+~-'.indexOf(a) - '+~-'.indexOf(b);
}
