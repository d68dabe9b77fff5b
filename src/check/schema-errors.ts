import type { ErrorObject } from 'ajv';

/**
 * Reduces ajv's full error list (allErrors + verbose) to one error per mistake (ARCHITECTURE.md,
 * principle 4): the branch of a union that the document meant, no `if` wrappers, no duplicates.
 */
export interface SchemaMistake {
  /** JSON Pointer of the offending node (for an unknown field: the field itself). */
  pointer: string;
  /** Report at the key of the node rather than its value (unknown fields, names). */
  atKey: boolean;
  keyword: string;
  message: string;
  /** Names the user may have meant (for did-you-mean hints). */
  candidates?: readonly string[];
  /** The offending name or value, compared with the candidates. */
  actual?: string;
}

type AjvError = ErrorObject<string, Record<string, any>, unknown>;

const UNION_KEYWORDS = new Set(['oneOf', 'anyOf']);

export function reduceSchemaErrors(errors: readonly AjvError[]): SchemaMistake[] {
  let remaining = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
  remaining = resolveUnions(remaining);
  remaining = dropShadowedByDeeper(remaining);
  const seen = new Set<string>();
  const mistakes: SchemaMistake[] = [];
  for (const error of remaining) {
    const mistake = describe(error);
    const id = `${mistake.pointer}\u0000${mistake.keyword}\u0000${mistake.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    mistakes.push(mistake);
  }
  return mistakes.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** Replaces each failed oneOf/anyOf by the errors of the branch the document most likely meant. */
function resolveUnions(errors: AjvError[]): AjvError[] {
  // Innermost unions first, so an outer union compares branches that are already reduced.
  const unions = errors
    .filter((e) => UNION_KEYWORDS.has(e.keyword) && e.params.passingSchemas == null)
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  let current = errors;
  for (const union of unions) {
    if (!current.includes(union)) continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const e of current) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const index = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      const list = branches.get(index) ?? [];
      list.push(e);
      branches.set(index, list);
    }
    const inBranches = new Set([...branches.values()].flat());
    const rest = current.filter((e) => e !== union && !inBranches.has(e));
    const meant = [...branches.values()].filter((b) => !rejectsAtTheUnion(b, union.instancePath));
    if (meant.length === 0) {
      rest.push(wrongTypeForUnion(union, [...branches.values()]));
    } else {
      rest.push(...bestBranch(meant));
    }
    current = rest;
  }
  return current;
}

/** A branch whose type, const or enum fails at the union's own node is one the document did not mean. */
function rejectsAtTheUnion(branch: AjvError[], instancePath: string): boolean {
  return branch.some(
    (e) =>
      (e.instancePath === instancePath && (e.keyword === 'type' || e.keyword === 'const' || e.keyword === 'enum')) ||
      (isDiscriminator(e) && parentOf(e.instancePath) === instancePath),
  );
}

/** A `const` on a member (like `kind: Process`) decides a branch; a mismatch there means another branch. */
function isDiscriminator(error: AjvError): boolean {
  return error.keyword === 'const';
}

function bestBranch(branches: AjvError[][]): AjvError[] {
  const depth = (b: AjvError[]) => Math.max(...b.map((e) => e.instancePath.split('/').length));
  return [...branches].sort((a, b) => depth(b) - depth(a) || a.length - b.length)[0] ?? [];
}

function wrongTypeForUnion(union: AjvError, branches: AjvError[][]): AjvError {
  const expected = new Set<string>();
  for (const branch of branches) {
    for (const e of branch) {
      if (e.instancePath !== union.instancePath) continue;
      if (e.keyword === 'type') String(e.params.type).split(',').forEach((t) => expected.add(t));
      if (e.keyword === 'const') expected.add(JSON.stringify(e.params.allowedValue));
      if (e.keyword === 'enum') (e.params.allowedValues as unknown[]).forEach((v) => expected.add(JSON.stringify(v)));
    }
  }
  return { ...union, keyword: 'type', params: { type: [...expected].join(',') } };
}

/**
 * Within one object, an error about a member explains more than an error about the object that exists only
 * because of it (e.g. `not`/`contains` wrappers); keep the deeper one.
 */
function dropShadowedByDeeper(errors: AjvError[]): AjvError[] {
  const wrappers = new Set(['not', 'contains', 'dependentSchemas', 'then', 'else', 'allOf']);
  return errors.filter(
    (e) =>
      !wrappers.has(e.keyword) ||
      !errors.some((other) => other !== e && other.instancePath.startsWith(`${e.instancePath}/`)) ||
      e.keyword === 'not',
  );
}

function describe(error: AjvError): SchemaMistake {
  if (error.propertyName !== undefined) return describeName(error);
  const { keyword, params, instancePath } = error;
  switch (keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      return {
        pointer: `${instancePath}/${escapePointer(name)}`,
        atKey: true,
        keyword,
        message: `unknown field '${name}'${where(instancePath)}`,
        candidates: knownProperties(error.parentSchema),
        actual: name,
      };
    }
    case 'required':
      return {
        pointer: instancePath,
        atKey: true,
        keyword,
        message: `missing required field '${params.missingProperty}'${where(instancePath)}`,
      };
    case 'type':
      return { pointer: instancePath, atKey: false, keyword, message: `must be ${typeList(String(params.type))}, not ${jsonType(error.data)}` };
    case 'const':
      return {
        pointer: instancePath,
        atKey: false,
        keyword,
        message: `must be ${JSON.stringify(params.allowedValue)}`,
        candidates: typeof params.allowedValue === 'string' ? [params.allowedValue] : undefined,
        actual: typeof error.data === 'string' ? error.data : undefined,
      };
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      return {
        pointer: instancePath,
        atKey: false,
        keyword,
        message: `${show(error.data)} is not one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
        candidates: allowed.filter((v): v is string => typeof v === 'string'),
        actual: typeof error.data === 'string' ? error.data : undefined,
      };
    }
    case 'pattern':
      return { pointer: instancePath, atKey: false, keyword, message: `${show(error.data)} does not match ${patternName(error)}` };
    case 'format':
      return { pointer: instancePath, atKey: false, keyword, message: `${show(error.data)} is not a valid ${params.format}` };
    case 'not':
      return { pointer: instancePath, atKey: false, keyword, message: `${show(error.data)} is not allowed here` };
    case 'oneOf':
      return { pointer: instancePath, atKey: false, keyword, message: 'matches more than one of the allowed shapes — keep only one' };
    case 'minProperties':
      return { pointer: instancePath, atKey: false, keyword, message: `must have at least ${params.limit} field${params.limit === 1 ? '' : 's'}` };
    case 'maxProperties':
      return { pointer: instancePath, atKey: false, keyword, message: `must have at most ${params.limit} field${params.limit === 1 ? '' : 's'}` };
    default:
      return { pointer: instancePath, atKey: false, keyword, message: error.message ?? `fails ${keyword}` };
  }
}

/** An error under `propertyNames`: the name itself is wrong, reported at the key. */
function describeName(error: AjvError): SchemaMistake {
  const name = String(error.propertyName);
  const pointer = `${error.instancePath}/${escapePointer(name)}`;
  if (error.keyword === 'not') {
    return { pointer, atKey: true, keyword: 'propertyNames', message: `name '${name}' is not allowed (looks like a secret or is reserved)` };
  }
  const rule = error.keyword === 'pattern' ? `does not match ${patternName(error)}` : (error.message ?? 'is not allowed');
  return { pointer, atKey: true, keyword: 'propertyNames', message: `name '${name}' ${rule}` };
}

function knownProperties(schema: unknown): string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const names = new Set<string>();
  const collect = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const s = node as Record<string, unknown>;
    if (s.properties && typeof s.properties === 'object') Object.keys(s.properties).forEach((k) => names.add(k));
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[key])) (s[key] as unknown[]).forEach(collect);
    for (const key of ['then', 'else']) collect(s[key]);
  };
  collect(schema);
  return names.size > 0 ? [...names] : undefined;
}

function patternName(error: AjvError): string {
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  const title = schema && typeof schema.title === 'string' ? schema.title : undefined;
  return title ? `the ${title} pattern (${error.params.pattern})` : `the pattern ${error.params.pattern}`;
}

function where(instancePath: string): string {
  const name = instancePath.split('/').pop();
  return instancePath === '' ? '' : ` in '${unescapePointer(name ?? '')}'`;
}

function typeList(types: string): string {
  const names = types.split(',').map((t) => (t.startsWith('"') ? t : article(t)));
  return names.length <= 1 ? (names[0] ?? 'valid') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function article(type: string): string {
  const words: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    null: 'null',
  };
  return words[type] ?? type;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `${value}`;
  return 'a mapping';
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function parentOf(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
