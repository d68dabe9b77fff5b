/**
 * The field reference of schema/v1 as data: sections of definitions, each with its Field / Type /
 * Required / Description rows, "Includes", "Exactly one of", "Conditions" and "Value" lines — the shape
 * of the reference page (package-schema-reference). Nested objects become definitions of their own,
 * named by their path: `parent.field`, `parent.field[]`, `parent.field.*`, `parent (2)` for the second
 * branch of a choice.
 */
import { isRecord } from '../json/guards.js';

export type JsonSchema = Record<string, unknown>;

export interface DocField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface DocDefinition {
  name: string;
  section: string;
  /** Prose paragraphs, in order. */
  description: string[];
  fields: DocField[];
  /** "Value: …" of a definition that is not an object with fields (without the final dot). */
  value: string | null;
  includes: string[];
  exactlyOneOf: string[] | null;
  conditions: [string, string][];
}

/** One schema file as the generator reads it. */
export interface SchemaFile {
  /** `object.schema.json`, … */
  file: string;
  schema: JsonSchema;
  /** Prefix of the names of its definitions (`view/`), or '' when they are named bare. */
  prefix: string;
  /** Name of the definition of the file's root, when the root has a shape of its own. */
  rootName: string;
}

const isObject = (value: unknown): value is JsonSchema => isRecord(value);
const code = (text: unknown): string => `\`${typeof text === 'string' ? text : JSON.stringify(text)}\``;

/** Renders and walks the schemas of one set of files, resolving `$ref`s to definition names. */
export class SchemaReader {
  constructor(private readonly files: ReadonlyMap<string, SchemaFile>) {}

  /** The definition name a `$ref` written in `file` points at. */
  refName(ref: string, file: SchemaFile): string {
    const [target, fragment = ''] = ref.split('#');
    const owner = target ? this.files.get(target) : file;
    const stem = owner?.rootName ?? (target ?? '').replace(/\.schema\.json$/, '');
    const path = fragment.replace(/^\/\$defs\//, '').split('/$defs/').join('/');
    if (!path) return stem;
    return `${owner?.prefix ?? ''}${path}`;
  }

  /** The "Type" cell of a field. */
  typeOf(schema: unknown, file: SchemaFile): string {
    if (!isObject(schema)) return 'any';
    if (typeof schema.$ref === 'string') return code(this.refName(schema.$ref, file));
    if ('const' in schema) return `= ${code(schema.const)}`;
    if (Array.isArray(schema.enum)) return schema.enum.map(code).join(' \\| ');
    const branches = this.branchesOf(schema);
    if (branches) {
      const choice = branches.map((branch) => this.branchType(branch, schema, file)).join(' or ');
      return this.byCondition(schema) ? `${choice} — by condition` : choice;
    }
    const type = schema.type;
    if (Array.isArray(type)) return this.typeList(type as string[], schema, file);
    if (type === 'array') return isObject(schema.items) ? `array of ${this.typeOf(schema.items, file)}` : 'array';
    if (type === 'object' || (type === undefined && isObject(schema.properties))) {
      if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return 'object';
      if (isObject(schema.additionalProperties)) return `map → ${this.typeOf(schema.additionalProperties, file)}`;
      return code('object');
    }
    if (typeof type === 'string') return typeof schema.format === 'string' && schema.format !== 'regex' ? `${code(type)} (${schema.format})` : code(type);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.typeOf(schema.allOf[0], file);
    return 'any';
  }

  /** `string` \| `number` for scalar types; `or` between them and the shapes of objects and arrays. */
  private typeList(types: readonly string[], schema: JsonSchema, file: SchemaFile): string {
    const groups: { scalar: boolean; items: string[] }[] = [];
    for (const type of types) {
      let rendered = code(type);
      if (type === 'array' && isObject(schema.items)) rendered = `array of ${this.typeOf(schema.items, file)}`;
      if (type === 'object' && isObject(schema.additionalProperties)) rendered = `map → ${this.typeOf(schema.additionalProperties, file)}`;
      const scalar = type !== 'array' && type !== 'object';
      const last = groups[groups.length - 1];
      if (scalar && last?.scalar) last.items.push(rendered);
      else groups.push({ scalar, items: [rendered] });
    }
    const complex = groups.some((group) => /^(array of|map →)/.test(group.items[0]!));
    return complex ? groups.map((group) => group.items.join(' \\| ')).join(' or ') : groups.flatMap((group) => group.items).join(' \\| ');
  }

  /** A branch of a choice: a reference, a type, or `object {a, b}` listing the branch's fields. */
  private branchType(branch: JsonSchema, choice: JsonSchema, file: SchemaFile): string {
    if (isObject(branch.properties)) return `object ${code(`{${Object.keys(branch.properties).join(', ')}}`)}`;
    if (Object.keys(branch).length === 0 && isObject(choice.if)) return this.typeOf(choice.if, file); // `then: true`
    return this.typeOf(branch, file);
  }

  /**
   * The alternatives of a choice, or undefined: `oneOf`/`anyOf`, an `if/then/else` chain (a scalar or a
   * type test lists its `then` first, a presence test its `else` first — the order of the reference), or
   * an `allOf` of closed shapes picked by a discriminator.
   */
  branchesOf(schema: JsonSchema): JsonSchema[] | undefined {
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const list = schema[keyword];
      if (Array.isArray(list) && list.every(isObject) && list.length > 1) return list;
    }
    const { if: test, then, else: otherwise } = schema;
    if (isObject(test) && (isObject(then) || then === true) && isObject(otherwise) && !isObject(schema.properties)) {
      const first = isObject(then) ? then : {};
      const rest = this.branchesOf(otherwise) ?? [otherwise];
      const thenFirst = test.type === 'string' || Array.isArray(test.anyOf) || ('required' in test && 'type' in test);
      return thenFirst ? [first, ...rest] : [...rest, first];
    }
    const all = Array.isArray(schema.allOf) ? schema.allOf : [];
    if (all.length > 1 && all.every((part) => isObject(part) && isObject(part.if) && isObject(part.then) && part.then.additionalProperties === false)) {
      return all.map((part) => (part as JsonSchema).then as JsonSchema);
    }
    return undefined;
  }

  /** True when a choice is decided by a condition on the value (a field's presence or value), not by its JSON type. */
  byCondition(schema: JsonSchema): boolean {
    const test = schema.if;
    if (!isObject(test)) return false;
    // A test of one field's presence alone is how the reference writes a plain choice of shapes.
    if ('properties' in test || ('required' in test && 'type' in test)) return true;
    const anyOf = Array.isArray(test.anyOf) ? test.anyOf : [];
    return anyOf.length > 0 && anyOf.every((part) => isObject(part) && Object.keys(part).join() === 'required');
  }

  /**
   * The definitions that describe `schema` under `name`: the definition itself, then one for every
   * nested object in field order, depth first.
   */
  definitions(name: string, schema: JsonSchema, file: SchemaFile, section: string): DocDefinition[] {
    const out: DocDefinition[] = [];
    const definition: DocDefinition = {
      name,
      section,
      description: typeof schema.description === 'string' && schema.description !== '' ? [schema.description] : [],
      fields: [],
      value: null,
      includes: [],
      exactlyOneOf: null,
      conditions: [],
    };
    out.push(definition);
    const branches = this.branchesOf(schema);
    if (branches) {
      definition.value = this.plain(this.typeOf(schema, file));
      definition.conditions = this.choiceConditions(schema, file);
      branches.forEach((branch, index) => {
        if (isObject(branch.properties)) out.push(...this.definitions(`${name} (${index + 1})`, branch, file, section));
      });
      return out;
    }
    if (isObject(schema.$defs) && !isObject(schema.properties) && schema.type === undefined) {
      for (const [child, childSchema] of Object.entries(schema.$defs)) {
        if (isObject(childSchema)) out.push(...this.definitions(`${name}/${child}`, childSchema, file, section));
      }
      return out;
    }
    const properties = isObject(schema.properties) ? schema.properties : undefined;
    if (!properties || Object.keys(properties).length === 0) {
      definition.includes = this.includesOf(schema, file);
      if (definition.includes.length === 0 && (schema.type !== undefined || schema.items !== undefined)) {
        definition.value = this.plain(this.typeOf(schema, file));
      }
      const items = schema.items;
      if (schema.type === 'array' && isObject(items) && isObject(items.properties)) out.push(...this.definitions(`${name}[]`, items, file, section));
      return out;
    }
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    definition.includes = this.includesOf(schema, file);
    definition.exactlyOneOf = this.exactlyOneOf(schema);
    definition.conditions = this.conditionsOf(schema, file);
    for (const [field, fieldSchema] of Object.entries(properties)) {
      const description = isObject(fieldSchema) && typeof fieldSchema.description === 'string' ? fieldSchema.description : '';
      definition.fields.push({ name: field, type: this.typeOf(fieldSchema, file), required: required.has(field), description });
      if (isObject(fieldSchema)) out.push(...this.nested(`${name}.${field}`, fieldSchema, file, section));
    }
    for (const [field, shapes] of this.conditionalFields(schema)) {
      if (field in properties) continue;
      const first = shapes.map((shape) => this.nested(`${name}.${field}`, shape, file, section)).find((defs) => defs.length > 0);
      if (first) out.push(...first);
    }
    return out;
  }

  /** Definitions of the inline objects inside one field. */
  private nested(path: string, schema: JsonSchema, file: SchemaFile, section: string): DocDefinition[] {
    if (typeof schema.$ref === 'string') return [];
    if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return this.definitions(path, schema, file, section);
    const branches = this.branchesOf(schema);
    if (branches) {
      return branches.flatMap((branch, index) =>
        isObject(branch.properties) ? this.definitions(`${path} (${index + 1})`, branch, file, section) : [],
      );
    }
    if (isObject(schema.items)) return this.nested(`${path}[]`, schema.items, file, section);
    if (isObject(schema.additionalProperties)) return this.nested(`${path}.*`, schema.additionalProperties, file, section);
    return [];
  }

  /** Shapes of the fields that the `then` of a condition declares (a block's fields by its kind), in order. */
  private conditionalFields(schema: JsonSchema): Map<string, JsonSchema[]> {
    const fields = new Map<string, JsonSchema[]>();
    for (const part of Array.isArray(schema.allOf) ? schema.allOf.filter(isObject) : []) {
      const then = isObject(part.then) && isObject(part.then.properties) ? part.then.properties : {};
      for (const [field, value] of Object.entries(then)) if (isObject(value)) fields.set(field, [...(fields.get(field) ?? []), value]);
    }
    return fields;
  }

  private includesOf(schema: JsonSchema, file: SchemaFile): string[] {
    const all = Array.isArray(schema.allOf) ? schema.allOf.filter(isObject) : [];
    return all.filter((part) => typeof part.$ref === 'string').map((part) => this.refName(part.$ref as string, file));
  }

  /** "Exactly one of": `oneOf` of required sets, or a guard that some of a list of fields must be present. */
  private exactlyOneOf(schema: JsonSchema): string[] | null {
    const oneOf = schema.oneOf;
    if (Array.isArray(oneOf) && oneOf.every((part) => isObject(part) && Array.isArray(part.required))) {
      return oneOf.map((part) => ((part as JsonSchema).required as string[]).join(' + '));
    }
    const all = Array.isArray(schema.allOf) ? schema.allOf.filter(isObject) : [];
    for (const part of all) {
      const names = isObject(part.if) && isObject(part.if.propertyNames) && isObject(part.if.propertyNames.not) ? part.if.propertyNames.not.enum : undefined;
      if (Array.isArray(names) && isObject(part.then) && isObject(part.then.not)) return names as string[];
    }
    return null;
  }

  /** Rows of the "Conditions" table: `if` → `then`, and `otherwise` → `else`. */
  private conditionsOf(schema: JsonSchema, file: SchemaFile): [string, string][] {
    const rules = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.filter(isObject) : [])];
    const rows: [string, string][] = [];
    for (const rule of rules) {
      if (!isObject(rule.if)) continue;
      const condition = this.condition(rule.if);
      if (condition === undefined) continue;
      const then = isObject(rule.then) ? this.consequence(rule.then, file) : '';
      if (then) rows.push([condition, then]);
      const otherwise = isObject(rule.else) ? this.consequence(rule.else, file) : '';
      if (otherwise) rows.push(['otherwise', otherwise]);
    }
    return rows;
  }

  private choiceConditions(schema: JsonSchema, file: SchemaFile): [string, string][] {
    if (!this.byCondition(schema) || !isObject(schema.if)) return [];
    const condition = this.condition(schema.if) ?? 'condition';
    return [
      [condition, this.typeOf(schema.then, file)],
      ['otherwise', this.typeOf(schema.else, file)],
    ];
  }

  /** `kind` = `Package`, `type` ∈ `a`, `b`, `x` is set — or undefined for a guard that is not a condition on values. */
  private condition(test: JsonSchema): string | undefined {
    const parts: string[] = [];
    const properties = isObject(test.properties) ? test.properties : {};
    for (const part of Array.isArray(test.allOf) ? test.allOf.filter(isObject) : []) {
      if (isObject(part.properties)) Object.assign(properties, part.properties);
    }
    for (const [field, value] of Object.entries(properties)) {
      if (!isObject(value)) continue;
      if ('const' in value) parts.push(`${code(field)} = ${code(value.const)}`);
      else if (Array.isArray(value.enum)) parts.push(`${code(field)} ∈ ${value.enum.map(code).join(', ')}`);
    }
    const required = Array.isArray(test.required) ? (test.required as string[]).filter((field) => !(field in properties)) : [];
    parts.push(...required.map((field) => `${code(field)} is set`));
    const anyOf = Array.isArray(test.anyOf) ? test.anyOf.filter(isObject) : [];
    const alternatives = anyOf.flatMap((part) => (Array.isArray(part.required) ? (part.required as string[]).map((field) => `${code(field)} is set`) : []));
    if (alternatives.length > 0) parts.push(alternatives.join(' or '));
    return parts.length > 0 ? parts.join(', ') : undefined;
  }

  /** `required `a`, `b`; `p`: `ref`; `q`: not allowed`. */
  private consequence(schema: JsonSchema, file: SchemaFile): string {
    if (typeof schema.$ref === 'string') return code(this.refName(schema.$ref, file));
    const parts: string[] = [];
    if (Array.isArray(schema.required) && schema.required.length > 0) parts.push(`required ${(schema.required as string[]).map(code).join(', ')}`);
    for (const [field, value] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
      if (!isObject(value)) continue;
      if (isObject(value.not) && Object.keys(value.not).length === 0) parts.push(`${code(field)}: not allowed`);
      else parts.push(`${code(field)}: ${this.typeOf(value, file)}`);
    }
    return parts.join('; ');
  }

  /** A type cell as plain text, for "Value:" lines. */
  private plain(type: string): string {
    return type.replace(/\\\|/g, '|').replace(/`/g, '');
  }
}
