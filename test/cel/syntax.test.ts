/** The untyped syntax tree analyses read: paths, calls, guards' connectives, at offsets of the text as written. */
import { describe, expect, it } from 'vitest';
import { parseSyntax, walkSyntax, type Syntax } from '../../src/cel/syntax.js';

function nodes(source: string, kind: Syntax['kind']): string[] {
  const found: string[] = [];
  const tree = parseSyntax(source);
  if (tree !== undefined) walkSyntax(tree, (node) => node.kind === kind && found.push(source.slice(node.start, node.end)));
  return found;
}

describe('parseSyntax', () => {
  it('is undefined for text that is not CEL', () => expect(parseSyntax('data.x &&')).toBeUndefined());

  it('finds calls in code, never inside string literals', () => {
    expect(nodes("sum(data.amount) + ' (sum) ' + \"count(x)\" + '''max(y)'''", 'call')).toEqual(['sum(data.amount)']);
    expect(nodes("r'\\\\' + max(x)", 'call')).toEqual(['max(x)']);
    expect(nodes('data.items.exists(i, i.n > count(data.x))', 'call')).toEqual(['data.items.exists(i, i.n > count(data.x))', 'count(data.x)']);
  });

  it('reads paths with their selections', () => {
    const tree = parseSyntax("data.?note.text + param['a'].b");
    const paths: [string, string[], string[]][] = [];
    walkSyntax(tree!, (node) => node.kind === 'path' && paths.push([node.root, [...node.segments], [...node.selections]]));
    expect(paths).toEqual([['data', ['note', 'text'], ['.?', '.']], ['param', ['a', 'b'], ['[]', '.']]]);
  });

  it('gives offsets of the text as written when it holds installation variables', () => {
    const source = 'data.amount > ${CLAIMS_LIMIT} && count(data.x) > 0';
    // An undeclared variable stands as dyn(0), a call spanning its ${…}.
    expect(nodes(source, 'call')).toEqual(['${CLAIMS_LIMIT}', 'count(data.x)']);
    expect(nodes(source, 'compare')).toEqual(['data.amount > ${CLAIMS_LIMIT}', 'count(data.x) > 0']);
  });

  it('flattens && and || chains', () => {
    const tree = parseSyntax('a && (b && c) || d');
    expect(tree?.kind).toBe('or');
    expect(tree?.kind === 'or' && tree.operands.map((operand) => operand.kind)).toEqual(['and', 'path']);
    expect(tree?.kind === 'or' && tree.operands[0]!.kind === 'and' && tree.operands[0]!.operands).toHaveLength(3);
  });
});
