/**
 * `# package-sdk-disable-next-line <code> [<code>…] [-- reason]` comments: the codes silenced on the
 * line after the comment. A `#` inside a quoted or block scalar is text, not a comment.
 */
import { positionAt } from './load-finding.js';

const DIRECTIVE = /(^|[ \t])#[ \t]*package-sdk-disable-next-line\b([^\r\n]*)/gm;
const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * @param textRanges offsets `[start, end)` of the quoted and block scalars, sorted by start.
 */
export function findSuppressions(
  text: string,
  lineStarts: readonly number[],
  textRanges: readonly (readonly [number, number])[],
): Map<number, string[]> {
  const suppressions = new Map<number, string[]>();
  if (!text.includes('package-sdk-disable-next-line')) return suppressions;
  for (const match of text.matchAll(DIRECTIVE)) {
    const hash = match.index + match[1]!.length;
    if (insideRange(textRanges, hash)) continue;
    const codes: string[] = [];
    for (const word of match[2]!.trim().split(/[\s,]+/)) {
      if (word === '--') break;
      if (CODE.test(word)) codes.push(word);
    }
    if (codes.length === 0) continue;
    const line = positionAt(lineStarts, hash).line + 1;
    suppressions.set(line, [...(suppressions.get(line) ?? []), ...codes]);
  }
  return suppressions;
}

function insideRange(ranges: readonly (readonly [number, number])[], offset: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = ranges[mid]!;
    if (offset < start) high = mid - 1;
    else if (offset >= end) low = mid + 1;
    else return true;
  }
  return false;
}
