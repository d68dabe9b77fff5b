/**
 * The unified diff `edit --dry-run` prints (`diff -u` / `git diff` form, three lines of context), so that a
 * person or a review tool sees exactly what the edit would write. Object files are small: a plain
 * longest-common-subsequence table is enough.
 */
const CONTEXT = 3;

interface Line {
  mark: ' ' | '-' | '+';
  text: string;
  /** 1-based line numbers in the old and the new text (of the line, or of where it would be). */
  old: number;
  new: number;
}

/** The diff of `before` and `after` as the file `from` becomes `to`; '' when they are equal. */
export function unifiedDiff(from: string, to: string, before: string, after: string): string {
  if (before === after && from === to) return '';
  const header = `--- ${before === '' ? '/dev/null' : `a/${from}`}\n+++ ${after === '' ? '/dev/null' : `b/${to}`}\n`;
  const lines = compare(splitLines(before), splitLines(after));
  const hunks = hunksOf(lines).map(renderHunk);
  return header + hunks.join('');
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

function compare(a: readonly string[], b: readonly string[]): Line[] {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  }
  const lines: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) lines.push({ mark: ' ', text: a[i++]!, old: i, new: ++j });
    else if (i < a.length && (j === b.length || table[i + 1]![j]! >= table[i]![j + 1]!)) lines.push({ mark: '-', text: a[i++]!, old: i, new: j + 1 });
    else lines.push({ mark: '+', text: b[j++]!, old: i + 1, new: j });
  }
  return lines;
}

/** Runs of changed lines with their context, neighbouring runs merged. */
function hunksOf(lines: readonly Line[]): Line[][] {
  const hunks: Line[][] = [];
  let start = -1;
  let end = -1;
  lines.forEach((line, index) => {
    if (line.mark === ' ') return;
    const from = Math.max(0, index - CONTEXT);
    if (start >= 0 && from <= end + 1) {
      end = Math.min(lines.length - 1, index + CONTEXT);
      return;
    }
    if (start >= 0) hunks.push(lines.slice(start, end + 1));
    start = from;
    end = Math.min(lines.length - 1, index + CONTEXT);
  });
  if (start >= 0) hunks.push(lines.slice(start, end + 1));
  return hunks;
}

function renderHunk(hunk: readonly Line[]): string {
  const olds = hunk.filter((line) => line.mark !== '+');
  const news = hunk.filter((line) => line.mark !== '-');
  // An empty side names the line before the hunk, as diff -u does.
  const range = (lines: readonly Line[], side: 'old' | 'new'): string => `${lines.length === 0 ? hunk[0]![side] - 1 : lines[0]![side]},${lines.length}`;
  return `@@ -${range(olds, 'old')} +${range(news, 'new')} @@\n${hunk.map((line) => `${line.mark}${line.text}\n`).join('')}`;
}
