// Writes docs/findings.md from the catalog of codes, src/check/catalog.ts (test/check/catalog.test.ts fails when it is stale).
import { renameSync, writeFileSync } from 'node:fs';
import { renderFindingsDoc } from '../dist/check/catalog.js';

const target = new URL('../docs/findings.md', import.meta.url);
const temporary = new URL(`../docs/findings.md.${process.pid}.tmp`, import.meta.url);
writeFileSync(temporary, renderFindingsDoc());
renameSync(temporary, target);
