/**
 * The scanner of common package YAML against the full parser: on every YAML file of the repository and on
 * small cases of each construct, a file the scanner accepts gives the same value, floats, suppressions and
 * positions (of every node, its key, past its end and inside its strings) as the full parser; a file it
 * gives up on is the full parser's alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/json/document.js';
import { childPointer } from '../../src/json/pointer.js';
import { parseYaml, parseYamlFully } from '../../src/load/yaml.js';
import { scanYaml } from '../../src/load/yaml-scan.js';
import { sourceFilesUnder } from './loads-clean.js';

const ROOT = join(import.meta.dirname, '../..');

/** Every pointer of `value`, with a child that does not exist below each. */
function pointersOf(value: unknown, pointer = ''): string[] {
  const below = childPointer(pointer, 'not-there');
  if (value === null || typeof value !== 'object') return [pointer, below];
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  return [pointer, below, ...entries.flatMap(([key, item]) => pointersOf(item, childPointer(pointer, key)))];
}

/** What a document tells of itself: its value and floats, and where every pointer of it is. */
function observe(document: SourceDocument) {
  const positions = pointersOf(document.value).map((pointer) => {
    const inScalar = [0, 1, 5, 1000].map((offset) => document.locateInScalar(pointer, offset));
    return { pointer, value: document.locate(pointer), key: document.locate(pointer, 'key'), inScalar };
  });
  return {
    json: JSON.stringify(document.value),
    floats: [...document.floats].sort(),
    suppressions: [...document.suppressions],
    positions,
  };
}

/** The scanner's reading of `text` equals the full parser's; false when the scanner gives up. */
function expectSameAsFullParser(text: string): boolean {
  if (scanYaml(text) === undefined) return false;
  const scanned = parseYaml(text, 'a.yaml');
  const full = parseYamlFully(text, 'a.yaml');
  expect(full.findings).toEqual([]);
  expect(scanned.findings).toEqual([]);
  expect(observe(scanned.document!)).toEqual(observe(full.document!));
  return true;
}

describe('the scanner of common package YAML', () => {
  it('reads every YAML file of the repository as the full parser does, and most of them', () => {
    const files = ['fixtures']
      .flatMap((dir) => sourceFilesUnder(ROOT, join(ROOT, dir)))
      .filter((file) => /\.ya?ml$/.test(file));
    let scanned = 0;
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (parseYamlFully(text, file).findings.length > 0) {
        expect(scanYaml(text), file).toBeUndefined(); // bad YAML is the full parser's to report
        continue;
      }
      try {
        if (expectSameAsFullParser(text)) scanned++;
      } catch (error) {
        throw new Error(`${file}: ${(error as Error).message}`);
      }
    }
    expect(files.length).toBeGreaterThan(1000);
    expect(scanned / files.length).toBeGreaterThan(0.5);
  });

  it('reads what it accepts of randomly edited fixtures as the full parser does, and refuses nothing the full parser takes for bad YAML', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const texts = sourceFilesUnder(ROOT, join(ROOT, 'fixtures/check'))
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => readFileSync(join(ROOT, file), 'utf8'))
      .filter((text) => scanYaml(text) !== undefined);
    const pieces = [':', ' ', '-', '#', '\n', '"', "'", '  ', '- ', ': ', '{', '}', '[', ']', ',', '|', '>', '|-', '>-', 'x', '1.0', '\n  ', '\n- ', ' #c', '~', '  a: b\n', '\n\n'];
    let accepted = 0;
    for (let i = 0; i < 1500; i++) {
      let text = texts[random(texts.length)]!;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length + 1);
        text = text.slice(0, at) + (random(3) > 0 ? pieces[random(pieces.length)] : '') + text.slice(at + random(3));
      }
      if (expectSameAsFullParser(text)) accepted++;
    }
    expect(accepted).toBeGreaterThan(500);
  });

  it.each([
    ['block mappings and sequences', 'a: 1\nb:\n  c: x y\n  d:\n    - 1\n    - k: v\n      j: "q"\n\ne: [a, {b: c}]\n'],
    ['a sequence at the indentation of its key', 'a:\n- 1\n- x: y\n  z: w\nb: 2\n'],
    ['comments everywhere', '# head\na: 1 # one\n# between\nb:\n  # inside\n  - x   # item\n\n  - y\n# tail\n'],
    ['a suppression comment', 'a:\n  # package-sdk-disable-next-line some_code -- why\n  b: "#x"\n'],
    ['quoted keys and values', '"a b": \'it\'\'s\'\n\'c\': "d: e # f"\n'],
    ['scalars that resolve', 'a: 1.0\nb: 0x1F\nc: true\nd: ~\ne: -3\nf: 1.5\n1.0: x\nnull: y\n'],
    ['plain scalars holding indicators', 'a: b[1] {c}, d\ne: http://x.y/z#w\nf: x:y\n'],
    ['flow collections nested', 'a: {b: [1, 2.0, {c: "d"}], e: {}, f: []}\n'],
    ['a mapping as the last item', 'a:\n  - b: 1\n    c:\n      d: 2\n'],
    ['no newline at the end', 'a:\n  b: c'],
    ['__proto__ as a key', '__proto__: 1\nb: {__proto__: 2}\n'],
    ['literal block scalars', 'a: |\n  x\n\n  # text\n# comment\nb: |-\n    y\n     z\n\n\nc:\n  - |\n    w\n  - v\n'],
    ['folded block scalars', 'a: >-\n  x\n  y\n\n  z \n\n\n  w\nb: >\n\n  v\nc: > # why\n  u'],
    ['a folded block scalar with more-indented lines', 'a: >\n  x\n   y\n\n   z\n  w\n\n  v\n  u\nb: 1\n'],
    ['a block scalar ending a nested mapping', 'a:\n  b: |\n    x\n\nc: 1\n'],
    ['multi-line flow collections', 'a: {b: 1,\n   c: [x,\n# note\n\n     y], d:\n  2}\ne:\n- {f: 1,\n g: 2}\n'],
  ])('reads %s as the full parser does', (_name, text) => {
    expect(expectSameAsFullParser(text)).toBe(true);
  });

  it('reads block scalars of any lines as the full parser does', () => {
    let seed = 21;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const kinds = ['text', 'more indented', '', 'a b '];
    let scanned = 0;
    for (let i = 0; i < 400; i++) {
      const lines = Array.from({ length: 1 + random(6) }, () => kinds[random(kinds.length)]!);
      const body = lines.map((line) => (line === '' ? '' : line.startsWith('more') ? `     ${line}` : `    ${line}`)).join('\n');
      const header = `${['|', '>'][random(2)]}${['', '-'][random(2)]}`;
      if (expectSameAsFullParser(`a:\n  b: ${header}\n${body}\n${random(2) ? '\n' : ''}  c: 1\n`)) scanned++;
    }
    expect(scanned).toBeGreaterThan(200);
  });

  it.each([
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a merge key', 'a: {b: 1}\nc:\n  <<: {b: 2}\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a flow collection not indented past its mapping', 'a:\n  b: [1,\n  2]\n'],
    ['a multi-line scalar in a flow collection', 'a: [one\n  two]\n'],
    ['a kept block scalar', 'a: |+\n  x\n\n'],
    ['a block scalar with an indentation indicator', 'a: |2\n   x\n'],
    ['an empty block scalar', 'a: |\nb: 1\n'],
    ['an escape', 'a: "\\u0041"\n'],
    ['an empty value', 'a:\nb: 1\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a document marker', '---\na: 1\n'],
    ['a tab', 'a:\t1\n'],
    ['a carriage return', 'a: 1\r\n'],
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['a mapping in a value', 'a: b: c\n'],
    ['an indented continuation', 'a:\n  b: 1\n   c: 2\n'],
    ['a root that is no mapping', '- 1\n'],
    ['a trailing comma', 'a: [1, ]\n'],
    ['a comment line closing a nested collection', 'a:\n  - b: 1\n  #c: 2\nd: 3\n'],
    ['an indented comment line closing the document', 'a: 1\n #c\n'],
  ])('gives %s to the full parser', (_name, text) => {
    expect(scanYaml(text)).toBeUndefined();
  });
});
