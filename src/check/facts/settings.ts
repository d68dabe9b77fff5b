/**
 * The review of a package's settings declaration (`spec.settings.schema`): the subset the console renders and
 * the core stores, defaults of optional fields, no secrets. The settings rules report it; the expression and
 * settings-read rules type `settings.*` against the declaration only when it has no mistake.
 */
import { isDeepStrictEqual } from 'node:util';
import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { Package } from '../../model/package.js';
import { hintOf } from '../../model/finding.js';
import { findCredentialMaterial, isSecretLikeName } from '../secrets.js';
import {
  SETTINGS_POINTER,
  SETTINGS_SCHEMA_POINTER,
  SETTINGS_TYPES,
  type SettingsType,
  fieldOf,
  settingsOf,
} from '../settings-schema.js';
import { isRecord } from '../../json/guards.js';

/** Keywords of a settings field, and the field types each one applies to (undefined: every type). */
const KEYWORDS: Readonly<Record<string, readonly SettingsType[] | undefined>> = {
  type: undefined,
  default: undefined,
  properties: ['object'],
  required: ['object'],
  additionalProperties: ['object'],
  items: ['array'],
  minItems: ['array'],
  maxItems: ['array'],
  minLength: ['string'],
  maxLength: ['string'],
  pattern: ['string'],
  format: ['string'],
  'x-ref': ['string'],
  minimum: ['integer', 'number'],
  maximum: ['integer', 'number'],
  enum: ['string', 'integer', 'number', 'boolean'],
};
const SCALAR_TYPES: readonly SettingsType[] = ['string', 'integer', 'number', 'boolean'];
const FORMATS = ['date', 'uri', 'email', 'uuid'];
const X_REFS = ['role', 'principal', 'workspace', 'taskType', 'calendar'];
const FIELD_NAME = /^[a-z][A-Za-z0-9_]{0,62}$/;
/** Objects nest at most this deep, the root counting as the first. */
const MAX_OBJECT_DEPTH = 3;
const MAX_PROPERTIES = 100;
const MAX_ENUM = 100;

export type DeclarationCode = 'settings_schema_unsupported' | 'settings_default_missing' | 'settings_default_invalid' | 'settings_secret_field';

/** One mistake of a declaration, before it becomes a finding. */
export interface SettingsProblem {
  code: DeclarationCode;
  pointer: string;
  part?: 'key';
  /** Characters inside the string at `pointer` (credential material). */
  span?: { offset: number; length: number };
  field: string;
  reason: string;
  hint?: string;
}

/** The mistakes of the package's settings declaration (none when it declares no settings). */
export function reviewSettingsDeclaration(pkg: Package): SettingsProblem[] {
  const pkgKey = pkg.key;
  const settings = settingsOf(pkg);
  const problems: SettingsProblem[] = [];
  const unsupported = (pointer: string, reason: string, extra: Partial<SettingsProblem> = {}) =>
    problems.push({ code: 'settings_schema_unsupported', pointer, field: 'spec.settings', reason, ...extra });
  if (settings === undefined) return problems;
  if (!isRecord(settings)) {
    unsupported(SETTINGS_POINTER, 'the declaration is a mapping {schema, uischema?}');
    return problems;
  }
  for (const member of Object.keys(settings)) {
    if (member !== 'schema' && member !== 'uischema') {
      unsupported(childPointer(SETTINGS_POINTER, member), `'${member}' is not a member of the declaration: it has schema and an optional uischema`, {
        part: 'key',
        ...hintOf(didYouMean(member, ['schema', 'uischema'])),
      });
    }
  }
  const root = settings.schema;
  if (root === undefined) unsupported(SETTINGS_POINTER, 'the declaration has no schema');
  else if (!isRecord(root)) unsupported(SETTINGS_SCHEMA_POINTER, 'the schema is a mapping with type: object and properties');
  else if (root.type !== 'object') unsupported(root.type === undefined ? SETTINGS_SCHEMA_POINTER : `${SETTINGS_SCHEMA_POINTER}/type`, 'the root of the settings schema is type: object');
  else new DeclarationReview(pkgKey, problems).field(root, SETTINGS_SCHEMA_POINTER, { path: [], level: 0, objectDepth: 0, required: true });
  return problems;
}

/** Where a field sits: how it is named in messages, how deep it is, and whether it owes a default. */
interface FieldPlace {
  /** Property names and `[]` for array items, from the root. */
  path: string[];
  /** Steps from the root (properties and items alike): the schema allows three. */
  level: number;
  /** Objects from the root to this field, the root counting. */
  objectDepth: number;
  /** Named in its parent's `required` (the root and array items count as required: they owe no default). */
  required: boolean;
}

class DeclarationReview {
  constructor(
    private readonly pkgKey: string,
    private readonly problems: SettingsProblem[],
  ) {}

  field(node: unknown, pointer: string, place: FieldPlace): void {
    const name = fieldName(place.path);
    const before = this.problems.length;
    const report = (code: DeclarationCode, at: string, reason: string, extra: Partial<SettingsProblem> = {}) =>
      this.problems.push({ code, pointer: at, field: name, reason, ...extra });
    if (!isRecord(node)) {
      report('settings_schema_unsupported', pointer, 'a field is a mapping of JSON Schema keywords');
      return;
    }
    this.keywords(node, pointer, place, report);
    const type = fieldOf(node).type;
    if (type === undefined) {
      if (node.type === undefined) report('settings_schema_unsupported', pointer, 'a field needs a type');
      else report('settings_schema_unsupported', `${pointer}/type`, `type ${JSON.stringify(node.type)} is not one of ${SETTINGS_TYPES.join(', ')}`);
      return;
    }
    this.values(node, pointer, type, report);
    if (type === 'object') this.object(node, pointer, place, report);
    if (type === 'array') this.array(node, pointer, place, report);
    this.credentialsIn(node, pointer, report);
    if (this.problems.length === before) this.defaultOf(node, pointer, type, place, report);
  }

  /** Keywords outside the subset, labels written into the schema, secret markers, keywords of another type. */
  private keywords(node: Record<string, unknown>, pointer: string, place: FieldPlace, report: Reporter): void {
    const type = fieldOf(node).type;
    for (const keyword of Object.keys(node)) {
      const at = childPointer(pointer, keyword);
      if (keyword === 'title' || keyword === 'description') {
        const label = `${this.pkgKey}.settings.${place.path.join('.')}`;
        report('settings_schema_unsupported', at, `${keyword} is not part of the schema: labels are keys ${label}${keyword === 'description' ? '.help' : ''} of the package dictionaries`, {
          part: 'key',
          hint: `move the text to i18n/<locale>.yaml under ${label}${keyword === 'description' ? '.help' : ''}`,
        });
      } else if (keyword === 'writeOnly') {
        if (node.writeOnly === true) report('settings_secret_field', at, 'is writeOnly, which marks a secret', { part: 'key', hint: SECRET_HINT });
        else report('settings_schema_unsupported', at, 'writeOnly is not a settings keyword', { part: 'key' });
      } else if (!Object.hasOwn(KEYWORDS, keyword)) {
        report('settings_schema_unsupported', at, `keyword '${keyword}' is outside the settings subset`, {
          part: 'key',
          ...hintOf(didYouMean(keyword, Object.keys(KEYWORDS)) ?? `a field has only ${Object.keys(KEYWORDS).join(', ')}`),
        });
      } else {
        const types = KEYWORDS[keyword];
        if (type !== undefined && types !== undefined && !types.includes(type)) {
          report('settings_schema_unsupported', at, `${keyword} applies only to ${listOf(types)} fields, not to ${type}`, { part: 'key' });
        }
      }
    }
  }

  /** The values of the keywords that take a value of their own: bounds, enum, pattern, format, x-ref, required. */
  private values(node: Record<string, unknown>, pointer: string, type: SettingsType, report: Reporter): void {
    for (const keyword of ['minItems', 'maxItems', 'minLength', 'maxLength'] as const) {
      const value = node[keyword];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) report('settings_schema_unsupported', childPointer(pointer, keyword), `${keyword} is an integer ≥ 0`);
    }
    for (const keyword of ['minimum', 'maximum'] as const) {
      const value = node[keyword];
      if (value !== undefined && typeof value !== 'number') report('settings_schema_unsupported', childPointer(pointer, keyword), `${keyword} is a number`);
    }
    if (node.enum !== undefined && KEYWORDS.enum!.includes(type)) this.enumOf(node.enum, childPointer(pointer, 'enum'), type, report);
    if (node.pattern !== undefined && regExpOf(node.pattern) === undefined) report('settings_schema_unsupported', childPointer(pointer, 'pattern'), 'pattern is not a regular expression');
    if (node.format === 'password') report('settings_secret_field', childPointer(pointer, 'format'), 'has format: password, which marks a secret', { hint: SECRET_HINT });
    else if (node.format !== undefined && !FORMATS.includes(node.format as string)) {
      report('settings_schema_unsupported', childPointer(pointer, 'format'), `format ${JSON.stringify(node.format)} is not one of ${FORMATS.join(', ')}`);
    }
    if (node['x-ref'] !== undefined && !X_REFS.includes(node['x-ref'] as string)) {
      report('settings_schema_unsupported', childPointer(pointer, 'x-ref'), `x-ref ${JSON.stringify(node['x-ref'])} is not one of ${X_REFS.join(', ')}`);
    }
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      report('settings_schema_unsupported', childPointer(pointer, 'additionalProperties'), 'additionalProperties is false or absent: a value never has undeclared members');
    }
  }

  private enumOf(values: unknown, pointer: string, type: SettingsType, report: Reporter): void {
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_ENUM) {
      report('settings_schema_unsupported', pointer, `enum is a list of 1 to ${MAX_ENUM} values`);
      return;
    }
    values.forEach((value, index) => {
      const at = childPointer(pointer, index);
      if (!fitsType(value, type)) report('settings_schema_unsupported', at, `enum value ${JSON.stringify(value)} is not of the field's type ${type}`);
      else if (values.findIndex((other) => isDeepStrictEqual(other, value)) < index) report('settings_schema_unsupported', at, `enum value ${JSON.stringify(value)} is listed twice`);
    });
  }

  private object(node: Record<string, unknown>, pointer: string, place: FieldPlace, report: Reporter): void {
    const objectDepth = place.objectDepth + 1;
    if (objectDepth > MAX_OBJECT_DEPTH) {
      report('settings_schema_unsupported', pointer, `objects nest at most ${MAX_OBJECT_DEPTH} levels deep (the root counts)`);
      return;
    }
    const properties = node.properties;
    if (!isRecord(properties) || Object.keys(properties).length === 0) {
      report('settings_schema_unsupported', properties === undefined ? pointer : childPointer(pointer, 'properties'), 'an object field lists at least one property');
      return;
    }
    if (Object.keys(properties).length > MAX_PROPERTIES) report('settings_schema_unsupported', childPointer(pointer, 'properties'), `an object has at most ${MAX_PROPERTIES} properties`);
    const required = this.requiredOf(node.required, properties, childPointer(pointer, 'required'), report);
    for (const [name, child] of Object.entries(properties)) {
      const at = childPointer(childPointer(pointer, 'properties'), name);
      const path = [...place.path, name];
      if (!FIELD_NAME.test(name)) {
        report('settings_schema_unsupported', at, `field name '${name}' is not camelCase: a lowercase letter, then letters, digits and _ (at most 63)`, { part: 'key' });
      } else if (isSecretLikeName(name)) {
        this.problems.push({ code: 'settings_secret_field', pointer: at, part: 'key', field: fieldName(path), reason: 'is named like a secret', hint: SECRET_HINT });
      }
      this.field(child, at, { path, level: place.level + 1, objectDepth, required: required.has(name) });
    }
  }

  private requiredOf(value: unknown, properties: Record<string, unknown>, pointer: string, report: Reporter): Set<string> {
    if (value === undefined) return new Set();
    if (!Array.isArray(value)) {
      report('settings_schema_unsupported', pointer, 'required is a list of property names');
      return new Set();
    }
    value.forEach((name, index) => {
      const at = childPointer(pointer, index);
      if (typeof name !== 'string') report('settings_schema_unsupported', at, 'required is a list of property names');
      else if (value.indexOf(name) < index) report('settings_schema_unsupported', at, `required names '${name}' twice`);
      else if (!Object.hasOwn(properties, name)) {
        report('settings_schema_unsupported', at, `required names '${name}', which is not a property`, hintOf(didYouMean(name, Object.keys(properties))));
      }
    });
    return new Set(value.filter((name): name is string => typeof name === 'string'));
  }

  private array(node: Record<string, unknown>, pointer: string, place: FieldPlace, report: Reporter): void {
    const items = node.items;
    if (items === undefined) {
      report('settings_schema_unsupported', pointer, 'an array field has items');
      return;
    }
    const at = childPointer(pointer, 'items');
    const path = [...place.path, '[]'];
    if (place.level >= 3) {
      // The deepest level: items hold scalars only, and nothing nests further.
      const type = isRecord(items) ? fieldOf(items).type : undefined;
      if (type !== undefined && !SCALAR_TYPES.includes(type)) {
        report('settings_schema_unsupported', isRecord(items) ? childPointer(at, 'type') : at, `items of an array at the deepest level are scalars (string, integer, number, boolean), not ${type}`);
        return;
      }
    }
    this.field(items, at, { path, level: place.level + 1, objectDepth: place.objectDepth, required: true });
  }

  /** Access material in a default or an enum value: a package holds no secrets. */
  private credentialsIn(node: Record<string, unknown>, pointer: string, report: Reporter): void {
    const scan = (value: unknown, at: string): void => {
      if (typeof value === 'string') {
        const found = findCredentialMaterial(value);
        if (found) report('settings_secret_field', at, `holds ${found.kind}`, { span: { offset: found.offset, length: found.length }, hint: SECRET_HINT });
      } else if (Array.isArray(value)) value.forEach((item, index) => scan(item, childPointer(at, index)));
      else if (isRecord(value)) for (const [key, item] of Object.entries(value)) scan(item, childPointer(at, key));
    };
    scan(node.default, childPointer(pointer, 'default'));
    if (Array.isArray(node.enum)) scan(node.enum, childPointer(pointer, 'enum'));
  }

  private defaultOf(node: Record<string, unknown>, pointer: string, type: SettingsType, place: FieldPlace, report: Reporter): void {
    if (!('default' in node)) {
      if (!place.required && type !== 'object') {
        report('settings_default_missing', pointer, 'is optional but has no default — the console needs a value until an administrator saves one', {
          part: 'key',
          hint: 'add a default, or list the field in required of its object',
        });
      }
      return;
    }
    const problem = valueProblem(node.default, node, '');
    if (problem !== undefined) report('settings_default_invalid', childPointer(pointer, 'default'), `default${problem.at}: ${problem.reason}`);
  }
}

type Reporter = (code: DeclarationCode, pointer: string, reason: string, extra?: Partial<SettingsProblem>) => void;

const SECRET_HINT = 'a package carries no secrets: keep the secret in a connection or a secret store and name it here by reference (secretRef)';

/** What is wrong with `value` as a value of the field `schema` (the default), with where inside it. */
function valueProblem(value: unknown, schema: Record<string, unknown>, at: string): { at: string; reason: string } | undefined {
  const type = fieldOf(schema).type;
  const fail = (reason: string) => ({ at, reason });
  if (type === undefined) return undefined;
  if (!fitsType(value, type)) return fail(`${show(value)} is not ${article(type)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => isDeepStrictEqual(option, value))) {
    return fail(`${show(value)} is not one of ${schema.enum.map(show).join(', ')}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return fail(`${value} is below the minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) return fail(`${value} is above the maximum ${schema.maximum}`);
  }
  if (typeof value === 'string') return stringProblem(value, schema, at);
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return fail(`has ${value.length} item(s), fewer than minItems ${schema.minItems}`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return fail(`has ${value.length} item(s), more than maxItems ${schema.maxItems}`);
    if (!isRecord(schema.items)) return undefined;
    for (const [index, item] of value.entries()) {
      const problem = valueProblem(item, schema.items, `${at}[${index}]`);
      if (problem !== undefined) return problem;
    }
  }
  if (isRecord(value)) return objectProblem(value, schema, at);
  return undefined;
}

function stringProblem(value: string, schema: Record<string, unknown>, at: string): { at: string; reason: string } | undefined {
  const length = [...value].length;
  const fail = (reason: string) => ({ at, reason });
  if (typeof schema.minLength === 'number' && length < schema.minLength) return fail(`${show(value)} is shorter than minLength ${schema.minLength}`);
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return fail(`${show(value)} is longer than maxLength ${schema.maxLength}`);
  const pattern = regExpOf(schema.pattern);
  if (pattern !== undefined && !pattern.test(value)) return fail(`${show(value)} does not match the pattern ${schema.pattern}`);
  if (typeof schema.format === 'string' && FORMAT_CHECKS[schema.format] && !FORMAT_CHECKS[schema.format]!(value)) {
    return fail(`${show(value)} is not ${article(schema.format)} (format ${schema.format})`);
  }
  return undefined;
}

function objectProblem(value: Record<string, unknown>, schema: Record<string, unknown>, at: string): { at: string; reason: string } | undefined {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, member] of Object.entries(value)) {
    const field = properties[key];
    if (!isRecord(field)) return { at, reason: `member '${key}' is not a property of the field` };
    const problem = valueProblem(member, field, `${at}.${key}`);
    if (problem !== undefined) return problem;
  }
  const missing = (Array.isArray(schema.required) ? schema.required : []).find((name) => typeof name === 'string' && !(name in value));
  return missing === undefined ? undefined : { at, reason: `the required member '${missing}' is missing` };
}

const FORMAT_CHECKS: Readonly<Record<string, (value: string) => boolean>> = {
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value),
  uuid: (value) => /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value),
};

function fitsType(value: unknown, type: SettingsType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
  }
}

/** The `pattern` keyword as a regular expression (ECMA-262, Unicode), or undefined when it is none. */
function regExpOf(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== 'string') return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** `settings.intake.mailbox`, `settings.tags[]`: how messages name a field. */
export function fieldName(path: readonly string[]): string {
  return path.reduce((name, segment) => (segment === '[]' ? `${name}[]` : `${name}.${segment}`), 'settings');
}

/** A value as a message quotes it. */
export function show(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}

/** `a, b and c`. */
function listOf(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

