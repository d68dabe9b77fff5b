/**
 * The optional fields of a kind, from schema/v1: the comments `add` writes under `spec` so that an
 * author sees what else the object can say without opening the reference.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SchemaReader, type JsonSchema, type SchemaFile } from '../docs/schema-model.js';
import type { AuthorKind } from './kinds.js';

/** The installed package-sdk's schema/v1 directory: modelines point at it, hints are read from it. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../schema/v1/', import.meta.url));

const SPEC_DEFINITIONS: Partial<Record<AuthorKind, [file: string, definition: string]>> = {
  View: ['view.schema.json', 'viewSpec'],
  Component: ['view.schema.json', 'componentSpec'],
  KnowledgePack: ['knowledge-pack.schema.json', ''],
};

function loadFile(file: string): SchemaFile {
  const schema = JSON.parse(readFileSync(`${SCHEMA_DIR}${file}`, 'utf8')) as JsonSchema;
  const stem = file.replace(/\.schema\.json$/, '');
  return { file, schema, prefix: file === 'object.schema.json' ? '' : `${stem}/`, rootName: stem };
}

/** `# field: type — what it is` for each field of the kind's spec that `present` does not already set. */
export function optionalFieldHints(kind: AuthorKind, present: ReadonlySet<string>): string[] {
  const [fileName, definition] = SPEC_DEFINITIONS[kind] ?? ['object.schema.json', `${kind.charAt(0).toLowerCase()}${kind.slice(1)}Spec`];
  const file = loadFile(fileName);
  const reader = new SchemaReader(new Map([[fileName, file]]));
  const schema = definition ? ((file.schema.$defs as Record<string, JsonSchema>)[definition] ?? {}) : file.schema;
  const [spec] = reader.definitions(definition || file.rootName, schema, file, '');
  const fields = spec?.fields.filter((field) => !present.has(field.name)) ?? [];
  if (fields.length === 0) return [];
  return ['Optional fields (docs/schema-reference.md):', ...fields.map((field) => {
    const type = field.type.replace(/\\\|/g, '|').replace(/`/g, '');
    const about = field.description ? ` — ${shorten(field.description)}` : '';
    return `  ${field.name}: ${type}${about}`;
  })];
}

/**
 * The first sentence, without `${…}`: plan substitutes installation variables in the whole text of a
 * package file, comments included, so a hint must not name one.
 */
function shorten(text: string): string {
  const sentence = text.split(/(?<=[.;])\s/)[0]!.replace(/[.;]$/, '').replace(/\$\{([^}]*)\}/g, '$$$1');
  return sentence.length > 110 ? `${sentence.slice(0, 107).trimEnd()}…` : sentence;
}
