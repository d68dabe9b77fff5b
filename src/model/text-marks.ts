/**
 * What the check asks of the text of every object before it reads the object's value: whether a package's
 * variables (`${NAME}`) or a process's knowledge sections may be written in it — most objects hold neither,
 * so their values are never walked. The check's index keeps the answers beside each file, so that an
 * unchanged object answers without its text being read (`SourceDocument.includes`).
 */

/** Where a package's variables are written: `${NAME}`. */
export const VARIABLE_MARK = '${';

/** The sections of a process that read or write the knowledge base. */
export const KNOWLEDGE_SECTIONS: ReadonlySet<string> = new Set(['memory', 'recall', 'remember', 'context']);

/** The texts the index answers `includes` for without reading a document's text (at most eight: a byte a file). */
export const TEXT_MARKS: readonly string[] = [VARIABLE_MARK, ...KNOWLEDGE_SECTIONS];

/** The marks `text` holds, bit `i` for `TEXT_MARKS[i]`. */
export function textMarksOf(text: string): number {
  return TEXT_MARKS.reduce((bits, mark, i) => (text.includes(mark) ? bits | (1 << i) : bits), 0);
}
