/**
 * The core takes at most 1,000 files of a package in one request: check reports a larger package as the
 * core's invalid_request, with the count, at its manifest — and a package at the limit passes. (A case of
 * fixtures/check would need a thousand files; this one is generated.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { CORE_MAX_PACKAGE_FILES } from '../../src/check/rules/package-size.js';

const scratch = mkdtempSync(join(tmpdir(), 'package-sdk-size-'));

/** A package of `roles` roles: with its manifest, `roles + 1` files. */
function packageOf(roles: number): string {
  const dir = join(scratch, `big-${roles}`, 'big');
  mkdirSync(join(dir, 'roles'), { recursive: true });
  writeFileSync(join(dir, 'package.yaml'), 'apiVersion: taimen.ai/v1\nkind: Package\nkey: big\nspec:\n  version: 1.0.0\n  displayName: Big\n');
  for (let i = 0; i < roles; i++) writeFileSync(join(dir, 'roles', `r${i}.yaml`), `apiVersion: taimen.ai/v1\nkind: Role\nkey: r${i}\nspec: {name: Role ${i}}\n`);
  return dir;
}

describe('the core\'s limit on the files of a package', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes a package of exactly 1,000 files', async () => {
    const { report } = await check({ cwd: scratch, packages: [packageOf(CORE_MAX_PACKAGE_FILES - 1)] });
    expect(report.errors.filter((f) => f.code === 'invalid_request')).toEqual([]);
  });

  it('reports a package of 1,001 files at its manifest, with the count', async () => {
    const { report } = await check({ cwd: scratch, packages: [packageOf(CORE_MAX_PACKAGE_FILES)] });
    expect(report.errors.filter((f) => f.code === 'invalid_request')).toEqual([
      expect.objectContaining({
        file: 'big-1000/big/package.yaml',
        line: 1,
        path: '',
        message: 'package big holds 1001 files the core reads, more than the 1000 it takes in one request (/package/files)',
      }),
    ]);
  });
});
