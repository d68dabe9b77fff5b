/**
 * Where a cursor stands in a YAML buffer: the path of the node under it, whether on a key or a value, and the
 * scalar's extent — read from the buffer as typed (it may not load as a package file yet).
 */
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';

export type YamlPath = (string | number)[];

export interface Place {
  path: YamlPath;
  part: 'key' | 'value';
  /** The scalar under the cursor: its value and its offsets in the buffer. */
  scalar?: { value: unknown; start: number; end: number };
}

/** The place of `offset` in `text`, or undefined when it is on no node. */
export function placeAt(text: string, offset: number): Place | undefined {
  const document = parseDocument(text, { keepSourceTokens: false, uniqueKeys: false });
  return document.contents ? placeIn(document.contents as Node, offset, []) : undefined;
}

function placeIn(node: Node, offset: number, path: YamlPath): Place | undefined {
  if (isScalar(node)) {
    const [start, end] = node.range ?? [0, 0];
    return offset >= start && offset <= end ? { path, part: 'value', scalar: { value: node.value, start, end } } : undefined;
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      const [start, end] = pair.key.range ?? [0, 0];
      if (offset >= start && offset <= end) return { path: [...path, key], part: 'key', scalar: { value: key, start, end } };
      const value = pair.value as Node | null;
      if (value && inside(value, offset)) return placeIn(value, offset, [...path, key]);
    }
    return undefined;
  }
  if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      if (item && inside(item as Node, offset)) return placeIn(item as Node, offset, [...path, index]);
    }
  }
  return undefined;
}

function inside(node: Node, offset: number): boolean {
  const [start, end] = node.range ?? [0, 0];
  return offset >= start && offset <= end;
}

/** The key of the pair on the cursor's line, when the cursor stands after `key:` (the value being typed). */
export function keyBeforeCursor(line: string): { key: string; typed: string } | undefined {
  const match = /(?:^\s*|[{,]\s*|-\s+)([\w.$-]+):\s+(["']?)([^"',{}]*)$/.exec(line);
  return match ? { key: match[1]!, typed: match[3]! } : undefined;
}

/** True when the cursor stands where a new key of a block mapping is typed (`  disp|`). */
export function typingKey(line: string): boolean {
  return /^\s*(-\s+)?[\w$-]*$/.test(line);
}
