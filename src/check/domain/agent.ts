/**
 * Agents and roles (compat-core-validators.md §4, §10): the core checks them by the shape of its request
 * models (`AgentPublishRequest`, `RoleCreateRequest`). `check`'s format schema mirrors those shapes; what it
 * leaves out are bounds — lengths, counts, ranges — which are checked here in the core's codes.
 */
import { valueAt } from '../../json/pointer.js';
import { Problems, type DomainProblem } from './problems.js';

/** A bound of the request model: where, and what the value must keep to. */
interface Bound {
  pointer: string;
  /** `text`: at most `max` characters; `list`: at most `max` items, each a text of `item` characters; `range`: a number. */
  kind: 'text' | 'list' | 'range';
  min?: number;
  max: number;
  item?: { min: number; max: number };
}

const AGENT_BOUNDS: readonly Bound[] = [
  { pointer: '/spec/description', kind: 'text', max: 2000 },
  { pointer: '/spec/executor/instructions', kind: 'text', max: 65_536 },
  { pointer: '/spec/identity/roles', kind: 'list', max: 200, item: { min: 2, max: 63 } },
  { pointer: '/spec/identity/capabilities', kind: 'list', max: 200, item: { min: 1, max: 200 } },
  { pointer: '/spec/identity/permissions', kind: 'list', max: 200 },
  { pointer: '/spec/identity/iam/audiences', kind: 'list', min: 1, max: 20, item: { min: 1, max: 100 } },
  { pointer: '/spec/identity/iam/scopeCeiling', kind: 'list', min: 1, max: 50, item: { min: 1, max: 200 } },
  { pointer: '/spec/work/workspace', kind: 'text', max: 200 },
  { pointer: '/spec/work/project', kind: 'text', max: 200 },
  { pointer: '/spec/work/taskTypes', kind: 'list', max: 200 },
  { pointer: '/spec/placement/requires', kind: 'list', max: 200, item: { min: 1, max: 100 } },
  { pointer: '/spec/placement/secrets', kind: 'list', max: 200 },
  { pointer: '/spec/placement/resources/cpus', kind: 'range', min: Number.MIN_VALUE, max: 64 },
  { pointer: '/spec/placement/resources/memoryMb', kind: 'range', min: 64, max: 262_144 },
  { pointer: '/spec/skills/concurrency', kind: 'range', min: 1, max: 32 },
  { pointer: '/spec/skills/audiences', kind: 'list', max: 200, item: { min: 1, max: 100 } },
  { pointer: '/spec/skills/httpOrigins', kind: 'list', max: 200, item: { min: 1, max: 500 } },
  { pointer: '/spec/skills/mcpOrigins', kind: 'list', max: 200, item: { min: 1, max: 500 } },
  { pointer: '/spec/skills/local', kind: 'list', max: 200 },
  { pointer: '/spec/skills/invoke', kind: 'list', max: 200, item: { min: 1, max: 251 } },
];

export function agentProblems(document: unknown): DomainProblem[] {
  const problems = new Problems('invalid_agent');
  for (const bound of AGENT_BOUNDS) {
    const value = valueAt(document, bound.pointer);
    if (value === undefined || value === null) continue;
    if (bound.kind === 'text' && typeof value === 'string' && [...value].length > bound.max) problems.add(bound.pointer, `has at most ${bound.max} characters`);
    if (bound.kind === 'range' && typeof value === 'number' && (value < (bound.min ?? 0) || value > bound.max)) {
      problems.add(bound.pointer, bound.min === Number.MIN_VALUE ? `must be greater than 0 and at most ${bound.max}` : `must be from ${bound.min} to ${bound.max}`);
    }
    if (bound.kind === 'list' && Array.isArray(value)) {
      if (value.length > bound.max || value.length < (bound.min ?? 0)) problems.add(bound.pointer, `holds ${bound.min ?? 0} to ${bound.max} items`);
      const item = bound.item;
      if (item) {
        value.forEach((entry, index) => {
          if (typeof entry === 'string' && ([...entry].length < item.min || [...entry].length > item.max)) problems.add(`${bound.pointer}/${index}`, `has ${item.min} to ${item.max} characters`);
        });
      }
    }
  }
  return problems.list;
}

const ROLE_SLUG_MIN = 2;

/** A role's slug (its key) has two characters or more. */
export function roleProblems(key: string): DomainProblem[] {
  const problems = new Problems('invalid_role');
  if (key.length < ROLE_SLUG_MIN) problems.add('/key', `the slug of a role has ${ROLE_SLUG_MIN} to 63 characters`, { hint: 'name the role by a word, e.g. approvers' });
  return problems.list;
}

