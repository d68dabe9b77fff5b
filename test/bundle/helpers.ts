import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export const root = new URL('../../', import.meta.url).pathname;
export const KEYS = join(root, 'fixtures/bundle/keys');
export const SPEC_BUNDLE = join(root, 'fixtures/bundle/spec.json');

/**
 * The rich bundle of the suites: the repair orders of a plant-hire workshop, five workflows using every step
 * kind, both template forms, escalation, refusal outcomes, compensations and the test tools. Its input and the
 * canned tool results of a mock run stand beside it.
 */
export const REPAIR_BUNDLE = join(root, 'fixtures/bundle/repair-orders.json');
export const REPAIR_INPUT = join(root, 'fixtures/bundle/repair-orders.input.json');
export const REPAIR_TOOLS = join(root, 'fixtures/bundle/repair-orders.tools.json');

/**
 * Facts of the repair-orders bundle, computed apart from this project's code: the canonical bytes by Python's
 * `json.dumps(sort_keys=True, separators=(',', ':'), ensure_ascii=False)` (the same bytes as serde_json for
 * this bundle's numbers), the signature by `openssl pkeyutl -sign -rawin` with the RFC 8032 TEST 1 key.
 */
export const REPAIR_FACTS = {
  name: 'brightwater.workshop.repair_orders',
  version: '1.4.0',
  canonicalBytes: 10742,
  sha256: '92fa94f670e9f72d46d32eb9205c7d683d9c2d5b3f4fc3059f6b34217d5d4495',
  /** After the last character of the description, `.`, became `!`. */
  tamperedSha256: 'ce306366868cae645426273d0ff8ba369f347c8a80f9ac59b61a08f96d6a8300',
  rfc8032Signature: 'lNxdITf85l3vbvJUnPARfoCiHCfj9wHWg2VmzPT4k6FCwJ2OTo3PvRmO9AmzfrOCaVb-JNi_WuFEFSoCFQNcAA',
} as const;

export const repairText = () => readFileSync(REPAIR_BUNDLE, 'utf8');
/** The repair-orders bundle with one character of its description changed. */
export const tamperedRepairText = () => repairText().replace('workshop bays booked."', 'workshop bays booked!"');
export const specText = () => readFileSync(SPEC_BUNDLE, 'utf8');

/** The RFC 8032 §7.1 TEST 1 key (compat-kernos §2.2). */
export const RFC_SEED_HEX = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
export const RFC_PUBLIC_HEX = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
export const RFC_KEY_ID = 'key_01hrfc8032test100000000000';

/** A temporary directory removed after the current test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
