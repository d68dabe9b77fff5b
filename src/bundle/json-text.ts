/**
 * JSON text of values read by the lossless parser, numbers as they were written: `JSON.stringify` would print
 * `7250.0` as `7250` and `1e16` as `10000000000000000`, and a bundle shown that way no longer matches the
 * canonical form its signature covers. Everything else prints as `JSON.stringify` prints it.
 */
import { JsonNumber } from '../json/parse.js';

/** `value` as JSON text, indented by `indent` spaces per level (0: compact), number lexemes kept. */
export function jsonText(value: unknown, indent = 0): string {
  return write(value, indent, '');
}

function write(value: unknown, indent: number, at: string): string {
  if (value instanceof JsonNumber) return value.lexeme;
  if (Array.isArray(value)) {
    const items = value.map((item) => write(item === undefined ? null : item, indent, at + ' '.repeat(indent)));
    return block('[', ']', items, indent, at);
  }
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .map(([name, member]) => `${JSON.stringify(name)}:${indent > 0 ? ' ' : ''}${write(member, indent, at + ' '.repeat(indent))}`);
    return block('{', '}', members, indent, at);
  }
  return JSON.stringify(value) ?? 'null';
}

function block(open: string, close: string, parts: readonly string[], indent: number, at: string): string {
  if (parts.length === 0) return `${open}${close}`;
  if (indent === 0) return `${open}${parts.join(',')}${close}`;
  const inner = at + ' '.repeat(indent);
  return `${open}\n${parts.map((part) => `${inner}${part}`).join(',\n')}\n${at}${close}`;
}
