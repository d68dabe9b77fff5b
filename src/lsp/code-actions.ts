/** Quick fixes: take the finding's "did you mean" suggestion, or silence the code on that line with the comment check reads. */
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import type { DiagnosticData } from './diagnostics.js';
import { SOURCE } from './diagnostics.js';

const SUGGESTION = /did you mean '([^']+)'\?/;

export function codeActionsFor(uri: string, text: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  return diagnostics.filter((diagnostic) => diagnostic.source === SOURCE).flatMap((diagnostic) => [
    ...suggestionFix(uri, diagnostic),
    suppression(uri, text, diagnostic),
  ]);
}

function suggestionFix(uri: string, diagnostic: Diagnostic): CodeAction[] {
  const suggested = SUGGESTION.exec((diagnostic.data as DiagnosticData | undefined)?.hint ?? '')?.[1];
  if (suggested === undefined) return [];
  return [{
    title: `Change to '${suggested}'`,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: true,
    edit: { changes: { [uri]: [{ range: diagnostic.range, newText: suggested }] } },
  }];
}

/** `# package-sdk-disable-next-line <code>` above the line, indented as the line is. */
function suppression(uri: string, text: string, diagnostic: Diagnostic): CodeAction {
  const line = diagnostic.range.start.line;
  const indent = /^\s*/.exec(text.split('\n')[line] ?? '')![0];
  return {
    title: `Silence ${String(diagnostic.code)} on this line`,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    edit: { changes: { [uri]: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${indent}# package-sdk-disable-next-line ${String(diagnostic.code)}\n` }] } },
  };
}
