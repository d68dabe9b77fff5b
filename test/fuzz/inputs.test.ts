// Fuzzing every reader of untrusted input: damaged copies of our own bundles, signatures, keys and package files
// must give a finding or a typed refusal, never an exception, and a bundle that reads must hash and validate.
// Bounded in count (FUZZ_INPUTS, default 10 000) and in time (FUZZ_SECONDS, default 30); deterministic by
// FUZZ_SEED, so a failure names the seed and the round that replays it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../../src/fs/refusal.js';
import { JsonSyntaxError, parseJson, SERDE_JSON } from '../../src/json/parse.js';
import { kernosCanonicalBytes } from '../../src/json/canonical.js';
import { loadPublicKey } from '../../src/bundle/keys.js';
import { verifyBundleSignature } from '../../src/bundle/signature.js';
import { validateBundle } from '../../src/bundle/validate.js';
import { parseSource } from '../../src/load/source.js';
import { lineStartsOf } from '../../src/load/load-finding.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures');
const INPUTS = Number(process.env.FUZZ_INPUTS ?? 10_000);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 19);

const read = (file: string) => readFileSync(resolve(FIXTURES, file), 'utf8');
const RFC_PUBLIC = read('bundle/keys/rfc8032.pub');
const MINIMAL = read('bundle/minimal.json');
const SIGNATURE = JSON.stringify({ algorithm: 'ed25519', key_id: 'rfc8032', sha256: '0'.repeat(64), signature: 'A'.repeat(86) });

/** Pieces that break parsers: structure, escapes, surrogates, odd numbers, YAML indicators, NUL, deep nesting. */
const DAMAGE = [
  '{', '}', '[', ']', ',', ':', '"', '\\', '\\u', '\\ud800', '\\udc00', '\\ud83d\\ude00', '\ud800', '\u0000', '\u2028', '\uFEFF',
  '-0', '1e-23', '1e400', '1e-99999999999', '18446744073709551616', '-9223372036854775809', '0.1e309', '1.0', '01', 'NaN', 'true', 'null',
  '"version": "9.9.9", "version": "1.0.0",', '"a":1,"a":2', '&a', '*a', '!!binary', '<<: *a', '? ', '- ', '|', '>', '#', '%YAML 1.2\n', '---\n', '...\n', '\t', '\n', '\r',
  '{"$ref": 1}', '{{', '}}', '{{steps.}}', '{{input}}', '=', '+', '/', '-----BEGIN PUBLIC KEY-----',
];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function mutate(text: string, next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  let out = text;
  const edits = 1 + Math.floor(next() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * (out.length + 1));
    const how = next();
    if (how < 0.45) out = out.slice(0, at) + pick(DAMAGE) + out.slice(at);
    else if (how < 0.65) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 30));
    else if (how < 0.8) out = out.slice(0, at) + String.fromCharCode(Math.floor(next() * 0x110)) + out.slice(at + 1);
    else if (how < 0.9) out = out.slice(0, at);
    else {
      const depth = 1 + Math.floor(next() * 140);
      out = out.slice(0, at) + '['.repeat(depth) + ']'.repeat(depth) + out.slice(at);
    }
  }
  return out;
}

interface Target {
  name: string;
  seeds: readonly string[];
  /** Reads one input; throws only on a defect. */
  run(text: string): void;
}

const expectedRefusal = (error: unknown) => error instanceof JsonSyntaxError || error instanceof Refusal;

const TARGETS: Target[] = [
  {
    name: 'bundle',
    seeds: [read('bundle/spec.json'), MINIMAL, read('bundle/repair-orders.json')],
    run(text) {
      let parsed;
      try {
        parsed = parseJson(text, SERDE_JSON);
      } catch (error) {
        if (expectedRefusal(error)) return;
        throw error;
      }
      kernosCanonicalBytes(parsed.value);
      const result = validateBundle(parsed, 'fuzz.json');
      for (const problem of [...result.errors, ...result.warnings]) {
        expect(problem.line).toBeGreaterThanOrEqual(1);
        expect(problem.line).toBeLessThanOrEqual(lineStartsOf(text).length);
      }
    },
  },
  {
    name: 'signature',
    seeds: [SIGNATURE],
    run(text) {
      const verdict = verifyBundleSignature(MINIMAL, text, [{ keyId: 'rfc8032', publicKey: new Uint8Array(32) }]);
      expect(verdict.ok).toBe(false);
    },
  },
  {
    name: 'key file',
    seeds: [RFC_PUBLIC, read('bundle/keys/rfc8032-spki.pem'), read('bundle/keys/rfc8032-seed.hex'), read('bundle/keys/rfc8032.key')],
    run(text) {
      try {
        loadPublicKey('fuzz.pub', text);
      } catch (error) {
        if (!expectedRefusal(error)) throw error;
      }
    },
  },
  {
    name: 'package YAML',
    seeds: [read('load/valid/packages/base/roles/reviewer.yaml'), read('load/valid/packages/base/skills/classify.yaml'), read('load/valid/packages/base/package.yaml')],
    run(text) {
      const result = parseSource(new TextEncoder().encode(text), 'fuzz.yaml');
      for (const finding of result.findings) expect(finding.line).toBeGreaterThanOrEqual(1);
    },
  },
  {
    name: 'package JSON',
    seeds: [read('bundle/tools.json'), read('bundle/input.json')],
    run(text) {
      const result = parseSource(new TextEncoder().encode(text), 'fuzz.json');
      for (const finding of result.findings) expect(finding.line).toBeGreaterThanOrEqual(1);
    },
  },
];

describe('fuzzed input', () => {
  it(`reads ${INPUTS} damaged inputs (seed ${SEED}) without an exception, within ${SECONDS} s`, () => {
    const next = random(SEED);
    const deadline = performance.now() + SECONDS * 1000;
    const counts = new Map<string, number>();
    let round = 0;
    for (; round < INPUTS && performance.now() < deadline; round++) {
      const target = TARGETS[round % TARGETS.length]!;
      const seed = target.seeds[Math.floor(next() * target.seeds.length)]!;
      const input = mutate(seed, next);
      try {
        target.run(input);
      } catch (error) {
        throw new Error(`${target.name}, round ${round} (FUZZ_SEED=${SEED}): ${(error as Error).stack ?? String(error)}\ninput: ${JSON.stringify(input).slice(0, 2000)}`);
      }
      counts.set(target.name, (counts.get(target.name) ?? 0) + 1);
    }
    expect(round, `only ${round} inputs within ${SECONDS} s`).toBe(INPUTS);
    expect([...counts.values()].every((count) => count > 0)).toBe(true);
  });
});
