/** Writers leave a string unquoted only when YAML 1.1, YAML 1.2 core and the core's loader all read it as that string. */
import { describe, expect, it } from 'vitest';
import { isPlainSafe, toAuthoredYaml } from '../../src/author/yaml-writer.js';
import { parseYaml } from '../../src/load/yaml.js';

describe('authored YAML', () => {
  it.each([
    ['claim-review', true], ['hello world', true], ['claims.classify@1', true], ['role:claims-owner', true],
    ['yes', false], ['y', false], ['N', false], ['on', false], ['Off', false], ['true', false], ['null', false], ['~', false],
    ['012', false], ['1e3', false], ['1_000', false], ['1:30', false], ['2026-09-30', false], ['0x1A', false], ['+1', false], ['.inf', false],
    ['a: b', false], ['x #y', false], ['#x', false], ['- x', false], ['>=0.9,<0.11', false], ['{x}', false], ['*x', false], ['', false], [' x', false],
  ])('%j plain: %s', (text, plain) => expect(isPlainSafe(text)).toBe(plain));

  it('quotes values in single quotes and keys in double quotes, and reads back the same value', () => {
    const value = { on: { observation: 'yes' }, when: '1:30', range: '>=0.9,<0.11', note: "it's", lines: 'a\nb', list: ['y', 'n', 'ok'], n: 3, b: true };
    const text = toAuthoredYaml(value);
    expect(text).toContain(`"on":\n  observation: 'yes'\n`);
    expect(text).toContain(`when: '1:30'\n`);
    expect(text).toContain(`list: [ 'y', 'n', ok ]`.replace(/\[ | \]/g, (m) => m.trim()));
    const { document, findings } = parseYaml(text, 'x.yaml');
    expect(findings).toEqual([]);
    expect(document?.value).toEqual(value);
  });

  it('writes hints as comments at the end of a mapping', () => {
    const text = toAuthoredYaml({ spec: { name: 'x' } }, { header: ['first', '', 'second'], hints: ['Optional:', '  a: string'], hintsAt: 'spec' });
    expect(text).toBe('# first\n#\n# second\nspec:\n  name: x\n  # Optional:\n  #   a: string\n');
  });
});
