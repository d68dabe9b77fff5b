/**
 * Whether a regular expression compiles, as the core's Python `re` compiles it. JavaScript reads most of
 * Python's syntax; the forms it writes differently are translated first, so that a pattern the core accepts
 * is never refused here.
 */

/** Python-only forms and their JavaScript equivalents. */
const PYTHON_FORMS: readonly [RegExp, string][] = [
  [/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, '(?<$1>'], // named group
  [/\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/g, '\\k<$1>'], // named back-reference
  [/\\A/g, '^'],
  [/\\Z/g, '$'],
];
/** Leading inline flags, `(?i)`, which JavaScript takes as flags of the whole expression. */
const INLINE_FLAGS = /^\(\?([aiLmsux]+)\)/;

/** Why `pattern` does not compile, or undefined when it does. */
export function regexProblem(pattern: string): string | undefined {
  let source = pattern;
  let flags = '';
  const inline = INLINE_FLAGS.exec(source);
  if (inline) {
    flags = [...new Set(inline[1]!.replace(/[aLux]/g, ''))].join('');
    source = source.slice(inline[0].length);
  }
  for (const [form, replacement] of PYTHON_FORMS) source = source.replace(form, replacement);
  try {
    new RegExp(source, flags);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
}
