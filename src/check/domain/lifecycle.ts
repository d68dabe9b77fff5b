/**
 * Lifecycles (compat-core-validators.md §1.4, §8): the statuses of a work item — or of a project — their
 * categories, the transitions between them, and the statuses a claim, a release and a completion move to. Every
 * problem is `invalid_lifecycle_schema`, after the JSON guard.
 */
import { isRecord } from '../../json/guards.js';
import { guardProblems } from './json-guard.js';
import { at, isText, listed, Problems, type DomainProblem } from './problems.js';

const WORK_ITEM_CATEGORIES = ['backlog', 'active', 'blocked', 'terminal_success', 'terminal_cancelled'];
const PROJECT_CATEGORIES = ['planned', 'active', 'paused', 'terminal_success', 'terminal_cancelled'];
const TERMINAL: ReadonlySet<string> = new Set(['terminal_success', 'terminal_cancelled']);
const MAX_STATUSES = 100;
const MAX_KEY = 64;

export type LifecycleOf = 'work item' | 'project';

/** The statuses a lifecycle declares, with their categories (undefined for a category that is wrong). */
export type DeclaredStatuses = ReadonlyMap<string, string | undefined>;

/** The problems of a lifecycle at `pointer`, and the statuses it declares when they are all well formed. */
export function lifecycleProblems(value: unknown, pointer: string, of: LifecycleOf): { problems: DomainProblem[]; statuses?: DeclaredStatuses } {
  const guard = guardProblems(value, pointer, 'lifecycleSchema', 'invalid_lifecycle_schema');
  if (guard.length > 0 || !isRecord(value)) return { problems: guard };
  const problems = new Problems('invalid_lifecycle_schema');
  const statuses = declaredStatuses(value.statuses, at(pointer, 'statuses'), of, problems);
  if (statuses === undefined) return { problems: problems.list };
  const named = (field: string, problem = `${field} must name one of the declared statuses`) => {
    const key = value[field];
    if (typeof key === 'string' && statuses.has(key)) return key;
    problems.add(at(pointer, field), problem, { hint: `declared: ${[...statuses.keys()].join(', ')}` });
    return undefined;
  };
  named('initialStatus');
  transitions(value.transitions, at(pointer, 'transitions'), statuses, problems);
  if (of === 'work item') {
    for (const field of ['claimStatus', 'releaseStatus']) {
      if (value[field] === undefined || value[field] === null) continue;
      const key = named(field);
      if (key !== undefined && TERMINAL.has(statuses.get(key) ?? '')) problems.add(at(pointer, field), `${field} must not be a terminal status`);
    }
    completion(value, pointer, statuses, problems);
  }
  return { problems: problems.list, statuses };
}

/**
 * The statuses, each checked; undefined when the list itself is wrong or a status has no usable key (what
 * names a status is then not known, and checking the names would only repeat that mistake).
 */
function declaredStatuses(list: unknown, pointer: string, of: LifecycleOf, problems: Problems): Map<string, string | undefined> | undefined {
  if (!Array.isArray(list) || list.length === 0) {
    problems.add(pointer, 'statuses must be a non-empty array');
    return undefined;
  }
  if (list.length > MAX_STATUSES) {
    problems.add(pointer, `at most ${MAX_STATUSES} statuses are allowed`);
    return undefined;
  }
  const categories = of === 'work item' ? WORK_ITEM_CATEGORIES : PROJECT_CATEGORIES;
  const statuses = new Map<string, string | undefined>();
  let complete = true;
  list.forEach((status, index) => {
    const here = at(pointer, index);
    if (!isRecord(status)) {
      problems.add(here, 'a status must be an object {key, category, displayName?}');
      complete = false;
      return;
    }
    if (!isText(status.key, MAX_KEY)) {
      problems.add(at(here, 'key'), `a status key must be a non-empty string of at most ${MAX_KEY} characters`);
      complete = false;
    } else if (statuses.has(status.key)) {
      problems.add(at(here, 'key'), `duplicate status key '${status.key}'`);
    }
    const category = typeof status.category === 'string' && categories.includes(status.category) ? status.category : undefined;
    if (category === undefined) {
      const hint = of === 'work item' && PROJECT_CATEGORIES.includes(String(status.category)) ? `'${String(status.category)}' is a category of project lifecycles` : undefined;
      problems.add(at(here, 'category'), `category must be one of ${listed(categories)}`, hint ? { hint } : {});
    }
    if (status.displayName !== undefined && typeof status.displayName !== 'string') problems.add(at(here, 'displayName'), 'displayName must be a string');
    if (typeof status.key === 'string' && !statuses.has(status.key)) statuses.set(status.key, category);
  });
  return complete ? statuses : undefined;
}

function transitions(list: unknown, pointer: string, statuses: DeclaredStatuses, problems: Problems): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    problems.add(pointer, 'transitions must be an array');
    return;
  }
  const sources = new Set<string>();
  list.forEach((transition, index) => {
    const here = at(pointer, index);
    if (!isRecord(transition)) {
      problems.add(here, 'a transition must be an object {from, to}');
      return;
    }
    const from = transition.from;
    if (typeof from !== 'string' || !statuses.has(from)) problems.add(at(here, 'from'), "transition 'from' must name a declared status");
    else if (sources.has(from)) problems.add(at(here, 'from'), `duplicate transition source '${from}'`, { hint: 'list every target of a status in one transition' });
    else sources.add(from);
    const to = transition.to;
    if (!Array.isArray(to)) {
      problems.add(at(here, 'to'), "transition 'to' must be an array of declared statuses");
      return;
    }
    to.forEach((target, j) => {
      if (typeof target !== 'string' || !statuses.has(target)) problems.add(at(here, 'to', j), "transition 'to' must name declared statuses");
    });
  });
}

function completion(value: Record<string, unknown>, pointer: string, statuses: DeclaredStatuses, problems: Problems): void {
  const given = value.completionStatus;
  if (given !== undefined && given !== null) {
    const here = at(pointer, 'completionStatus');
    if (typeof given !== 'string' || !statuses.has(given)) problems.add(here, 'completionStatus must name one of the declared statuses');
    else if (statuses.get(given) !== undefined && statuses.get(given) !== 'terminal_success') problems.add(here, "completionStatus must have category 'terminal_success'");
    return;
  }
  if ([...statuses.values()].some((category) => category === undefined)) return; // a wrong category is reported already
  const successes = [...statuses].filter(([, category]) => category === 'terminal_success').map(([key]) => key);
  if (successes.length === 0) {
    problems.add(at(pointer, 'statuses'), "a work item lifecycle must declare a status with category 'terminal_success'");
  } else if (successes.length > 1) {
    problems.add(at(pointer, 'completionStatus'), "completionStatus must be declared when several statuses are 'terminal_success'", {
      hint: `one of ${successes.join(', ')}`,
    });
  }
}
