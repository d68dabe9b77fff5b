/**
 * Package settings (compat-package-sdk-check.md §2.8): the declaration `spec.settings.schema` stays inside
 * the subset the console renders and the core stores, every optional field has a valid default, nothing in
 * it is a secret, the form `spec.settings.uischema` is the closed JSON Forms subset, and every label is a key
 * of each declared dictionary. Schema errors under `spec.settings` are reported here, in these codes.
 */
import { childPointer } from '../../json/pointer.js';
import type { Finding } from '../../model/finding.js';
import type { Package } from '../../model/package.js';
import { fieldName, type SettingsProblem } from '../facts/settings.js';
import { SETTINGS_POINTER, declaredFields, fieldAt, settingsOf } from '../settings-schema.js';
import { hintOf } from '../../model/finding.js';
import { defineRule, type RuleContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

const UISCHEMA_POINTER = '/spec/settings/uischema';

/** Stage-1 findings of the owned part that none of the rule's findings stands for (at, above or below it). */
function unexplained(findings: readonly Finding[], reported: readonly string[], within: (pointer: string) => boolean): Finding[] {
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  return findings.filter((finding) => within(finding.path) && !reported.some((pointer) => related(pointer, finding.path)));
}

export const settingsDeclaration = defineRule({
  id: 'settings/declaration',
  description: 'The settings schema stays in the subset the console renders, optional fields have valid defaults, and nothing in it is a secret.',
  ownsManifestFields: [SETTINGS_POINTER],
  codes: {
    settings_schema_unsupported: {
      severity: 'error',
      core: true,
      summary: 'The settings declaration leaves the supported subset of JSON Schema (keywords, types, nesting, names, bounds).',
      message: (d: { field: string; reason: string }) => `${d.field}: ${d.reason}`,
    },
    settings_default_missing: {
      severity: 'error',
      core: true,
      summary: 'An optional settings field (not an object) has no default.',
      message: (d: { field: string; reason: string }) => `${d.field} ${d.reason}`,
    },
    settings_default_invalid: {
      severity: 'error',
      core: true,
      summary: 'The default of a settings field does not fit the field (type, enum, bounds, length, pattern, format, items).',
      message: (d: { field: string; reason: string }) => `${d.field}: ${d.reason}`,
    },
    settings_secret_field: {
      severity: 'error',
      core: true,
      summary: 'A settings field is a secret: writeOnly, format password, a secret-like name, or access material in a default or enum.',
      message: (d: { field: string; reason: string }) => `${d.field} ${d.reason} — package settings hold no secrets`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const problems = context.facts.settingsProblems(pkg);
      for (const problem of problems) {
        const place = problem.span
          ? { document: pkg.manifest, pointer: problem.pointer, ...problem.span }
          : { document: pkg.manifest, pointer: problem.pointer, ...(problem.part ? { part: problem.part } : {}) };
        context.report(problem.code, place, { field: problem.field, reason: problem.reason }, hintOf(problem.hint));
      }
      const outside = unexplained(context.schemaFindings(pkg.manifest), problems.map((p) => p.pointer), (pointer) => !isOwnedByUischema(pointer));
      for (const finding of outside) {
        context.report('settings_schema_unsupported', { document: pkg.manifest, pointer: finding.path }, { field: 'spec.settings', reason: `outside the format schema: ${finding.message}` }, hintOf(finding.hint));
      }
    }
  },
});

function isOwnedByUischema(pointer: string): boolean {
  return pointer === UISCHEMA_POINTER || pointer.startsWith(`${UISCHEMA_POINTER}/`);
}

// ─── the form ────────────────────────────────────────────────────────────────

const ELEMENT_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  VerticalLayout: ['type', 'elements', 'rule'],
  HorizontalLayout: ['type', 'elements', 'rule'],
  Group: ['type', 'label', 'elements', 'rule'],
  Control: ['type', 'scope', 'label', 'rule'],
  Label: ['type', 'text', 'rule'],
};
const CONTAINERS = ['VerticalLayout', 'HorizontalLayout', 'Group'];
const EFFECTS = ['SHOW', 'HIDE', 'ENABLE', 'DISABLE'];
const CONDITION_KEYWORDS = ['type', 'const', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems'];
const SCOPE = /^#\/properties\/[a-z][A-Za-z0-9_]*(\/properties\/[a-z][A-Za-z0-9_]*)*$/;
const DICTIONARY_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;
const MAX_ELEMENTS = 200;
const MAX_UI_DEPTH = 5;

/** A `label` or `text` of the form: a key every dictionary must have. */
interface FormLabel {
  key: string;
  pointer: string;
}

interface FormReview {
  problems: { pointer: string; reason: string; part?: 'key'; hint?: string }[];
  /** Property paths that have a Control. */
  controls: string[][];
  labels: FormLabel[];
}

/** The form of the settings: its mistakes, its Controls and its labels. */
function reviewForm(pkgKey: string, form: unknown, root: Record<string, unknown> | undefined): FormReview {
  const review: FormReview = { problems: [], controls: [], labels: [] };
  const problem = (pointer: string, reason: string, extra: { part?: 'key'; hint?: string } = {}) => review.problems.push({ pointer, reason, ...extra });
  const groupLabel = new RegExp(`^${escapeRegExp(pkgKey)}\\.settings\\.groups\\.[A-Za-z0-9][A-Za-z0-9_-]*$`);
  const controlled = new Set<string>();
  let count = 0;

  const scopeOf = (value: unknown, pointer: string): string[] | undefined => {
    if (typeof value !== 'string' || !SCOPE.test(value)) {
      problem(pointer, 'scope is #/properties/<field>[/properties/<field>…]');
      return undefined;
    }
    const path = value.split('/').slice(1).filter((_, i) => i % 2 === 1);
    if (root === undefined || fieldAt(root, path) === undefined) {
      problem(pointer, `scope ${value} names no field of the settings schema`);
      return undefined;
    }
    return path;
  };

  const ruleOf = (rule: unknown, pointer: string): void => {
    if (!isRecord(rule)) return void problem(pointer, 'a rule is {effect, condition}');
    for (const member of Object.keys(rule)) if (member !== 'effect' && member !== 'condition') problem(childPointer(pointer, member), `'${member}' is not a member of a rule: it has effect and condition`, { part: 'key' });
    if (!EFFECTS.includes(rule.effect as string)) problem(rule.effect === undefined ? pointer : childPointer(pointer, 'effect'), `effect is one of ${EFFECTS.join(', ')}`);
    const condition = rule.condition;
    const at = childPointer(pointer, 'condition');
    if (!isRecord(condition)) return void problem(condition === undefined ? pointer : at, 'a rule has a condition {scope, schema, failWhenUndefined?}');
    for (const member of Object.keys(condition)) {
      if (!['scope', 'schema', 'failWhenUndefined'].includes(member)) problem(childPointer(at, member), `'${member}' is not a member of a condition: it has scope, schema and failWhenUndefined`, { part: 'key' });
    }
    scopeOf(condition.scope, childPointer(at, 'scope'));
    if (condition.failWhenUndefined !== undefined && typeof condition.failWhenUndefined !== 'boolean') problem(childPointer(at, 'failWhenUndefined'), 'failWhenUndefined is true or false');
    if (!isRecord(condition.schema)) return void problem(condition.schema === undefined ? at : childPointer(at, 'schema'), 'a condition has a schema: the keywords the value must meet');
    for (const keyword of Object.keys(condition.schema)) {
      if (!CONDITION_KEYWORDS.includes(keyword)) {
        problem(childPointer(childPointer(at, 'schema'), keyword), `keyword '${keyword}' is not allowed in a rule condition: only ${CONDITION_KEYWORDS.join(', ')}`, { part: 'key' });
      }
    }
  };

  const label = (value: unknown, pointer: string, member: string, group: boolean): void => {
    if (typeof value !== 'string' || !(group ? groupLabel.test(value) : DICTIONARY_KEY.test(value))) {
      problem(pointer, group ? `the label of a Group is a dictionary key ${pkgKey}.settings.groups.<id>` : `${member} is a key of the package dictionaries, not a text`, {
        ...(group ? { hint: `e.g. ${pkgKey}.settings.groups.general` } : {}),
      });
      return;
    }
    review.labels.push({ key: value, pointer });
  };

  const element = (node: unknown, pointer: string, depth: number): void => {
    count += 1;
    if (!isRecord(node)) return void problem(pointer, 'an element is a mapping with a type');
    const type = node.type;
    if (typeof type !== 'string' || !Object.hasOwn(ELEMENT_MEMBERS, type)) {
      return void problem(type === undefined ? pointer : childPointer(pointer, 'type'), `type ${JSON.stringify(type)} is not rendered by the console: use ${Object.keys(ELEMENT_MEMBERS).join(', ')}`);
    }
    if (depth === 1 && !CONTAINERS.includes(type)) problem(childPointer(pointer, 'type'), 'the root of the form is a VerticalLayout, HorizontalLayout or Group');
    if (depth > MAX_UI_DEPTH) return void problem(pointer, `the form nests at most ${MAX_UI_DEPTH} levels deep`);
    const members = ELEMENT_MEMBERS[type]!;
    for (const member of Object.keys(node)) {
      if (!members.includes(member)) problem(childPointer(pointer, member), `'${member}' is not rendered by the console: a ${type} has ${members.join(', ')}`, { part: 'key' });
    }
    if (node.rule !== undefined) ruleOf(node.rule, childPointer(pointer, 'rule'));
    if (type === 'Control') {
      const path = scopeOf(node.scope, node.scope === undefined ? pointer : childPointer(pointer, 'scope'));
      if (path !== undefined) {
        const id = path.join('/');
        if (controlled.has(id)) problem(childPointer(pointer, 'scope'), `a second Control of ${fieldName(path)}: a field has one Control`);
        controlled.add(id);
        review.controls.push(path);
      }
      if (node.label !== undefined) label(node.label, childPointer(pointer, 'label'), 'label', false);
    } else if (type === 'Label') {
      label(node.text, node.text === undefined ? pointer : childPointer(pointer, 'text'), 'text', false);
    } else {
      if (type === 'Group') label(node.label, node.label === undefined ? pointer : childPointer(pointer, 'label'), 'label', true);
      const elements = node.elements;
      if (!Array.isArray(elements) || elements.length === 0) return void problem(elements === undefined ? pointer : childPointer(pointer, 'elements'), `a ${type} has a non-empty list of elements`);
      elements.forEach((child, index) => element(child, childPointer(childPointer(pointer, 'elements'), index), depth + 1));
    }
  };

  element(form, UISCHEMA_POINTER, 1);
  if (count > MAX_ELEMENTS) problem(UISCHEMA_POINTER, `the form has ${count} elements, more than ${MAX_ELEMENTS}`);
  return review;
}

export const settingsForm = defineRule({
  id: 'settings/uischema',
  description: 'The settings form uses only the JSON Forms elements the console renders, and shows every field.',
  ownsManifestFields: [UISCHEMA_POINTER],
  codes: {
    settings_uischema_unsupported: {
      severity: 'error',
      core: true,
      summary: 'The settings uischema leaves the closed JSON Forms subset (elements, members, scopes, labels, rules, size).',
      message: (d: { reason: string }) => `settings form: ${d.reason}`,
    },
    settings_uischema_uncovered: {
      severity: 'warning',
      core: true,
      summary: 'A settings field (not an object) has no Control in the uischema, so the console form does not show it.',
      message: (d: { field: string }) => `${d.field} has no Control in the settings form — the console does not show it`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const settings = settingsOf(pkg);
      if (!isRecord(settings) || settings.uischema === undefined) continue;
      const root = isRecord(settings.schema) ? settings.schema : undefined;
      const review = reviewForm(pkg.key, settings.uischema, root);
      for (const { pointer, reason, part, hint } of review.problems) {
        context.report('settings_uischema_unsupported', { document: pkg.manifest, pointer, ...(part ? { part } : {}) }, { reason }, hintOf(hint));
      }
      const outside = unexplained(context.schemaFindings(pkg.manifest), review.problems.map((p) => p.pointer), isOwnedByUischema);
      for (const finding of outside) {
        context.report('settings_uischema_unsupported', { document: pkg.manifest, pointer: finding.path }, { reason: `outside the format schema: ${finding.message}` }, hintOf(finding.hint));
      }
      if (root !== undefined && review.problems.length === 0) reportUncovered(context, pkg, root, review.controls);
    }
  },
});

function reportUncovered(context: RuleContext<typeof settingsForm.codes>, pkg: Package, root: Record<string, unknown>, controls: readonly string[][]): void {
  const covers = (control: readonly string[], path: readonly string[]) => control.length <= path.length && control.every((name, i) => name === path[i]);
  for (const field of declaredFields(root)) {
    if (field.type === 'object' || controls.some((control) => covers(control, field.path))) continue;
    context.report('settings_uischema_uncovered', { document: pkg.manifest, pointer: UISCHEMA_POINTER }, { field: fieldName(field.path) }, {
      hint: `add {type: Control, scope: "#/properties/${field.path.join('/properties/')}"} to the form`,
    });
  }
}

// ─── the labels ──────────────────────────────────────────────────────────────

export const settingsLabels = defineRule({
  id: 'settings/labels',
  description: 'Every label of the settings (the package title, each field, each form label) is a key of every declared dictionary.',
  codes: {
    settings_label_missing: {
      severity: 'error',
      core: true,
      summary: 'A label of the settings is missing from a declared dictionary, or the package declares no locales for them.',
      message: (d: { key: string; files: string }) =>
        d.files === '' ? `settings are labelled by keys of the package dictionaries, but the package declares no locales` : `label ${d.key} is missing in ${d.files}`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const settings = settingsOf(pkg);
      if (settings === undefined) continue;
      const spec = (pkg.manifest.value as { spec?: Record<string, unknown> }).spec ?? {};
      if (spec.locales === undefined) {
        context.report('settings_label_missing', { document: pkg.manifest, pointer: SETTINGS_POINTER, part: 'key' }, { key: '', files: '' }, {
          hint: `declare locales: [en] and give i18n/en.yaml the keys ${pkg.key}.title and ${pkg.key}.settings.<field>`,
        });
        continue;
      }
      const dictionaries = declaredDictionaries(pkg, spec.locales);
      for (const { key, pointer, part } of requiredLabels(pkg, settings, context.facts.settingsProblems(pkg))) {
        const missing = dictionaries.filter((dictionary) => !Object.hasOwn(dictionary.entries, key)).map((dictionary) => dictionary.file);
        if (missing.length === 0) continue;
        context.report('settings_label_missing', { document: pkg.manifest, pointer, ...(part ? { part } : {}) }, { key, files: missing.join(', ') }, {
          hint: `add ${key}: <text> to ${missing.join(' and ')}`,
        });
      }
    }
  },
});

/** The dictionaries of the declared locales that exist (a missing one is `missing_dictionary`'s business). */
function declaredDictionaries(pkg: Package, locales: unknown): { file: string; entries: Record<string, unknown> }[] {
  if (!Array.isArray(locales)) return [];
  return pkg.dictionaries
    .filter((dictionary) => locales.includes(dictionary.locale))
    .map((dictionary) => ({ file: dictionary.file, entries: isRecord(dictionary.document.value) ? dictionary.document.value : {} }));
}

/** The package title, each declared field (array items have none) and each label of the form. */
function requiredLabels(pkg: Package, settings: unknown, problems: readonly SettingsProblem[]): { key: string; pointer: string; part?: 'key' }[] {
  const labels: { key: string; pointer: string; part?: 'key' }[] = [{ key: `${pkg.key}.title`, pointer: SETTINGS_POINTER, part: 'key' }];
  if (!isRecord(settings)) return labels;
  const root = isRecord(settings.schema) ? settings.schema : undefined;
  if (root !== undefined) {
    // A field inside a part of the declaration that is not supported owes no label until it is.
    const unsupported = problems.filter((p) => p.code === 'settings_schema_unsupported').map((p) => p.pointer);
    for (const field of declaredFields(root)) {
      if (unsupported.some((pointer) => field.pointer === pointer || field.pointer.startsWith(`${pointer}/`))) continue;
      labels.push({ key: `${pkg.key}.settings.${field.path.join('.')}`, pointer: field.pointer, part: 'key' });
    }
  }
  if (settings.uischema !== undefined) labels.push(...reviewForm(pkg.key, settings.uischema, root).labels);
  return labels;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
