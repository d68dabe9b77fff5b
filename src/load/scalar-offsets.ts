/**
 * Where each character of a parsed string was written: the inverse of YAML's quoting, escaping,
 * line folding and block-scalar indentation, so that a finding at character N of an expression
 * points at the right line and column of the file.
 *
 * Each function returns `offsets` with one source offset per UTF-16 unit of the parsed value plus one
 * for the end. Callers compare the rebuilt `value` with the parser's and fall back to the node's start
 * when they differ, so an unusual layout costs precision, never correctness.
 */
export interface ScalarMap {
  value: string;
  offsets: number[];
}

export type ScalarStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

/** The character map of the scalar written at `text[start, end)` in `style`. */
export function mapScalar(text: string, start: number, end: number, style: ScalarStyle): ScalarMap[] {
  switch (style) {
    case 'PLAIN':
      return [mapFlow(text, start, end, 'plain')];
    case 'QUOTE_SINGLE':
      return [mapFlow(text, start + 1, end - 1, 'single')];
    case 'QUOTE_DOUBLE':
      return [mapFlow(text, start + 1, end - 1, 'double')];
    default:
      return mapBlock(text, start, end, style === 'BLOCK_FOLDED');
  }
}

const isBreak = (c: string | undefined): boolean => c === '\n' || c === '\r';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';

class Builder {
  value = '';
  offsets: number[] = [];
  push(chars: string, offset: number): void {
    this.value += chars;
    for (let i = 0; i < chars.length; i++) this.offsets.push(offset);
  }
  truncate(length: number): void {
    this.value = this.value.slice(0, length);
    this.offsets.length = length;
  }
  finish(end: number): ScalarMap {
    this.offsets.push(end);
    return { value: this.value, offsets: this.offsets };
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Plain and quoted scalars: line folding, plus `''` or backslash escapes. */
function mapFlow(text: string, from: number, to: number, quoting: 'plain' | 'single' | 'double'): ScalarMap {
  const out = new Builder();
  let kept = 0; // length of the value up to its last character that line folding must not trim
  let i = from;
  while (i < to) {
    const c = text[i]!;
    if (isBreak(c)) {
      out.truncate(kept);
      i = foldLineBreaks(text, i, to, out);
      kept = out.value.length;
      continue;
    }
    let literalBlank = false; // unescaped blanks before a line break are trimmed, escaped ones kept
    if (quoting === 'single' && c === "'" && text[i + 1] === "'") {
      out.push("'", i);
      i += 2;
    } else if (quoting === 'double' && c === '\\') {
      const next = text[i + 1];
      if (isBreak(next)) {
        // An escaped line break joins the lines with nothing between them.
        i = skipBreak(text, i + 1);
        while (i < to && isBlank(text[i])) i++;
      } else if (next !== undefined && next in HEX_ESCAPES) {
        const width = HEX_ESCAPES[next]!;
        const code = parseInt(text.slice(i + 2, i + 2 + width), 16);
        out.push(code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '', i);
        i += 2 + width;
      } else {
        out.push(SIMPLE_ESCAPES[next ?? ''] ?? '', i);
        i += 2;
      }
    } else {
      out.push(c, i);
      literalBlank = isBlank(c);
      i++;
    }
    if (!literalBlank) kept = out.value.length;
  }
  return out.finish(to);
}

function skipBreak(text: string, i: number): number {
  return text[i] === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1;
}

/**
 * A line break inside a flow scalar: with no empty line after it, it reads as one space; otherwise the
 * break is dropped and each empty line reads as a newline. Leading blanks of the next line are dropped.
 */
function foldLineBreaks(text: string, i: number, to: number, out: Builder): number {
  const first = i;
  let empty = 0;
  i = skipBreak(text, i);
  for (;;) {
    while (i < to && isBlank(text[i])) i++;
    if (i < to && isBreak(text[i])) {
      out.push('\n', i);
      empty++;
      i = skipBreak(text, i);
    } else break;
  }
  if (empty === 0) out.push(' ', first);
  return i;
}

interface BlockLine {
  start: number; // offset of the first character of the line
  end: number; // offset of its line break (or of the scalar's end)
  next: number; // offset of the next line
}

/** Literal `|` and folded `>` scalars: header indicators, indentation, folding and chomping. */
function mapBlock(text: string, start: number, end: number, folded: boolean): ScalarMap[] {
  let i = start + 1;
  let chomp: 'clip' | 'strip' | 'keep' = 'clip';
  while (i < end && !isBreak(text[i]) && !isBlank(text[i]) && text[i] !== '#') {
    if (text[i] === '-') chomp = 'strip';
    else if (text[i] === '+') chomp = 'keep';
    i++;
  }
  while (i < end && !isBreak(text[i])) i++;
  const lines: BlockLine[] = [];
  i = i < end ? skipBreak(text, i) : end;
  while (i < end) {
    let lineEnd = i;
    while (lineEnd < end && !isBreak(text[lineEnd])) lineEnd++;
    const next = lineEnd < end ? skipBreak(text, lineEnd) : end;
    lines.push({ start: i, end: lineEnd, next });
    i = next;
  }
  // The explicit indentation indicator counts from the parent's indentation, which the scalar's own
  // text does not show: offer every indentation and let the caller keep the one that matches.
  const detected = detectIndent(text, lines);
  const candidates = [detected];
  for (let n = 0; n <= detected + 9; n++) if (n !== detected) candidates.push(n);
  return candidates.map((indent) => foldBlock(text, lines, indent, folded, chomp, end));
}

function detectIndent(text: string, lines: readonly BlockLine[]): number {
  for (const line of lines) {
    let n = line.start;
    while (n < line.end && text[n] === ' ') n++;
    if (n < line.end) return n - line.start;
  }
  return 0;
}

function foldBlock(
  text: string,
  lines: readonly BlockLine[],
  indent: number,
  folded: boolean,
  chomp: 'clip' | 'strip' | 'keep',
  end: number,
): ScalarMap {
  const out = new Builder();
  const contentOf = (line: BlockLine): number => Math.min(line.start + indent, line.end);
  const isEmpty = (line: BlockLine): boolean => {
    for (let n = line.start; n < line.end; n++) if (text[n] !== ' ' || n >= line.start + indent) return false;
    return true;
  };
  let last = lines.length - 1;
  while (last >= 0 && isEmpty(lines[last]!)) last--;
  let previousText: 'text' | 'spaced' | undefined;
  let pendingBreak: number | undefined; // the break after the previous content line
  let emptyBreaks: number[] = [];
  for (let n = 0; n <= last; n++) {
    const line = lines[n]!;
    if (isEmpty(line)) {
      emptyBreaks.push(line.end);
      continue;
    }
    const content = contentOf(line);
    const kind = isBlank(text[content]) ? 'spaced' : 'text';
    if (pendingBreak !== undefined) {
      if (folded && previousText === 'text' && kind === 'text') {
        if (emptyBreaks.length === 0) out.push(' ', pendingBreak);
      } else out.push('\n', pendingBreak);
    }
    for (const at of emptyBreaks) out.push('\n', at);
    emptyBreaks = [];
    for (let k = content; k < line.end; k++) out.push(text[k]!, k);
    previousText = kind;
    pendingBreak = line.end;
  }
  if (pendingBreak !== undefined && chomp !== 'strip' && pendingBreak < end) out.push('\n', pendingBreak);
  if (chomp === 'keep') {
    for (let n = Math.max(0, last + 1); n < lines.length; n++) {
      if (lines[n]!.end < end || lines[n]!.next > lines[n]!.end) out.push('\n', lines[n]!.end);
    }
  }
  return out.finish(end);
}
