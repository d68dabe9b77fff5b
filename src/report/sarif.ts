import type { Finding } from '../model/finding.js';

/** Static Analysis Results Interchange Format 2.1.0, for code scanning. */
export function renderSarif(findings: readonly Finding[], tool: { version: string; summaries: ReadonlyMap<string, string> }): string {
  const codes = [...new Set(findings.map((f) => f.code))].sort();
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'package-sdk',
            version: tool.version,
            informationUri: 'https://taimen.ai/docs/package-sdk',
            rules: codes.map((code) => ({
              id: code,
              shortDescription: { text: tool.summaries.get(code) ?? code },
              helpUri: `https://taimen.ai/docs/package-sdk/findings#${code}`,
            })),
          },
        },
        results: findings.map((f) => ({
          ruleId: f.code,
          ruleIndex: codes.indexOf(f.code),
          level: f.severity,
          message: { text: f.hint ? `${f.message} (${f.hint})` : f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.file.split('\\').join('/') },
                region: {
                  startLine: f.line,
                  startColumn: f.column,
                  ...(f.endLine !== undefined ? { endLine: f.endLine } : {}),
                  ...(f.endColumn !== undefined ? { endColumn: f.endColumn } : {}),
                },
              },
            },
          ],
          ...(f.path ? { properties: { pointer: f.path } } : {}),
          ...(f.suppressed ? { suppressions: [{ kind: 'inSource', justification: 'package-sdk-disable-next-line' }] } : {}),
        })),
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}
