import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaFile, type SchemaName } from './names.js';

/** Export names of the precompiled module (identifiers) by schema. */
export const PRECOMPILED_EXPORTS: Record<SchemaName, string> = {
  object: 'object',
  test: 'test',
  lock: 'lock',
  plan: 'plan',
  view: 'view',
  'knowledge-pack': 'knowledgePack',
  'knowledge-template': 'knowledgeTemplate',
};

const cache = new Map<SchemaName, ValidateFunction>();
let precompiled: Record<string, ValidateFunction> | undefined;
let runtimeAjv: Promise<Ajv2020> | undefined;

/**
 * The validator of one public schema. The build precompiles them (start-up of `check` in a pre-commit hook
 * must not pay for compiling the schemas); from sources they are compiled on first use.
 */
export async function validatorFor(name: SchemaName): Promise<ValidateFunction> {
  const known = cache.get(name);
  if (known) return known;
  loadValidators();
  const validate = precompiled?.[PRECOMPILED_EXPORTS[name]] ?? (await compileAtRunTime(name));
  cache.set(name, validate);
  return validate;
}

/**
 * Loads the precompiled validators now rather than on first use: V8 takes their code cache only under the
 * flags it was made with, so whoever changes a V8 flag in the middle of a run loads them first.
 */
export function loadValidators(): void {
  precompiled ??= loadPrecompiled();
}

/** Set by the bundled `check` (bin/check-bundle.js): the validators run from V8's code cache, loaded on first use. */
const BUNDLED = Symbol.for('package-sdk.validators');

/**
 * A validator the bundled `check` offers beside the public schemas' (the metaschema, `jsonSchema`), from the
 * same code cache; undefined when running from the modules.
 */
export function bundledValidator(exportName: string): ValidateFunction | undefined {
  return bundledValidators()?.[exportName];
}

/** The validators the bundled `check` offers (loaded on the first call), or undefined when running from the modules. */
function bundledValidators(): Record<string, ValidateFunction> | undefined {
  return ((globalThis as Record<symbol, unknown>)[BUNDLED] as (() => Record<string, ValidateFunction>) | undefined)?.();
}

/**
 * CommonJS (ajv's standalone code requires its runtime helpers and formats), loaded with `require`: an ESM
 * `import` of it would first scan the whole 1.5 MB module for export names. The bundled `check` provides them
 * from V8's code cache.
 */
function loadPrecompiled(): Record<string, ValidateFunction> | undefined {
  try {
    return bundledValidators() ?? (createRequire(import.meta.url)('./validators.generated.cjs') as Record<string, ValidateFunction>);
  } catch {
    return undefined; // running from sources: compile on first use
  }
}

/** From sources (no build): ajv compiles the schema, loaded only then — a built check never needs it. */
async function compileAtRunTime(name: SchemaName): Promise<ValidateFunction> {
  runtimeAjv ??= import('./ajv.js').then(({ createAjv }) => createAjv());
  const validate = (await runtimeAjv).getSchema(schemaFile(name));
  if (!validate) throw new Error(`schema/v1/${schemaFile(name)} is missing from the installation of package-sdk`);
  return validate;
}
