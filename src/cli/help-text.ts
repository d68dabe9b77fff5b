/**
 * Help text written as prose. The source of a description breaks its lines where the editor wants them; help
 * wraps again at the width of the terminal, so a hard break left in the text would give a long line followed
 * by a short one. `prose` makes each paragraph one line and leaves the wrapping to help, at any width.
 *
 * A blank line separates paragraphs. A line starting with "- " is a list item and keeps a line of its own;
 * the lines after it belong to it until the next item or blank line.
 */
const ITEM = /^- /;

export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  return reflow(strings.reduce((text, part, index) => `${text}${String(values[index - 1])}${part}`));
}

/** The text with every paragraph and list item on one line, paragraphs still apart by a blank line. */
export function reflow(text: string): string {
  return text
    .trim()
    .split(/\n[ \t]*\n/)
    .map((block) => blockLines(block).join('\n'))
    .join('\n\n');
}

function blockLines(block: string): string[] {
  const lines: string[] = [];
  for (const line of block.split('\n').map((raw) => raw.trim())) {
    if (lines.length === 0 || ITEM.test(line)) lines.push(line);
    else lines[lines.length - 1] += ` ${line}`;
  }
  return lines;
}
