/**
 * The words of a diagram: a CEL guard shortened so that it fits on an edge (the full text goes to the hover),
 * a deadline with its calendar, a duration or point in time. Shortening keeps the meaning a reader needs —
 * which field, which stage — and drops the noise of the profile (`data.`, `?`, `orValue`).
 */
import { isRecord } from '../json/guards.js';

/** Longest edge label, in characters, before it is cut with an ellipsis. */
export const LABEL_WIDTH = 40;

/** `source` as an edge shows it: the profile's prefixes dropped, `&&`/`||` as words, cut to `width` at a word. */
export function shortCel(source: string, width = LABEL_WIDTH): string {
  const text = source
    .replace(/\s+/g, ' ')
    .replace(/\.orValue\((?:[^()]|\([^()]*\))*\)/g, '')
    .replace(/\bdata\.\??/g, '')
    .replace(/\?\./g, '.')
    .replace(/\bstage\.([A-Za-z][\w-]*)\.(completed|active)\b/g, '$1 $2')
    .replace(/\bmilestone\.([A-Za-z][\w-]*)\b/g, 'milestone $1')
    .replace(/\s*&&\s*/g, ' and ')
    .replace(/\s*\|\|\s*/g, ' or ')
    .trim();
  return cut(text, width);
}

/** `text` cut at the last space before `width`, with an ellipsis. */
export function cut(text: string, width = LABEL_WIDTH): string {
  if (text.length <= width) return text;
  const head = text.slice(0, width - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > width / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** A duration or `{at}` (a timer's `at`, `wait`, a timeout): `PT4H`, `at <expr>`. */
export function pointText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (isRecord(value) && typeof value.at === 'string') return `at ${shortCel(value.at, 28)}`;
  return undefined;
}

/**
 * A deadline as `due …`: a duration, `{at}`, or working units with the calendar that counts them (the
 * deadline's own, else the process's) and the warning before it.
 */
export function dueText(due: unknown, processCalendar: string | undefined): string | undefined {
  const plain = pointText(due);
  if (plain !== undefined) return `due ${plain}`;
  if (!isRecord(due)) return undefined;
  const calendar = typeof due.calendar === 'string' ? due.calendar : processCalendar;
  let amount: string | undefined;
  if (due.duration !== undefined) amount = pointText(due.duration);
  else if (due.workdays !== undefined) amount = `${amountText(due.workdays)} workdays`;
  else if (due.workhours !== undefined) amount = `${amountText(due.workhours)} working hours`;
  if (amount === undefined) return undefined;
  const counted = due.duration === undefined && calendar !== undefined ? ` (${calendar})` : '';
  const warn = due.warnBefore === undefined ? '' : `, warn ${spanText(due.warnBefore)} before`;
  return `due ${amount}${counted}${warn}`;
}

function amountText(value: unknown): string {
  if (isRecord(value) && typeof value.expr === 'string') return `[${shortCel(value.expr, 24)}]`;
  return String(value);
}

function spanText(span: unknown): string {
  if (isRecord(span) && span.workdays !== undefined) return `${amountText(span.workdays)} workdays`;
  if (isRecord(span) && span.workhours !== undefined) return `${amountText(span.workhours)} working hours`;
  return pointText(span) ?? '?';
}

/** The names of a CEL map (`set`, `facts`) as a short list: `a, b, c, …`. */
export function namesText(map: unknown, shown = 3): string {
  if (!isRecord(map)) return '';
  const names = Object.keys(map);
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')}, …`;
}

/** An assign chain's candidates, as people read them: `role stores-manager`, `agent x`, `[expr]`. */
export function assigneesText(chain: unknown): string {
  if (!Array.isArray(chain)) return '';
  return chain
    .map((entry) => {
      if (!isRecord(entry)) return '?';
      if (typeof entry.role === 'string') return `role ${entry.role}`;
      if (typeof entry.agent === 'string') return `agent ${entry.agent}`;
      if (typeof entry.principal === 'string') return 'a principal';
      if (typeof entry.expr === 'string') return `[${shortCel(entry.expr, 24)}]`;
      return '?';
    })
    .join(' → ');
}

/** A trigger as `on <event|observation>` (its `where` goes to the hover). */
export function triggerText(on: unknown): string {
  if (!isRecord(on)) return 'on ?';
  if (typeof on.observation === 'string') return `on ${on.observation}`;
  if (typeof on.event === 'string') return `on ${on.event}`;
  return 'on ?';
}
