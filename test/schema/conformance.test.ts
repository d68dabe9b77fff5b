/**
 * The schemas follow the reference field tables field for field: the reference's own conformance tool
 * (../shared/tools/schema-conformance) must find every definition, every required set and every enum.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));
const SCHEMA_DIR = fileURLToPath(new URL('../../schema/v1/', import.meta.url));

describe('schema/v1 against the reference field tables', () => {
  it('matches every definition, required set and enum', () => {
    const output = execFileSync(
      'python3',
      [`${SHARED}tools/schema-conformance`, `${SHARED}reference/package-schema-reference.json`, SCHEMA_DIR, '--verbose'],
      { encoding: 'utf8' },
    );
    const lines = output.trim().split('\n');
    const [, matched, total, required, enums, enumTotal] =
      /(\d+)\/(\d+) definitions matched, (\d+)\/\d+ required sets equal, (\d+)\/(\d+) enums equal/.exec(lines.at(-1)!) ?? [];
    expect(lines.slice(0, -1)).toEqual([]); // --verbose prints every miss
    expect(Number(total)).toBeGreaterThan(200);
    expect([matched, required, enums]).toEqual([total, total, enumTotal]);
  });
});
