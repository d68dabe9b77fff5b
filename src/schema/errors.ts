import type { ErrorObject } from 'ajv';
import { closestName } from '../model/did-you-mean.js';

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
  /** What the schema says of the field, when it explains the expected form (patterns, formats). */
  explanation?: string;
  /** For a missing required field: its name. */
  missing?: string;
}

type AjvError = ErrorObject<string, Record<string, any>, unknown>;

const UNION_KEYWORDS = new Set(['oneOf', 'anyOf']);

export function reduceSchemaErrors(errors: readonly AjvError[]): SchemaMistake[] {
  let remaining = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
  remaining = resolveUnions(remaining);
  remaining = dropShadowedByDeeper(remaining);
  const mistakes = mergeSamePlace(remaining.map(describe));
  return dropRequiredExplainedByTypo(mistakes).sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/**
 * The same node fails the same keyword in several places of the schema (a kind enum in two dispatches):
 * one mistake, with the candidates of all.
 */
function mergeSamePlace(mistakes: SchemaMistake[]): SchemaMistake[] {
  const byPlace = new Map<string, SchemaMistake>();
  for (const mistake of mistakes) {
    const id = `${mistake.pointer}\u0000${mistake.atKey}\u0000${mistake.keyword}`;
    const known = byPlace.get(id);
    if (!known) {
      byPlace.set(id, mistake);
    } else if ((mistake.candidates?.length ?? 0) > (known.candidates?.length ?? 0)) {
      byPlace.set(id, mistake); // the widest list of what is allowed is the true one
    }
  }
  return [...byPlace.values()];
}

/** `displayNme` unknown and `displayName` missing are one typo: keep the unknown field and its hint. */
function dropRequiredExplainedByTypo(mistakes: SchemaMistake[]): SchemaMistake[] {
  return mistakes.filter((mistake) => {
    if (mistake.keyword !== 'required' || mistake.missing === undefined) return true;
    const missing = mistake.missing;
    return !mistakes.some(
      (other) =>
        other.atKey &&
        other.actual !== undefined &&
        parentOf(other.pointer) === mistake.pointer &&
        (other.keyword === 'additionalProperties' || other.keyword === 'unevaluatedProperties') &&
        closestName(other.actual, [missing]) === missing,
    );
  });
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
      e.propertyName !== undefined ||
      !errors.some((other) => other !== e && explainsMore(other, e.instancePath)),
  );
}

/** An error below the node, or an unknown field of the node (the key the author meant, misspelt). */
function explainsMore(error: AjvError, instancePath: string): boolean {
  return (
    error.instancePath.startsWith(`${instancePath}/`) ||
    (error.instancePath === instancePath && (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'))
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
        missing: String(params.missingProperty),
      };
    case 'type':
      return {
        pointer: instancePath,
        atKey: false,
        keyword,
        message: `${subject(instancePath)}must be ${typeList(String(params.type))}, not ${jsonType(error.data)}`,
      };
    case 'const':
      return {
        pointer: instancePath,
        atKey: false,
        keyword,
        message: `${subject(instancePath)}must be ${JSON.stringify(params.allowedValue)}`,
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
      return {
        pointer: instancePath,
        atKey: false,
        keyword,
        message: `${show(error.data)} does not match ${patternName(error)}`,
        ...explanationOf(error),
      };
    case 'format':
      return { pointer: instancePath, atKey: false, keyword, message: `${show(error.data)} is not a valid ${params.format}` };
    case 'not':
      return { pointer: instancePath, atKey: false, keyword, message: schemaDescription(error) ?? `${show(error.data)} is not allowed here` };
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
    const rule = schemaDescription(error);
    const message = rule ? `'${name}' is not allowed — ${lowerFirst(rule)}` : `name '${name}' is not allowed (looks like a secret or is reserved)`;
    return { pointer, atKey: true, keyword: 'propertyNames', message };
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

/** A pattern is named by its definition (`typeKey`, `slug` …) when it has one; the regex is the last resort. */
function patternName(error: AjvError): string {
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  if (schema && typeof schema.title === 'string') return `the ${schema.title} pattern`;
  const definition = /\/\$defs\/([^/]+)\/pattern$/.exec(error.schemaPath)?.[1];
  return definition ? `the ${unescapePointer(definition)} pattern ${error.params.pattern}` : `the pattern ${error.params.pattern}`;
}

function explanationOf(error: AjvError): { explanation?: string } {
  const description = schemaDescription(error);
  return description ? { explanation: description } : {};
}

/** The description of the schema node that failed: where a schema states a rule in words, it is the best message. */
function schemaDescription(error: AjvError): string | undefined {
  const description = (error.parentSchema as Record<string, unknown> | undefined)?.description;
  return typeof description === 'string' && description !== '' ? description : undefined;
}

/** `A step: …` → `a step: …`, but `NAME of …` stays as written. */
function lowerFirst(text: string): string {
  return /^[A-Z](?![A-Z])/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** `'skill' ` for `/spec/…/call/skill`, `'stages[0]' ` for an item: who the sentence is about. */
function subject(instancePath: string): string {
  if (instancePath === '') return 'the document ';
  const path = readablePath(instancePath);
  const last = /(?:^|\.)([^.]+)$/.exec(path)?.[1] ?? path;
  return `'${last}' `;
}

function where(instancePath: string): string {
  return instancePath === '' ? '' : ` in ${readablePath(instancePath)}`;
}

/** `/spec/packages/0` → `spec.packages[0]`: how authors name a place in their YAML. */
export function readablePath(pointer: string): string {
  let out = '';
  for (const segment of pointer.split('/').slice(1).map(unescapePointer)) {
    out += /^(0|[1-9][0-9]*)$/.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  return out;
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
