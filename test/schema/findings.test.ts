/**
 * Stage 1 as `check` reports it: every invalid example of fixtures/schema/ (one mistake each, named on its
 * first line as `# invalid: <instancePath> <keyword>`) gives exactly one finding, at that node or one of its
 * members, on the line where the node is written: a `schema_violation`, or the core's code where the mistake
 * is in a part the core's domain validators check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreCodeOfSchemaError } from '../../src/schema/core-codes.js';
import { schemaFindings } from '../../src/schema/findings.js';
import { parseSource } from '../../src/load/source.js';

const ROOT = join(import.meta.dirname, '../../fixtures/schema');
const SCHEMA_OF: Record<string, 'object' | 'test' | 'lock' | 'plan' | 'knowledge-pack' | 'knowledge-template'> = {
  test: 'test',
  'knowledge-pack': 'knowledge-pack',
  lock: 'lock',
  plan: 'plan',
  'knowledge-template': 'knowledge-template',
};

const cases = readdirSync(ROOT).flatMap((kind) =>
  readdirSync(join(ROOT, kind))
    .filter((name) => name.startsWith('invalid-'))
    .map((name) => ({ kind, name, file: join(ROOT, kind, name) })),
);

describe('one schema finding per mistake', () => {
  it.each(cases)('$kind/$name', async ({ kind, file }) => {
    const text = readFileSync(file, 'utf8');
    const [, written, keyword] = /^# invalid: (\S*) (\S+)/.exec(text) ?? [];
    const pointer = written === '""' ? '' : written;
    expect(pointer, 'the fixture names its mistake').toBeDefined();
    const { document, findings: loadFindings } = parseSource(readFileSync(file), file);
    expect(loadFindings).toEqual([]);
    const isObject = typeof document!.value === 'object' && document!.value !== null && 'apiVersion' in document!.value;
    const findings = await schemaFindings(document!, isObject ? 'object' : (SCHEMA_OF[kind] ?? 'object'));
    expect(findings.map((f) => `${f.path} ${f.message}`), 'exactly one finding').toHaveLength(1);
    const [finding] = findings;
    const objectKind = isObject ? (document!.value as { kind?: unknown }).kind : undefined;
    expect(finding!.code).toBe(coreCodeOfSchemaError(objectKind, finding!.path, keyword!) ?? 'schema_violation');
    expect(`${finding!.path}/`.startsWith(`${pointer}/`), `${finding!.path} is at or under ${pointer}`).toBe(true);
    const key = document!.locate(pointer!, 'key');
    const value = document!.locate(pointer!, 'value');
    expect(finding!.line).toBeGreaterThanOrEqual(key.line);
    expect(finding!.line).toBeLessThanOrEqual(value.endLine ?? value.line);
  });
});
