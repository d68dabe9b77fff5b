// Precompiles the public schemas into one CommonJS module of standalone validators (dist/schema/validators.generated.cjs),
// so that `check` starts without compiling the schemas, and the Draft 2020-12 metaschema that schemas embedded in
// packages are checked against (dist/schema/metaschema.generated.cjs). Run by `npm run build` after tsc.
import { writeFileSync, renameSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createAjv, schemaFile } from '../dist/schema/ajv.js';
import { METASCHEMA_ID, METASCHEMA_OPTIONS } from '../dist/schema/json-schema.js';
import { PRECOMPILED_EXPORTS } from '../dist/schema/validators.js';

const standalone = standaloneCode.default ?? standaloneCode;
const exports = Object.fromEntries(Object.entries(PRECOMPILED_EXPORTS).map(([name, id]) => [id, schemaFile(name)]));
write('validators.generated.cjs', standalone(createAjv({ standalone: true }), exports));
write('metaschema.generated.cjs', standalone(new Ajv2020({ ...METASCHEMA_OPTIONS, code: { source: true } }), { jsonSchema: METASCHEMA_ID }));

function write(file, code) {
  const target = new URL(`../dist/schema/${file}`, import.meta.url);
  const temporary = new URL(`../dist/schema/${file}.${process.pid}.tmp`, import.meta.url);
  writeFileSync(temporary, code);
  renameSync(temporary, target);
}
