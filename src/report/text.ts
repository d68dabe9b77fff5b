import type { Finding } from '../model/finding.js';
import type { Paint } from './paint.js';
import { redactCredentials } from '../sources/source.js';

/** Lines of context above and below the reported line in a code frame. */
const CONTEXT = 2;

/**
 * One finding in compiler style — `file:line:col: severity code: message` — followed by a short code frame
 * with carets under the reported span and the hint. Without the source there is no frame, never a crash.
 */
export function renderFinding(finding: Finding, source: string | undefined, paint: Paint): string {
  const severity = finding.severity === 'error' ? paint.error('error') : finding.severity === 'warning' ? paint.warning('warning') : paint.dim('note');
  const head = `${finding.file}:${finding.line}:${finding.column}: ${severity} ${paint.bold(finding.code)}: ${finding.message}`;
  const out = [finding.suppressed ? `${head} ${paint.dim('(suppressed)')}` : head];
  if (source !== undefined) out.push(...codeFrame(finding, source, paint));
  if (finding.hint) out.push(`  ${paint.dim('hint:')} ${finding.hint}`);
  return out.join('\n');
}

/** The lines of the file last framed: findings come file by file, and splitting a large file per finding is quadratic. */
let framed: { source: string; lines: string[] } | undefined;

function linesOf(source: string): string[] {
  if (framed?.source !== source) framed = { source, lines: source.split(/\r?\n/) };
  return framed.lines;
}

function codeFrame(finding: Finding, source: string, paint: Paint): string[] {
  const lines = linesOf(source);
  if (finding.line < 1 || finding.line > lines.length) return [];
  const first = Math.max(1, finding.line - CONTEXT);
  const last = Math.min(lines.length, finding.line + CONTEXT);
  const gutter = String(last).length;
  const mark = finding.severity === 'error' ? paint.error : finding.severity === 'warning' ? paint.warning : paint.dim;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const text = redactCredentials(lines[n - 1] ?? ''); // a frame shows a URL, never its password
    const here = n === finding.line;
    out.push(`${here ? mark('>') : ' '} ${String(n).padStart(gutter)} | ${text}`);
    if (here) {
      const lead = ' '.repeat(displayWidth(text.slice(0, finding.column - 1)));
      out.push(`  ${' '.repeat(gutter)} | ${lead}${mark('^'.repeat(caretWidth(finding, text)))}`);
    }
  }
  return out;
}

/** Carets under the span on its first line; a span that goes on below is underlined to the line's end. */
function caretWidth(finding: Finding, text: string): number {
  const start = finding.column - 1;
  const end = finding.endLine === finding.line && finding.endColumn !== undefined ? finding.endColumn - 1 : text.length;
  return Math.max(1, displayWidth(text.slice(start, Math.max(start, end))));
}

/** Terminal columns of a string: code points, wide East Asian characters count twice. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    width += code >= 0x1100 && isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    code <= 0x115f ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
