/**
 * validate_json_schema_document of the core (compat-core-validators.md §0.3): a stored JSON Schema passes the
 * JSON guard, refers only inside itself (`$ref`, `$dynamicRef`, `$recursiveRef` start with `#`), and is a
 * schema by the Draft 2020-12 meta-schema — as Python's `jsonschema` checks it, with regular expressions
 * (`pattern`, `patternProperties`) that must compile. The meta-schema is walked here rather than compiled with
 * ajv: it is small, and `check` must not pay for a second validator at start-up.
 */
import { isRecord } from '../../json/guards.js';
import { childPointer } from '../../json/pointer.js';
import { DOCUMENT_BYTES, guardProblems } from './json-guard.js';
import { isInteger, Problems, type DomainProblem } from './problems.js';
import { regexProblem } from './regex.js';

const SIMPLE_TYPES: ReadonlySet<string> = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = [
  'items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
];
/** Keywords whose value is a non-empty list of schemas. */
const SCHEMA_LIST_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
/** Keywords whose value is an object of schemas. */
const SCHEMA_MAP_KEYWORDS = ['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas'];
const STRING_KEYWORDS = ['$schema', '$comment', 'title', 'description', 'format', 'contentEncoding', 'contentMediaType', '$ref', '$dynamicRef', '$recursiveRef', 'pattern'];
const NUMBER_KEYWORDS = ['maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'];
const COUNT_KEYWORDS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties'];
const BOOLEAN_KEYWORDS = ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly'];

export interface JsonSchemaOptions {
  /** The code of every problem (a caller may re-code the schema's problems, e.g. `invalid_artifact_type`). */
  code?: string;
  maxBytes?: number;
  /** How the core's messages name the document: `fieldSchema`, `contract.inputs`. */
  label: string;
}

/** The problems of a stored JSON Schema document at `pointer` (guard, references, meta-schema). */
export function jsonSchemaProblems(schema: unknown, pointer: string, options: JsonSchemaOptions): DomainProblem[] {
  const guard = guardProblems(schema, pointer, options.label, 'invalid_json_schema', options.maxBytes ?? DOCUMENT_BYTES);
  const recode = (list: readonly DomainProblem[]): DomainProblem[] => (options.code ? list.map((p) => ({ ...p, code: options.code! })) : [...list]);
  if (guard.length > 0) return recode(guard);
  const problems = new Problems('invalid_json_schema');
  remoteReferences(schema, pointer, problems);
  metaSchema(schema, pointer, problems);
  return recode(problems.list);
}

/** Every `$ref`-like string that leaves the document. */
function remoteReferences(node: unknown, pointer: string, problems: Problems): void {
  if (Array.isArray(node)) return node.forEach((item, index) => remoteReferences(item, childPointer(pointer, index), problems));
  if (!isRecord(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = childPointer(pointer, key);
    if (REFERENCES.includes(key) && typeof value === 'string' && !value.startsWith('#')) {
      problems.add(at, `${key} '${value}': only same-document $ref is allowed in a stored schema`, {
        hint: 'write the schema inline, or refer to its $defs with #/$defs/<name>',
      });
    }
    remoteReferences(value, at, problems);
  }
}

/** A schema by the Draft 2020-12 meta-schema: an object or a boolean whose keywords have their forms. */
function metaSchema(node: unknown, pointer: string, problems: Problems): void {
  if (typeof node === 'boolean') return;
  if (!isRecord(node)) {
    problems.add(pointer, `${describe(node)} is not a schema: a schema is an object or a boolean`);
    return;
  }
  const wrong = (keyword: string, expected: string): void => problems.add(childPointer(pointer, keyword), `${keyword} must be ${expected}`);
  for (const keyword of STRING_KEYWORDS) if (keyword in node && typeof node[keyword] !== 'string') wrong(keyword, 'a string');
  for (const keyword of NUMBER_KEYWORDS) if (keyword in node && typeof node[keyword] !== 'number') wrong(keyword, 'a number');
  for (const keyword of COUNT_KEYWORDS) if (keyword in node && !(isInteger(node[keyword]) && (node[keyword] as number) >= 0)) wrong(keyword, 'a non-negative integer');
  for (const keyword of BOOLEAN_KEYWORDS) if (keyword in node && typeof node[keyword] !== 'boolean') wrong(keyword, 'a boolean');
  if ('multipleOf' in node && !(typeof node.multipleOf === 'number' && node.multipleOf > 0)) wrong('multipleOf', 'a number greater than 0');
  if ('$id' in node && !(typeof node.$id === 'string' && /^[^#]*#?$/.test(node.$id))) wrong('$id', 'a URI reference without a fragment');
  for (const keyword of ['$anchor', '$dynamicAnchor', '$recursiveAnchor']) {
    if (keyword in node && !(typeof node[keyword] === 'string' && ANCHOR.test(node[keyword] as string))) wrong(keyword, `a name matching ${ANCHOR.source}`);
  }
  if ('$vocabulary' in node && !(isRecord(node.$vocabulary) && Object.values(node.$vocabulary).every((v) => typeof v === 'boolean'))) {
    wrong('$vocabulary', 'an object of booleans');
  }
  if ('type' in node && !isTypeKeyword(node.type)) wrong('type', `one of ${[...SIMPLE_TYPES].join(', ')}, or a non-empty list of them without repeats`);
  if ('enum' in node && !Array.isArray(node.enum)) wrong('enum', 'a list');
  if ('examples' in node && !Array.isArray(node.examples)) wrong('examples', 'a list');
  if ('required' in node && !isStringSet(node.required)) wrong('required', 'a list of distinct strings');
  if ('dependentRequired' in node && !(isRecord(node.dependentRequired) && Object.values(node.dependentRequired).every(isStringSet))) {
    wrong('dependentRequired', 'an object of lists of distinct strings');
  }
  if (typeof node.pattern === 'string') {
    const problem = regexProblem(node.pattern);
    if (problem) wrong('pattern', `a regular expression (${problem})`);
  }
  for (const keyword of SCHEMA_KEYWORDS) if (keyword in node) metaSchema(node[keyword], childPointer(pointer, keyword), problems);
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    if (!(keyword in node)) continue;
    const list = node[keyword];
    if (!Array.isArray(list) || list.length === 0) wrong(keyword, 'a non-empty list of schemas');
    else list.forEach((item, index) => metaSchema(item, childPointer(childPointer(pointer, keyword), index), problems));
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    if (!(keyword in node)) continue;
    const map = node[keyword];
    if (!isRecord(map)) {
      wrong(keyword, 'an object of schemas');
      continue;
    }
    for (const [name, item] of Object.entries(map)) {
      const at = childPointer(childPointer(pointer, keyword), name);
      if (keyword === 'patternProperties') {
        const problem = regexProblem(name);
        if (problem) problems.add(at, `patternProperties '${name}' is not a regular expression (${problem})`, { atKey: true });
      }
      metaSchema(item, at, problems);
    }
  }
  if ('dependencies' in node) {
    const map = node.dependencies;
    if (!isRecord(map)) wrong('dependencies', 'an object of schemas or lists of strings');
    else for (const [name, item] of Object.entries(map)) if (!isStringSet(item)) metaSchema(item, childPointer(childPointer(pointer, 'dependencies'), name), problems);
  }
}

function isTypeKeyword(value: unknown): boolean {
  if (typeof value === 'string') return SIMPLE_TYPES.has(value);
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && SIMPLE_TYPES.has(item)) && new Set(value).size === value.length;
}

function isStringSet(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') && new Set(value).size === value.length;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `'${value}'` : String(value);
}
