import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** The public schemas: what editors load and what stage 1 of `check` validates against. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../schema/v1/', import.meta.url));

export { schemaFile, type SchemaName } from './names.js';

/** Annotation keywords of editors (yaml-language-server, VS Code) that ajv's strict mode must know. */
const EDITOR_KEYWORDS = ['markdownDescription', 'deprecationMessage', 'defaultSnippets', 'errorMessage', 'x-intellij-html-description'];

// ajv-formats is a CommonJS module whose function is its default export.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/**
 * One configuration for validation at run time and for the validators precompiled at build time
 * (`scripts/build-validators.mjs`): every error (so the reducer can pick the one the author meant), with the
 * failing schema attached (for did-you-mean hints).
 */
export function createAjv(options: { standalone?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    ...(options.standalone ? { code: { source: true } } : {}),
  });
  addFormats(ajv);
  ajv.addVocabulary(EDITOR_KEYWORDS);
  for (const file of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort()) {
    ajv.addSchema(JSON.parse(readFileSync(`${SCHEMA_DIR}${file}`, 'utf8')) as object, file);
  }
  return ajv;
}

