// The scalar table of the reference loader (compat-package-sdk-check.md §1.6), one row per rule:
// each YAML scalar is loaded as the value of `v` and must give exactly this value, or be refused.
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/load/yaml.js';

type Row = [yaml: string, expected: { value: unknown; float?: boolean } | { refused: RegExp }];
const value = (v: unknown, float = false) => ({ value: v, float });
const refused = (message: RegExp) => ({ refused: message });
const NOT_JSON = /a package holds only JSON values/;

const TABLE: Row[] = [
  // booleans: only the six YAML 1.2 spellings
  ['true', value(true)], ['True', value(true)], ['TRUE', value(true)],
  ['false', value(false)], ['False', value(false)], ['FALSE', value(false)],
  ['yes', value('yes')], ['no', value('no')], ['on', value('on')], ['off', value('off')], ['y', value('y')], ['n', value('n')],
  ['!!bool yes', refused(/'yes' is not a boolean/)],
  ['!!bool true', value(true)],
  // integers: decimal (leading zeros too), 0o, 0x; everything else is text
  ['012', value(12)], ['0o12', value(10)], ['0x1A', value(26)], ['+1', value(1)], ['-0', value(0)], ['-17', value(-17)],
  ['1_000', value('1_000')], ['0b101', value('0b101')], ['1:30', value('1:30')], ['-0x1A', value('-0x1A')], ['+0o7', value('+0o7')],
  ['9'.repeat(1001), refused(/1001 digits — more than 1000/)],
  ['9'.repeat(400), refused(/400 digits is beyond the range of a JSON number/)], ['9'.repeat(300), value(Number('9'.repeat(300)))],
  ['!!int x', refused(/'x' is not an integer/)], ['!!int 0b1', refused(/not an integer/)], ['!!int 1:30', refused(/not an integer/)],
  ['!!int "42"', value(42)],
  // floats: the YAML 1.1 syntax that needs a dot; non-finite values are not JSON
  ['1e3', value('1e3')], ['1e999', value('1e999')], ['1.0e+3', value(1000, true)], ['1.5', value(1.5, true)], ['1.0', value(1, true)],
  ['1_000.5', value(1000.5, true)], ['1:30.5', value(90.5, true)], ['.5', value(0.5, true)], ['-.5', value('-.5')], ['1.', value(1, true)],
  ['!!float 1e3', value(1000, true)], ['!!float 1_0', value(10, true)], ['!!float 7', value(7, true)],
  ['.inf', refused(NOT_JSON)], ['-.inf', refused(NOT_JSON)], ['.NaN', refused(NOT_JSON)], ['1.0e+999', refused(NOT_JSON)],
  ['!!float x', refused(/'x' is not a float/)],
  // null
  ['~', value(null)], ['null', value(null)], ['Null', value(null)], ['NULL', value(null)], ['', value(null)], ['!!null x', value(null)],
  // no timestamps
  ['2026-09-30', value('2026-09-30')], ['2026-09-30T10:00:00Z', value('2026-09-30T10:00:00Z')],
  ['!!timestamp 2026-09-30', refused(/value tagged !!timestamp: a package holds only JSON values/)],
  // only JSON tags
  ['!!binary aGk=', refused(/value tagged !!binary/)], ['!!set {a}', refused(/value tagged !!set/)],
  ['!!omap [{a: 1}]', refused(/value tagged !!omap/)], ['!!value x', refused(/value tagged !!value/)],
  ['!local x', refused(/value tagged !local/)], ['!!str 012', value('012')], ['! 012', value('012')],
  ['!!seq [1]', value([1])], ['!!map {a: 1}', value({ a: 1 })],
  // quoted scalars are always text
  ['"012"', value('012')], ["'true'", value('true')], ['"\\u00e9"', value('é')],
  ['"\\ud800"', refused(/lone surrogate/)], ['"\\udc00x"', refused(/lone surrogate/)], ['"\\ud83d\\ude00"', value('😀')],
];

describe('YAML scalars (the reference table)', () => {
  it.each(TABLE)('v: %s', (yaml, expected) => {
    const result = parseYaml(`v: ${yaml}\n`, 'table.yaml');
    if ('refused' in expected) {
      expect(result.document).toBeUndefined();
      expect(result.findings).toHaveLength(1);
      expect(result.findings[0]).toMatchObject({ code: 'invalid_yaml', severity: 'error', path: '/v', line: 1, column: 4 });
      expect(result.findings[0]!.message).toMatch(expected.refused);
      return;
    }
    expect(result.findings).toEqual([]);
    const document = result.document!;
    expect((document.value as { v: unknown }).v).toEqual(expected.value);
    expect(document.floats.has('/v')).toBe(expected.float === true && Number.isInteger(expected.value));
  });

  it('applies the same rules to mapping keys', () => {
    const result = parseYaml('{012: a, 1.0: b, true: c, null: d, "x": e}\n', 'keys.yaml');
    expect(result.findings).toEqual([]);
    expect(Object.keys(result.document!.value as object)).toEqual(['12', '1.0', 'true', 'null', 'x']);
  });

  it('keeps `on:` a key named "on"', () => {
    const result = parseYaml('on:\n  event: created\n', 'rule.yaml');
    expect(result.document!.value).toEqual({ on: { event: 'created' } });
  });

  it('is not changed by a %YAML 1.1 directive', () => {
    const result = parseYaml('%YAML 1.1\n---\na: yes\nb: 1_000\nc: 2026-09-30\nd: 0o12\n', 'old.yaml');
    expect(result.document!.value).toEqual({ a: 'yes', b: '1_000', c: '2026-09-30', d: 10 });
  });
});
