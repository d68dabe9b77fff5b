import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export const root = new URL('../../', import.meta.url).pathname;
export const REFERENCE_BUNDLE = join(root, '../shared/corpus/kernos/halcyon/bundle.json');
export const SPEC_BUNDLE = join(root, 'fixtures/bundle/spec.json');

export const referenceText = () => readFileSync(REFERENCE_BUNDLE, 'utf8');
export const specText = () => readFileSync(SPEC_BUNDLE, 'utf8');

/** The RFC 8032 §7.1 TEST 1 key (compat-kernos §2.2). */
export const RFC_SEED_HEX = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
export const RFC_PUBLIC_HEX = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

/** A temporary directory removed after the current test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
