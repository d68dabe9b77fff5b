import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validatorFor } from '../../src/schema/validators.js';
import { contentHash } from '../../src/sources/content-hash.js';
import { lockHash, type LockDocument } from '../../src/sources/lock-file.js';
import { lock } from '../../src/lock/lock.js';
import { Sandbox } from '../lock/repos.js';
import { corpus } from './corpus.js';

/** The lock vectors of compat-package-sdk-install §7 that name files of the corpus, and the lock of its claims example. */
let sandbox: Sandbox | undefined;
afterEach(async () => sandbox?.dispose());

describe('lockHash of the reference lock fixture', () => {
  it('sorts its two entries by key: helpdesk-crm, notify', () => {
    const fixture = JSON.parse(readFileSync(corpus('fixtures/schema/lock.json'), 'utf8')) as LockDocument;
    expect(fixture.packages.map((entry) => entry.key)).toEqual(['notify', 'helpdesk-crm']);
    expect(lockHash(fixture.packages)).toBe('sha256:6da19bad6b8bf1c6cc8df11d72bac21cba8c7e1c4e67e36fa5a7e568f98ba3dd');
  });
});

describe('the lock of the claims example', () => {
  it('is valid against schema/v1/lock.schema.json', async () => {
    sandbox = new Sandbox();
    const claims = corpus('claims/claims');
    const install = sandbox.path('packages.yaml');
    await writeFile(install, `apiVersion: taimen.ai/v1\nkind: Installation\nkey: claims-example\nspec:\n  packages:\n` +
      `    - {key: claims, path: ${relative(sandbox.root, claims)}}\n`);
    const report = await lock({ install, cacheDir: sandbox.cache });
    expect(report.findings).toEqual([]);
    const written = JSON.parse(await readFile(sandbox.path('packages.lock'), 'utf8'));
    const validate = await validatorFor('lock');
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
    expect(written.packages).toEqual([{ key: 'claims', version: '0.1.1', source: { path: relative(sandbox.root, claims) },
      contentHash: await contentHash(claims) }]);
  });
});
