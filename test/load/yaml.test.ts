import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/json/document.js';
import { ALIAS_EXPANSION_LIMIT, parseYaml } from '../../src/load/yaml.js';
import { expectExactScalarMap } from './expect-scalar.js';

function load(text: string): SourceDocument {
  const result = parseYaml(text, 'doc.yaml');
  expect(result.findings).toEqual([]);
  return result.document!;
}

function refusal(text: string) {
  const result = parseYaml(text, 'bad.yaml');
  expect(result.document).toBeUndefined();
  expect(result.findings.length).toBeGreaterThan(0);
  for (const finding of result.findings) expect(finding).toMatchObject({ code: 'invalid_yaml', severity: 'error', file: 'bad.yaml' });
  return result.findings;
}

describe('YAML syntax errors', () => {
  it('places a syntax error at its line and column', () => {
    const [finding] = refusal('apiVersion: taimen.ai/v1\nkind: TaskType\nspec:\n  a: [1, 2\n  b: 3\n');
    expect(finding).toMatchObject({ line: 5, column: 3 });
  });

  it('refuses tabs used as indentation where they are', () => {
    expect(refusal('spec:\n\tkey: 1\n')[0]).toMatchObject({ line: 2, column: 1 });
  });

  it('refuses a file with several documents', () => {
    const [finding] = refusal('a: 1\n---\nb: 2\n');
    expect(finding!.message).toMatch(/multiple documents/);
    expect(finding).toMatchObject({ line: 2, column: 1 });
  });

  it('refuses a document nested deeper than the stack', () => {
    const findings = refusal(`${'['.repeat(20000)}${']'.repeat(20000)}\n`);
    expect(findings[0]!.message).toBe('the document is nested too deeply');
  });

  it('loads an empty file as null', () => {
    expect(load('').value).toBeNull();
    expect(load('# only a comment\n').value).toBeNull();
  });
});

describe('keys', () => {
  it('refuses a duplicate key at the second one, naming the first', () => {
    const [finding] = refusal('spec:\n  displayName: A\n  version: 1.0.0\n  displayName: B\n');
    expect(finding).toMatchObject({ line: 4, column: 3, path: '/spec/displayName' });
    expect(finding!.message).toBe("duplicate key 'displayName' (first at line 2, column 3)");
  });

  it('finds duplicates after keys are resolved (012 and 12 are one key)', () => {
    expect(refusal('012: a\n12: b\n')[0]).toMatchObject({ line: 2, column: 1, path: '/12' });
  });

  it('refuses a key that is a collection', () => {
    const [finding] = refusal('? [a, b]\n: 1\n');
    expect(finding).toMatchObject({ line: 1, column: 3 });
    expect(finding!.message).toMatch(/mapping key must be a string/);
  });

  it('keeps __proto__ an ordinary key', () => {
    const value = load('__proto__: {polluted: true}\n').value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('anchors, aliases and merge keys', () => {
  it('expands aliases written by exporters', () => {
    const document = load('a: &id001\n  x: 1.0\n  y: [1, 2]\nb: *id001\n');
    expect(document.value).toEqual({ a: { x: 1, y: [1, 2] }, b: { x: 1, y: [1, 2] } });
    expect([...document.floats].sort()).toEqual(['/a/x', '/b/x']);
  });

  it('merges << with written keys first, then earlier sources', () => {
    const document = load('a: &a {x: 1, y: 1.0}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]\n  y: 3\n');
    expect((document.value as { c: unknown }).c).toEqual({ x: 1, y: 3, z: 2 });
    expect([...document.floats]).toEqual(['/a/y']); // c.y is the written integer 3
    expect(document.locate('/c/z')).toMatchObject({ line: 2, column: 17 }); // where the merged value is written
  });

  it('refuses a recursive alias at the alias', () => {
    const [finding] = refusal('a: &a\n  b: [1, *a]\n');
    expect(finding).toMatchObject({ line: 2, column: 10, path: '/a/b/1' });
    expect(finding!.message).toBe('recursive alias: the node contains itself');
  });

  it('refuses an alias to an unknown anchor', () => {
    expect(refusal('a: *nowhere\n')[0]).toMatchObject({ line: 1, column: 4, path: '/a' });
  });

  it(`refuses aliases expanding beyond ${ALIAS_EXPANSION_LIMIT} nodes (a "billion laughs")`, () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const name of 'bcdefg') {
      const previous = String.fromCharCode(name.charCodeAt(0) - 1);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const findings = refusal(`${levels.join('\n')}\n`);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(/^aliases expand into \d+ more nodes — over the limit 100000$/);
    expect(findings[0]).toMatchObject({ line: 5, path: '/e/7' }); // the alias that crossed the limit
  });

  it('accepts aliases within the limit', () => {
    const text = `base: &b [${Array(100).fill('1').join(', ')}]\nuses: [${Array(900).fill('*b').join(', ')}]\n`;
    expect((load(text).value as { uses: unknown[] }).uses).toHaveLength(900);
  });
});

describe('locate', () => {
  const text = 'apiVersion: taimen.ai/v1\nkind: TaskType\nkey: t\nspec:\n  displayName: Review\n  steps:\n    - id: a\n    - {id: b, when: x}\n';
  const document = load(text);

  it.each([
    ['', 'value', 1, 1],
    ['/kind', 'value', 2, 7],
    ['/kind', 'key', 2, 1],
    ['/spec/displayName', 'value', 5, 16],
    ['/spec/steps/1/when', 'value', 8, 21],
    ['/spec/steps/1/when', 'key', 8, 15],
    ['/spec/steps/0', 'value', 7, 7],
    ['/spec/missing', 'value', 4, 1], // a missing field: at its parent's key
    ['/spec/steps/7/id', 'value', 6, 3],
  ] as const)('%s (%s) → %i:%i', (pointer, part, line, column) => {
    expect(document.locate(pointer, part)).toMatchObject({ line, column });
  });

  it('gives the end of the node', () => {
    expect(document.locate('/spec/displayName')).toEqual({ line: 5, column: 16, endLine: 5, endColumn: 22 });
  });

  it('decodes ~0 and ~1 in pointers', () => {
    const d = load('paths:\n  a/b: 1\n  c~d: 2\n');
    expect(d.locate('/paths/a~1b')).toMatchObject({ line: 2, column: 8 });
    expect(d.locate('/paths/c~0d')).toMatchObject({ line: 3, column: 8 });
  });

  it('counts CRLF line ends as one', () => {
    expect(load('a: 1\r\nb: 2\r\n').locate('/b')).toMatchObject({ line: 2, column: 4 });
  });
});

describe('locateInScalar', () => {
  // Each scalar is checked character by character: the mapped place must hold that character, an
  // escape for it, or the line break that folding turned into it.
  const SCALARS: [name: string, yaml: string][] = [
    ['plain', 'x: data.amount > 100 && data.kind == "a"\n'],
    ['plain, folded over lines', 'x: data.amount > 100\n  && data.kind\n\n  == "a"\n'],
    ['single-quoted', "x: 'it''s data.a  ==  1'\n"],
    ['single-quoted over lines', "x: 'first\n   second\n\n   third'\n"],
    ['double-quoted with escapes', 'x: "a\\tb \\"q\\" \\u00e9 \\x41 \\\\ end"\n'],
    ['double-quoted over lines', 'x: "one  \n   two \\\n   three\\n\n\n   four"\n'],
    ['literal', 'x: |\n  line one\n    indented\n\n  last\n'],
    ['literal, strip', 'x: |-\n  a\n  b\n\n'],
    ['literal, keep', 'x: |+\n  a\n\n\n'],
    ['literal with indentation indicator', 'x: |2\n    starts with spaces\n  b\n'],
    ['folded', 'x: >\n  one\n  two\n\n  three\n    more\n  four\n'],
    ['folded, strip, nested', 'spec:\n  steps:\n    - when: >-\n        data.a &&\n        data.b\n'],
    ['CRLF literal', 'x: |\r\n  a\r\n  b\r\n'],
  ];

  it.each(SCALARS)('%s', (_name, text) => {
    const document = load(text);
    const pointer = (text.startsWith('spec') ? '/spec/steps/0/when' : '/x');
    const value = pointer === '/x' ? (document.value as { x: string }).x : 'data.a && data.b';
    expectExactScalarMap(document, pointer, value);
  });

  it('points past the end for the end offset', () => {
    expect(load('x: abc\n').locateInScalar('/x', 3)).toMatchObject({ line: 1, column: 7 });
  });

  it('falls back to the node for a non-scalar', () => {
    expect(load('x:\n  y: 1\n').locateInScalar('/x', 2)).toMatchObject({ line: 2, column: 3 });
  });
});

describe('suppressions', () => {
  it('reads disable-next-line comments, not text in scalars', () => {
    const document = load(
      [
        'spec:',
        '  # package-sdk-disable-next-line unknown_task_type unknown_role -- reviewed',
        '  a: 1',
        '  b: 2 # package-sdk-disable-next-line variable_unused',
        '  c: |',
        '    # package-sdk-disable-next-line not_a_comment',
        '  d: "# package-sdk-disable-next-line not_a_comment_either"',
        '',
      ].join('\n'),
    );
    expect([...document.suppressions]).toEqual([
      [3, ['unknown_task_type', 'unknown_role']],
      [5, ['variable_unused']],
    ]);
  });
});
