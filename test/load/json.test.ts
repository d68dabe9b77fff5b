import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/load/json.js';
import { parseSource } from '../../src/load/source.js';

describe('JSON files', () => {
  it('loads values and lists integral floats', () => {
    const result = parseJson('{"a": 1, "b": 1.0, "c": [2.5, 1e3, -0], "d": {"e": 10E-1}}', 'x.json');
    expect(result.findings).toEqual([]);
    expect(result.document!.value).toEqual({ a: 1, b: 1, c: [2.5, 1000, 0], d: { e: 1 } });
    expect([...result.document!.floats].sort()).toEqual(['/b', '/c/1', '/d/e']);
  });

  it.each([
    ['{"a": 1,}', 1, 9, /expected a key in double quotes, found '}'/],
    ['{"a": 1}\n{"b": 2}', 2, 1, /unexpected text after the JSON value/],
    ['{\n  "a": tru\n}', 2, 8, /unexpected 't' where a value was expected/],
    ['{"a": "x', 1, 7, /the string is not closed/],
    ['{"a": 1,\n "a": 2}', 2, 2, /duplicate key 'a'/],
    ['[1e999]', 1, 2, /1e999 is not a finite number/],
    ['["\\ud800"]', 1, 3, /lone surrogate/],
    ['["a\tb"]', 1, 4, /control character/],
    ['', 1, 1, /the JSON ends where a value was expected/],
    ["{'a': 1}", 1, 2, /expected a key in double quotes/],
  ])('refuses %j at %i:%i', (text, line, column, message) => {
    const result = parseJson(text, 'bad.json');
    expect(result.document).toBeUndefined();
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ code: 'invalid_json', severity: 'error', file: 'bad.json', line, column });
    expect(result.findings[0]!.message).toMatch(message);
  });

  it('names the pointer of a duplicate key', () => {
    expect(parseJson('{"a": {"b": 1, "b": 2}}', 'd.json').findings[0]).toMatchObject({ path: '/a/b', line: 1, column: 16 });
  });

  it('locates keys, values and characters inside strings', () => {
    const text = '{\n  "type": "object",\n  "properties": {\n    "amount": {"type": "number", "description": "a\\tb\\u00e9c"}\n  }\n}\n';
    const document = parseJson(text, 's.json').document!;
    expect(document.locate('/properties/amount/type')).toEqual({ line: 4, column: 24, endLine: 4, endColumn: 32 });
    expect(document.locate('/properties/amount', 'key')).toMatchObject({ line: 4, column: 5 });
    expect(document.locate('/properties/missing')).toMatchObject({ line: 3, column: 3 });
    expect(document.locateInScalar('/properties/amount/description', 2)).toMatchObject({ line: 4, column: 53 }); // b after \t
    expect(document.locateInScalar('/properties/amount/description', 4)).toMatchObject({ line: 4, column: 60 }); // c after \u00e9
    expect(document.suppressions.size).toBe(0);
  });

  it('refuses bytes that are not UTF-8 where they are', () => {
    const bytes = new Uint8Array([...Buffer.from('{"a":\n "'), 0xff, ...Buffer.from('"}')]);
    expect(parseSource(bytes, 'latin.json').findings[0]).toMatchObject({ code: 'invalid_json', line: 2, column: 3 });
    expect(parseSource(bytes, 'latin.yaml').findings[0]).toMatchObject({ code: 'invalid_yaml', line: 2, column: 3 });
  });
});
