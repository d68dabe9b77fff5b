import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { createAjv, schemaFile, type SchemaName } from './ajv.js';

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
let runtimeAjv: ReturnType<typeof createAjv> | undefined;

/**
 * The validator of one public schema. The build precompiles them (start-up of `check` in a pre-commit hook
 * must not pay for compiling the schemas); from sources they are compiled on first use.
 */
export function validatorFor(name: SchemaName): ValidateFunction {
  const known = cache.get(name);
  if (known) return known;
  precompiled ??= loadPrecompiled();
  const validate = precompiled?.[PRECOMPILED_EXPORTS[name]] ?? compileAtRunTime(name);
  cache.set(name, validate);
  return validate;
}

/** Set by the bundled `check` (scripts/build-check-bundle.mjs): the validators inside the bundle, loaded lazily. */
const BUNDLED = Symbol.for('package-sdk.validators');

/**
 * CommonJS (ajv's standalone code requires its runtime helpers and formats), loaded with `require`: an ESM
 * `import` of it would first scan the whole 1.5 MB module for export names. The bundled `check` carries them
 * (so V8's code cache covers them).
 */
function loadPrecompiled(): Record<string, ValidateFunction> | undefined {
  const bundled = (globalThis as Record<symbol, unknown>)[BUNDLED] as (() => Record<string, ValidateFunction>) | undefined;
  try {
    return bundled ? bundled() : (createRequire(import.meta.url)('./validators.generated.cjs') as Record<string, ValidateFunction>);
  } catch {
    return undefined; // running from sources: compile on first use
  }
}

function compileAtRunTime(name: SchemaName): ValidateFunction {
  runtimeAjv ??= createAjv();
  const validate = runtimeAjv.getSchema(schemaFile(name));
  if (!validate) throw new Error(`schema/v1/${schemaFile(name)} is missing from the installation of package-sdk`);
  return validate;
}
