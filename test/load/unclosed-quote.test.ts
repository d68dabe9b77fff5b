/** A quoted scalar that is never closed is reported where its quote opens, not at the end of the file. */
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/load/yaml.js';

const at = (text: string): string[] => parseYaml(text, 'roles/r.yaml').findings.map((f) => `${f.line}:${f.column} ${f.code}: ${f.message}`);

describe('an unclosed quote', () => {
  it('double: at the opening quote', () => {
    expect(at('apiVersion: taimen.ai/v1\nkind: Role\nkey: r\nspec:\n  name: "Driver\n  description: x\n\n')).toEqual(['5:9 invalid_yaml: Missing closing "quote']);
  });

  it('double, after a closed one and an escaped quote inside: at the quote that is not closed', () => {
    expect(at('a: "one"\nb: "two \\" still two\nc: x\n')).toEqual(['2:4 invalid_yaml: Missing closing "quote']);
  });

  it("single: at the opening quote", () => {
    expect(at("a: 'one'\nb: 'two\n")).toEqual(["2:4 invalid_yaml: Missing closing 'quote"]);
  });
});
