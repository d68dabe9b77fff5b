/**
 * The local core's compact form and digest: the bytes its stored hashes (`specHash`, `wantedHash`, idempotency
 * fingerprints) were computed over, pinned so that a data directory written by an earlier version still compares
 * equal; and one equality of JSON values for the plan and the local core.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compactJson, kernosCanonicalJson, sameJson } from '../../src/json/canonical.js';
import { coreDigest, digestOfText } from '../../src/json/digest.js';

describe('the local core compact form', () => {
  it('sorts keys by UTF-16 code units, drops undefined members, writes undefined items and non-finite numbers as null', () => {
    const value = { b: 1.5, a: [1, undefined, 'x', Number.NaN], c: undefined, é: 2, Z: true, '\u{1F600}': null, '\uFFFF': 0 };
    expect(compactJson(value)).toBe('{"Z":true,"a":[1,null,"x",null],"b":1.5,"é":2,"\u{1F600}":null,"\uFFFF":0}');
    expect(compactJson(undefined)).toBe('null');
  });

  it('hashes as SHA-256 over the UTF-8 text, as the local core always has', () => {
    const value = { spec: { name: 'Zoë', steps: [{ id: 'a' }] } };
    const text = '{"spec":{"name":"Zoë","steps":[{"id":"a"}]}}';
    expect(compactJson(value)).toBe(text);
    expect(coreDigest(value)).toBe(`sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`);
    expect(digestOfText('{}')).toBe('sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('differs from the kernos form only in how numbers are written', () => {
    expect(kernosCanonicalJson({ b: [1, 'x'], a: 1e21 })).toBe('{"a":1e+21,"b":[1,"x"]}');
    expect(compactJson({ b: [1, 'x'], a: 1e21 })).toBe('{"a":1e+21,"b":[1,"x"]}');
    expect(kernosCanonicalJson({ a: 1e16, b: -0 })).toBe('{"a":1e+16,"b":-0.0}');
    expect(compactJson({ a: 1e16, b: -0 })).toBe('{"a":10000000000000000,"b":0}');
  });

  it('compares JSON values whatever the key order, an undefined member being no member', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, d: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameJson(undefined, null)).toBe(true);
  });
});
