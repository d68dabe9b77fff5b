/**
 * A line diff for `lock --check`: the lines that differ between the lock on disk and the one `lock` would
 * write, `-` for old and `+` for new, with one line of context around each change. Locks are small, so a
 * plain longest-common-subsequence table is enough.
 */
export function lineDiff(before: string, after: string): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const common = lcsTable(a, b);
  const lines: { mark: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ mark: ' ', text: a[i] });
      i += 1;
      j += 1;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      lines.push({ mark: '-', text: a[i++] });
    } else {
      lines.push({ mark: '+', text: b[j++] });
    }
  }
  const near = (index: number) => lines.slice(Math.max(0, index - 1), index + 2).some((line) => line.mark !== ' ');
  return lines.filter((line, index) => line.mark !== ' ' || near(index)).map((line) => `${line.mark} ${line.text}`).join('\n');
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** `table[i][j]`: length of the longest common subsequence of `a[i..]` and `b[j..]`. */
function lcsTable(a: readonly string[], b: readonly string[]): number[][] {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  return table;
}
