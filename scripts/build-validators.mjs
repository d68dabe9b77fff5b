// Precompiles the public schemas into one CommonJS module of standalone validators (dist/schema/validators.generated.cjs),
// so that `check` starts without compiling the schemas. Run by `npm run build` after tsc.
import { writeFileSync, renameSync } from 'node:fs';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createAjv, schemaFile } from '../dist/schema/ajv.js';
import { PRECOMPILED_EXPORTS } from '../dist/schema/validators.js';

const ajv = createAjv({ standalone: true });
const exports = Object.fromEntries(Object.entries(PRECOMPILED_EXPORTS).map(([name, id]) => [id, schemaFile(name)]));
const code = (standaloneCode.default ?? standaloneCode)(ajv, exports);
const target = new URL('../dist/schema/validators.generated.cjs', import.meta.url);
const temporary = new URL(`../dist/schema/validators.generated.cjs.${process.pid}.tmp`, import.meta.url);
writeFileSync(temporary, code);
renameSync(temporary, target);
