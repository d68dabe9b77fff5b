import type { Finding } from '../model/finding.js';

/** GitHub Actions workflow commands: each finding becomes an annotation on the file and line. */
export function renderGithub(findings: readonly Finding[]): string {
  return findings
    .filter((f) => !f.suppressed)
    .map((f) => {
      const properties = [
        `file=${property(f.file)}`,
        `line=${f.line}`,
        `col=${f.column}`,
        ...(f.endLine !== undefined ? [`endLine=${f.endLine}`] : []),
        ...(f.endColumn !== undefined && f.endLine === f.line ? [`endColumn=${f.endColumn}`] : []),
        `title=${property(f.code)}`,
      ].join(',');
      return `::${f.severity === 'note' ? 'notice' : f.severity} ${properties}::${data(f.hint ? `${f.message} (${f.hint})` : f.message)}`;
    })
    .join('\n');
}

function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
