import { describe, expect, it } from 'vitest';
import { bundleDigest, canonicalBundleBytes, canonicalJson, JsonSyntaxError, parseJson } from '../../src/bundle/index.js';
import { REPAIR_FACTS, repairText, tamperedRepairText } from './helpers.js';

const canonical = (text: string) => new TextDecoder().decode(canonicalBundleBytes(text));

describe('canonical JSON (compat-kernos §2.1)', () => {
  it.each([
    ['{"b": 1, "a": {"z": [1, 2, {"y": null}], "c": true}}', '{"a":{"c":true,"z":[1,2,{"y":null}]},"b":1}'],
    ['{"s": "a\\"b\\\\c\\n\\t\\u0001é", "i": 7250, "f": 7250.5, "n": -3, "z": 0.1}', '{"f":7250.5,"i":7250,"n":-3,"s":"a\\"b\\\\c\\n\\t\\u0001é","z":0.1}'],
    ['{"x": 1}', '{"x":1}'],
    ['{"\\ud83d\\ude00": 1, "～": 2}', '{"😀":1,"～":2}'],
  ])('repository vector %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it.each([
    ['{"total":1250.0}', '{"total":1250.0}', '5f622b18788a75890f664648443d85bd18c8cc8d2b5bf914b472cdfaa2c75fd6'],
    ['{"total":1250}', '{"total":1250}', '00c40daa84497e66158c30929395d2dd395946e405345e9f76ffc0cb2813b71d'],
    ['{"é":1,"z":2,"😀":3,"～":4,"A":5,"a":[0.1,-0.0,1e16,1.5e-7]}', '{"A":5,"a":[0.1,-0.0,1e+16,1.5e-7],"z":2,"é":1,"😀":3,"～":4}',
      '2bb2f229a587f8d15a062f4f9c7e96c78a81b7bda130a6ffa915c9ab0d281f5f'],
  ])('computed vector %s', (input, expected, sha) => {
    expect(canonical(input)).toBe(expected);
    expect(bundleDigest(input)).toBe(sha);
  });

  it('reproduces the repair-orders bundle: the bytes and sha256 computed apart, number lexemes as written', () => {
    const text = new TextDecoder().decode(canonicalBundleBytes(repairText()));
    expect(Buffer.byteLength(text)).toBe(REPAIR_FACTS.canonicalBytes);
    expect(text.startsWith('{"department":"workshop","description":"Repair orders of the Brightwater plant-hire workshop: fault reports read,')).toBe(true);
    expect(text.endsWith(',"id":"crash","kind":"tool","tool":"test.break"}]}}}')).toBe(true);
    // 25000.0 stays an integral float, where JCS would print 25000
    expect(text).toContain('"maximum":25000.0,"minimum":0,"type":"number"');
    expect(bundleDigest(repairText())).toBe(REPAIR_FACTS.sha256);
  });

  it('changes the digest when one character of the description changes (the A11 tamper)', () => {
    expect(bundleDigest(tamperedRepairText())).toBe(REPAIR_FACTS.tamperedSha256);
  });

  it('hashes the empty input as SHA-256 does', async () => {
    const { sha256Hex } = await import('../../src/bundle/index.js');
    expect(sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it.each([
    ['-0', '-0.0'], ['0.0', '0.0'], ['100.0', '100.0'], ['1000000000000000.0', '1000000000000000.0'], ['1234567890123456.8', '1234567890123456.8'],
    ['0.00001', '0.00001'], ['0.000001', '1e-6'], ['1e21', '1e+21'], ['5e-324', '5e-324'], ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['18446744073709551615', '18446744073709551615'], ['18446744073709551616', '1.8446744073709552e+19'],
    ['-9223372036854775808', '-9223372036854775808'], ['-9223372036854775809', '-9.223372036854776e+18'], ['1E2', '100.0'],
  ])('prints the number %s as serde_json does: %s', (lexeme, expected) => {
    expect(canonical(`[${lexeme}]`)).toBe(`[${expected}]`);
  });

  it('refuses repeated keys: serde_json keeps the last, another reader the first, and the two read different bundles', () => {
    expect(() => canonical('{"a":1,"a":2}')).toThrow(/duplicate key 'a'/);
    expect(() => canonical('{"x":{"version":"9.9.9","version":"1.0.0"}}')).toThrow(JsonSyntaxError);
  });

  it.each([
    ['1e-23', '1.0000000000000001e-23'], ['1.2345678901234567890123', '1.2345678901234567'], ['4.9406564584124654e-324', '5e-324'],
    ['0e99999999999', '0.0'], ['-1e-99999999999', '-0.0'], ['123456789012345678901234567890', '1.2345678901234568e+29'],
  ])('reads the float %s as serde_json without float_roundtrip does: %s', (lexeme, expected) => {
    expect(canonical(`{"v":${lexeme}}`)).toBe(`{"v":${expected}}`);
  });

  it('refuses a number serde_json finds out of range, with its place', () => {
    expect(() => canonicalBundleBytes('{"v": 1e99999999999}')).toThrow(/1e99999999999 is (not a finite number|out of the range serde_json reads)/);
  });

  it('treats __proto__ as an ordinary key', () => {
    expect(canonicalJson(parseJson('{"__proto__":{"x":1},"a":[]}').value)).toBe('{"__proto__":{"x":1},"a":[]}');
  });

  it.each([
    ['{"a":1,}', 1, 8], ['[1, 2', 1, 6], ['{"a": 01}', 1, 8], ['"\\ud800"', 1, 2], ['[1e400]', 1, 2], ['{"a":1} x', 1, 9], ['\n\n  nope', 3, 3],
  ])('rejects %j with a line and column', (text, line, column) => {
    try {
      canonicalBundleBytes(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(JsonSyntaxError);
      expect(error).toMatchObject({ line, column });
    }
  });

  it('refuses nesting of 128 levels, as the recursion limit of serde_json does', () => {
    expect(() => canonicalBundleBytes('['.repeat(128) + ']'.repeat(128))).toThrow(/nested deeper than 127 levels/);
    expect(canonical('['.repeat(127) + ']'.repeat(127))).toBe('['.repeat(127) + ']'.repeat(127));
  });
});
