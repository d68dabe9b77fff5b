/**
 * Reads of the package settings by work rules (compat-package-sdk-check.md §2.8): `{var: settings.…}` in
 * `condition`, `action.where` and `action.forEach`, and `{{settings.…}}` placeholders in the templates of the
 * interpretation and the action. Each read names a declared field whose type fits where it is read. Reads
 * inside process and view expressions are the CEL checks' (src/cel), which resolve them with `settingsFieldAt`.
 */
import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { Package, PackageObject } from '../../model/package.js';
import { defineObjectRule, type Place } from '../rule.js';
import { fieldAt, settingsSchemaOf, siblingNames, type SettingsType } from '../settings-schema.js';
import { isRecord } from '../../json/guards.js';

/** What a place of a rule does with the value it reads, and the field types that fit it. */
const NEEDS = {
  any: { types: undefined, place: '' },
  comparable: { types: ['integer', 'number', 'string'], place: 'a comparison (gt, ge, lt, le) takes a number, an integer or a string' },
  equatable: { types: ['integer', 'number', 'string', 'boolean', 'array'], place: 'eq and ne compare scalars or arrays' },
  scalar: { types: ['integer', 'number', 'string', 'boolean'], place: 'the left side of in is a scalar' },
  member: { types: ['array'], place: 'the right side of in is an array' },
  forEach: { types: ['array'], place: 'forEach walks an array' },
  text: { types: ['integer', 'number', 'string', 'boolean'], place: 'a {{…}} placeholder inside text takes a scalar' },
} as const satisfies Record<string, { types: readonly SettingsType[] | undefined; place: string }>;
type Need = keyof typeof NEEDS;

const COMPARISONS = new Set(['gt', 'ge', 'lt', 'le']);
const EQUALITIES = new Set(['eq', 'ne']);
/** Fields of a rule whose strings are templates with `{{…}}` placeholders. */
const TEMPLATE_FIELDS: readonly (readonly string[])[] = [
  ['interpretation', 'inputs'],
  ['action', 'taskType'],
  ['action', 'dedupKeyTemplate'],
  ['action', 'fields'],
  ['action', 'acceptance'],
  ['action', 'check'],
];
const PLACEHOLDER = /\{\{\s*(settings(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\s*\{\{\s*(settings(?:\.[A-Za-z0-9_]+)*)\s*\}\}\s*$/;

/** One read of the settings: the field path after `settings`, and where it is written. */
interface SettingsRead {
  path: string[];
  need: Need;
  place: Place;
}

export const settingsReads = defineObjectRule({
  id: 'settings/rule-reads',
  description: 'Work rules read only declared settings fields, each where its type fits.',
  codes: {
    settings_ref_unknown: {
      severity: 'error',
      core: true,
      summary: 'A work rule reads settings.<path> that the package settings do not declare (or the package declares no settings).',
      message: (d: { read: string; pkg: string; declared: boolean }) =>
        d.declared ? `${d.read} is not a field of the settings of package ${d.pkg}` : `${d.read}: package ${d.pkg} declares no settings`,
    },
    settings_ref_type: {
      severity: 'error',
      core: true,
      summary: 'A work rule reads a settings field whose type does not fit the place (comparison, eq/ne, in, forEach, text).',
      message: (d: { read: string; type: string; place: string }) => `${d.read} is ${d.type}, but ${d.place}`,
    },
  },
  subjects: ['WorkRule'],
  checkObject(context, rule) {
    // The manifest must have passed stage 1 (a manifest is no object: an edit of it runs every object rule again).
    const pkg = context.packages().find((candidate) => candidate.key === rule.package);
    if (pkg === undefined) return;
    const root = settingsSchemaOf(pkg);
    const typed = root !== undefined && context.facts.settingsProblems(pkg).length === 0;
    for (const read of settingsReadsOf(rule)) {
      const name = ['settings', ...read.path].join('.');
      const field = root === undefined ? undefined : fieldAt(root, read.path);
      if (field === undefined) {
        context.report('settings_ref_unknown', read.place, { read: name, pkg: pkg.key, declared: root !== undefined }, { hint: unknownHint(pkg, root, read.path) });
        continue;
      }
      const fits = NEEDS[read.need].types as readonly SettingsType[] | undefined;
      if (typed && field.type !== undefined && fits !== undefined && !fits.includes(field.type)) {
        context.report('settings_ref_type', read.place, { read: name, type: field.type, place: NEEDS[read.need].place });
      }
    }
  },
});

function unknownHint(pkg: Package, root: Record<string, unknown> | undefined, path: readonly string[]): string {
  if (root === undefined) return `declare the field under spec.settings.schema in the package.yaml of ${pkg.key}`;
  return didYouMean(path.at(-1) ?? '', siblingNames(root, path)) ?? `declare '${path.join('.')}' under spec.settings.schema`;
}

/** Every read of the settings in a work rule, in document order. */
export function settingsReadsOf(rule: PackageObject): SettingsRead[] {
  const reader = new RuleReads(rule);
  const { spec } = rule;
  reader.condition(spec.condition, '/spec/condition');
  const action = isRecord(spec.action) ? spec.action : {};
  reader.condition(action.where, '/spec/action/where');
  reader.forEach(action.forEach, '/spec/action/forEach');
  for (const path of TEMPLATE_FIELDS) {
    let value: unknown = spec;
    for (const segment of path) value = isRecord(value) ? value[segment] : undefined;
    reader.templates(value, `/spec/${path.join('/')}`);
  }
  return reader.reads;
}

/** Walks the parts of a rule that read data: the condition grammar, forEach and templates. */
class RuleReads {
  readonly reads: SettingsRead[] = [];

  constructor(private readonly rule: PackageObject) {}

  /** A condition: operators over operands; `var` reads, `exists` reads a bare path. */
  condition(node: unknown, pointer: string): void {
    if (Array.isArray(node)) return node.forEach((item, index) => this.operand(item, childPointer(pointer, index), 'any'));
    if (!isRecord(node)) return;
    for (const [operator, args] of Object.entries(node)) {
      const at = childPointer(pointer, operator);
      const each = (need: (index: number) => Need) =>
        (Array.isArray(args) ? args : [args]).forEach((item, index) => this.operand(item, Array.isArray(args) ? childPointer(at, index) : at, need(index)));
      if (operator === 'var') this.variable(args, at, 'any');
      else if (operator === 'exists' && typeof args === 'string') this.path(args, at, 'any');
      else if (COMPARISONS.has(operator)) each(() => 'comparable');
      else if (EQUALITIES.has(operator)) each(() => 'equatable');
      else if (operator === 'in') each((index) => (index === 0 ? 'scalar' : 'member'));
      else each(() => 'any');
    }
  }

  /** `forEach` walks an array: `{var: settings.x}`, a bare path or a whole-string placeholder. */
  forEach(value: unknown, pointer: string): void {
    if (typeof value !== 'string') return value === undefined ? undefined : this.operand(value, pointer, 'forEach');
    const whole = WHOLE_PLACEHOLDER.exec(value);
    this.path(whole ? whole[1]! : value, pointer, 'forEach');
  }

  /** `{{settings.…}}` placeholders in every string under `value`: a whole-string one may be anything, one inside text is a scalar. */
  templates(value: unknown, pointer: string): void {
    if (typeof value === 'string') {
      if (!value.includes('{{')) return;
      for (const match of value.matchAll(PLACEHOLDER)) {
        const expression = match[1]!;
        const need = match[0].length === value.trim().length ? 'any' : 'text';
        const offset = match.index + match[0].indexOf(expression);
        this.reads.push({ path: settingsPath(expression)!, need, place: { document: this.rule.document, pointer, offset, length: expression.length } });
      }
    } else if (Array.isArray(value)) value.forEach((item, index) => this.templates(item, childPointer(pointer, index)));
    else if (isRecord(value)) for (const [key, item] of Object.entries(value)) this.templates(item, childPointer(pointer, key));
  }

  private operand(node: unknown, pointer: string, need: Need): void {
    if (isRecord(node) && Object.keys(node).length === 1 && 'var' in node) this.variable(node.var, childPointer(pointer, 'var'), need);
    else this.condition(node, pointer);
  }

  /** `{var: path}` or `{var: [path, default]}`. */
  private variable(args: unknown, pointer: string, need: Need): void {
    if (Array.isArray(args)) this.path(args[0], childPointer(pointer, 0), need);
    else this.path(args, pointer, need);
  }

  private path(value: unknown, pointer: string, need: Need): void {
    const path = typeof value === 'string' ? settingsPath(value) : undefined;
    if (path !== undefined) this.reads.push({ path, need, place: { document: this.rule.document, pointer } });
  }
}

/** `settings.a.b` → `['a', 'b']`; undefined for a path outside the settings. */
function settingsPath(text: string): string[] | undefined {
  const parts = text.trim().split('.');
  return parts[0] === 'settings' ? parts.slice(1) : undefined;
}
