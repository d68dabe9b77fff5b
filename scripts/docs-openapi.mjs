// Writes docs/core-openapi.json from the local core's route table (test/core/openapi.test.ts fails when it is stale).
import { renameSync, writeFileSync } from 'node:fs';
import { renderOpenApiFile } from '../dist/server/openapi.js';

const target = new URL('../docs/core-openapi.json', import.meta.url);
const temporary = new URL(`../docs/core-openapi.json.${process.pid}.tmp`, import.meta.url);
writeFileSync(temporary, renderOpenApiFile());
renameSync(temporary, target);
