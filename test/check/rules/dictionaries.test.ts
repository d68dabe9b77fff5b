import { describe, expect, it } from 'vitest';
import { unbalancedBrace } from '../../../src/check/rules/dictionaries.js';

describe('unbalancedBrace: ICU MessageFormat braces, with apostrophe quoting', () => {
  it.each([
    ['plain text', 'Open requests', undefined],
    ['an argument', 'Hello, {name}', undefined],
    ['a plural with nested messages', '{count, plural, one {# request} other {# requests}}', undefined],
    ['a quoted literal brace', "Write '{' to open", undefined],
    ['a quoted part with both braces', "'{name}' is a placeholder", undefined],
    ['an escaped apostrophe', "It''s {count}", undefined],
    ['an apostrophe that quotes nothing', "It's {count}", undefined],
    ['an escaped apostrophe inside a quoted part', "'{it''s}' {x}", undefined],
    ['an unclosed argument', 'Hello, {name', { char: '{', offset: 7 }],
    ['an unclosed plural (the outer brace stays open)', '{count, plural, one {# request} other {# requests}', { char: '{', offset: 0 }],
    ['a closing brace that opens nothing', 'Order again}', { char: '}', offset: 11 }],
    ['a brace after an apostrophe that quotes it and never closes', "'{ {x}", undefined],
    ['a lone apostrophe, then an unclosed brace', "don't {x", { char: '{', offset: 6 }],
  ])('%s', (_name, text, expected) => {
    expect(unbalancedBrace(text)).toEqual(expected);
  });
});
