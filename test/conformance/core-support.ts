/**
 * The real core's OpenAPI slices of the corpus as contracts, and a comparison of our own document with them:
 * what a request may carry must be the same on both sides, and what our document promises of an answer must
 * be what the real core promises.
 */
import { readFileSync } from 'node:fs';
import { Contract, type Contracts } from '../core/support.js';
import { corpus } from './corpus.js';

const load = (path: string): unknown => JSON.parse(readFileSync(corpus(path), 'utf8'));

/** The install routes with their schemas, the catalog components, and `POST /packages:record`. */
export const REAL: Contracts = {
  install: new Contract(load('core-openapi/install.json')),
  catalog: new Contract(load('core-openapi/catalog.json')),
  record: new Contract(load('fixtures/control-plane-openapi-packages-record.json')),
};

type Schema = Record<string, any>;

/** What a schema admits, reduced to what both documents state alike: JSON types, enums, properties, closedness, items. */
interface Shape {
  types: string[];
  enum?: unknown[];
  properties?: Record<string, Shape>;
  required?: string[];
  closed?: boolean;
  items?: Shape;
}

/** Deep enough for every schema of the slices; `$ref` cycles stop there. */
const MAX_DEPTH = 8;

function resolve(doc: any, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 20; hops++) {
    current = current.$ref.replace(/^#\//, '').split('/').reduce((at: any, part: string) => at?.[part], doc);
  }
  return current ?? {};
}

function typesOf(schema: Schema): string[] {
  if (schema.const !== undefined) return [schema.const === null ? 'null' : typeof schema.const === 'number' ? 'number' : typeof schema.const];
  if (Array.isArray(schema.type)) return schema.type;
  return typeof schema.type === 'string' ? [schema.type] : [];
}

export function shape(doc: any, raw: Schema, depth = 0): Shape {
  const schema = resolve(doc, raw);
  const members = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].map((member: Schema) => shape(doc, member, depth + 1));
  const object = members.find((member) => member.properties);
  const own: Shape = { types: typesOf(schema) };
  if (schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined)) own.enum = [...(schema.enum ?? [schema.const])].sort();
  if (schema.properties && depth < MAX_DEPTH) {
    own.properties = Object.fromEntries(Object.entries<Schema>(schema.properties).map(([name, property]) => [name, shape(doc, property, depth + 1)]));
    own.required = [...(schema.required ?? [])].sort();
    own.closed = schema.additionalProperties === false;
  }
  if (schema.items && depth < MAX_DEPTH) own.items = shape(doc, schema.items, depth + 1);
  const types = withoutIntegerInNumber([...new Set([...own.types, ...members.flatMap((member) => member.types)])].sort());
  const merged = { ...object, ...own, types: types.length > 0 ? types : ['any'] };
  const items = own.items ?? members.find((member) => member.items)?.items;
  const enums = own.enum ?? (members.some((member) => member.enum) ? members.flatMap((member) => member.enum ?? []).sort() : undefined);
  return { ...merged, ...(items ? { items } : {}), ...(enums ? { enum: enums } : {}) };
}

/** `integer` beside `number` admits nothing more. */
function withoutIntegerInNumber(types: string[]): string[] {
  return types.includes('number') ? types.filter((type) => type !== 'integer') : types;
}

const same = (a: unknown[], b: unknown[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Where a request admitted by one document is not by the other: types, enums, property names, required
 * names and closedness must be the same at every depth.
 */
export function requestDifferences(ours: Shape, real: Shape, at = ''): string[] {
  const differences: string[] = [];
  if (!same(ours.types, real.types)) differences.push(`${at || '/'}: types ${ours.types} ≠ ${real.types}`);
  if (!same(ours.enum ?? [], real.enum ?? [])) differences.push(`${at || '/'}: enum ${JSON.stringify(ours.enum)} ≠ ${JSON.stringify(real.enum)}`);
  if (ours.properties && real.properties) {
    const [mine, theirs] = [Object.keys(ours.properties).sort(), Object.keys(real.properties).sort()];
    if (!same(mine, theirs)) differences.push(`${at || '/'}: properties ${mine} ≠ ${theirs}`);
    if (!same(ours.required ?? [], real.required ?? [])) differences.push(`${at || '/'}: required ${ours.required} ≠ ${real.required}`);
    if (ours.closed !== real.closed) differences.push(`${at || '/'}: closed ${ours.closed} ≠ ${real.closed}`);
    for (const name of mine.filter((candidate) => theirs.includes(candidate))) differences.push(...requestDifferences(ours.properties[name]!, real.properties[name]!, `${at}/${name}`));
  } else if (Boolean(ours.properties) !== Boolean(real.properties) && !ours.types.includes('any') && !real.types.includes('any')) {
    differences.push(`${at || '/'}: properties described on one side only`);
  }
  if (ours.items && real.items) differences.push(...requestDifferences(ours.items, real.items, `${at}/items`));
  return differences;
}

/**
 * Where our document promises more of an answer than the real core does, or less than it guarantees: every
 * property we describe is the real core's with the same types, every property it requires we require too.
 */
export function answerDifferences(ours: Shape, real: Shape, at = ''): string[] {
  if (ours.types.includes('any') || real.types.includes('any')) return [];
  const differences: string[] = [];
  if (ours.types.some((type) => !real.types.includes(type) && !(type === 'integer' && real.types.includes('number')))) {
    differences.push(`${at || '/'}: types ${ours.types} ⊄ ${real.types}`);
  }
  if (ours.enum && real.enum && ours.enum.some((value) => !real.enum!.includes(value))) differences.push(`${at || '/'}: enum ${JSON.stringify(ours.enum)} ⊄ ${JSON.stringify(real.enum)}`);
  if (ours.properties && real.properties) {
    const unknown = Object.keys(ours.properties).filter((name) => !(name in real.properties!));
    if (unknown.length > 0) differences.push(`${at || '/'}: properties the real core does not describe: ${unknown}`);
    const unpromised = (real.required ?? []).filter((name) => !(ours.required ?? []).includes(name));
    if (unpromised.length > 0) differences.push(`${at || '/'}: required by the real core, not by ours: ${unpromised}`);
    for (const name of Object.keys(ours.properties).filter((candidate) => candidate in real.properties!)) {
      differences.push(...answerDifferences(ours.properties[name]!, real.properties[name]!, `${at}/${name}`));
    }
  }
  if (ours.items && real.items) differences.push(...answerDifferences(ours.items, real.items, `${at}/items`));
  return differences;
}
