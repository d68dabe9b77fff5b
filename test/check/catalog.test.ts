import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeCatalog, renderFindingsDoc } from '../../src/check/catalog.js';

describe('the code catalog', () => {
  it('lists each code once, in snake_case, with a summary', () => {
    const codes = codeCatalog().map((info) => info.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const info of codeCatalog()) {
      expect(info.code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(info.summary.length).toBeGreaterThan(10);
    }
  });

  it('docs/findings.md is generated from it and up to date (npm run docs:findings)', () => {
    expect(readFileSync(new URL('../../docs/findings.md', import.meta.url), 'utf8')).toBe(renderFindingsDoc());
  });
});
