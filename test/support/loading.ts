/**
 * The text of a script that keeps what it loads, as a check keeps its documents until its rules have run: 6,000
 * "files" of 200 objects, calling `holdYoungGeneration()` (which the script imports) before each file when `hold`.
 * Enough for V8 to grow the young generation to its largest without the hold.
 */
export function keptWhileLoading(hold: boolean): string {
  return `{
    const kept = [];
    for (let file = 0; file < 6000; file++) {
      ${hold ? 'holdYoungGeneration();' : ''}
      for (let i = 0; i < 200; i++) kept.push({ file, i, name: 'n' + file + '.' + i });
    }
  }`;
}
