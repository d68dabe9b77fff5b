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
let precompiled: Promise<Record<string, ValidateFunction> | undefined> | undefined;
let runtimeAjv: ReturnType<typeof createAjv> | undefined;

/**
 * The validator of one public schema. The build precompiles them (start-up of `check` in a pre-commit hook
 * must not pay for compiling the schemas); from sources they are compiled on first use.
 */
export async function validatorFor(name: SchemaName): Promise<ValidateFunction> {
  const known = cache.get(name);
  if (known) return known;
  precompiled ??= import(new URL('./validators.generated.js', import.meta.url).href).then(
    (m: Record<string, ValidateFunction>) => m,
    () => undefined,
  );
  const validate = (await precompiled)?.[PRECOMPILED_EXPORTS[name]] ?? compileAtRunTime(name);
  cache.set(name, validate);
  return validate;
}

function compileAtRunTime(name: SchemaName): ValidateFunction {
  runtimeAjv ??= createAjv();
  const validate = runtimeAjv.getSchema(schemaFile(name));
  if (!validate) throw new Error(`schema/v1/${schemaFile(name)} is missing from the installation of package-sdk`);
  return validate;
}
