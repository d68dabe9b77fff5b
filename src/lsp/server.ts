/**
 * `package-sdk lsp`: the language server. Every open or changed buffer checks the workspace with the unsaved
 * buffers in place of their files, and the findings go out as diagnostics of every file they are in; the
 * other requests read the package graph of the latest check and the buffer as typed.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind, type Connection, type InitializeParams } from 'vscode-languageserver/node';
import { codeActionsFor } from './code-actions.js';
import { completionsAt } from './completion.js';
import { diagnosticsByFile } from './diagnostics.js';
import { hoverAt } from './hover.js';
import { dataDefinition, dataFieldAt, dataReferences, definitionOf, nameAt, processAt, referencesTo, renameEdit } from './navigation.js';
import { uriOf } from './ranges.js';
import { WorkspaceCheck } from './workspace-check.js';

export interface ServerOptions {
  /** The workspace when the client names none (default: the working directory). */
  root?: string;
  version: string;
}

/** Serves the protocol on stdin/stdout until the client exits. */
export function serveStdio(options: ServerOptions): void {
  startServer(createConnection(ProposedFeatures.all, process.stdin, process.stdout), options);
}

export function startServer(connection: Connection, options: ServerOptions): void {
  const documents = new TextDocuments(TextDocument);
  let checked = new WorkspaceCheck(realRoot(options.root ?? process.cwd()));
  // A check that fails is a bug of ours: the editor's log shows it, and the next change checks again.
  const checks = new CheckQueue(() => publish().catch((error: unknown) => connection.console.error(`check failed: ${error instanceof Error ? error.stack : String(error)}`)));
  let published = new Set<string>();

  connection.onInitialize((params) => {
    checked = new WorkspaceCheck(realRoot(rootOf(params) ?? checked.root));
    return {
      serverInfo: { name: 'package-sdk', version: options.version },
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [':', ' ', '@', '.'] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        codeActionProvider: true,
      },
    };
  });

  /**
   * Checks, then sends the diagnostics of every file with findings, of every open buffer (empty when it has
   * none, with the version checked) and of every file that had some and has none now.
   */
  async function publish(): Promise<void> {
    const open = fileBuffers(documents).map((document) => ({ uri: document.uri, path: fileURLToPath(document.uri), text: document.getText(), version: document.version }));
    const overlay = new Map(open.map((document) => [document.path, document.text]));
    const result = await checked.run(overlay);
    const loaded = result.workspace.documents();
    const byFile = diagnosticsByFile(result.report, (file) => overlay.get(checked.pathOf(file)) ?? loaded.get(file)?.text);
    const byUri = new Map([...byFile].map(([file, diagnostics]) => [uriOf(checked.pathOf(file)), diagnostics]));
    for (const document of open) {
      await connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: byUri.get(document.uri) ?? [] });
      byUri.delete(document.uri);
    }
    for (const [uri, diagnostics] of byUri) await connection.sendDiagnostics({ uri, diagnostics });
    for (const uri of published) if (!byUri.has(uri) && !open.some((document) => document.uri === uri)) await connection.sendDiagnostics({ uri, diagnostics: [] });
    published = new Set([...byUri.keys(), ...open.map((document) => document.uri)]);
  }

  documents.onDidOpen(() => checks.request());
  documents.onDidChangeContent(() => checks.request());
  documents.onDidClose(() => checks.request());

  const at = (uri: string, position: { line: number; character: number }) => {
    const document = uri.startsWith('file:') ? documents.get(uri) : undefined;
    return document && { text: document.getText(), offset: document.offsetAt(position), path: fileURLToPath(uri) };
  };

  connection.onCompletion(async ({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    if (!here) return [];
    await checks.settled();
    return completionsAt({ text: here.text, offset: here.offset, workspace: checked.latest?.workspace, process: processAt(checked, here.path) });
  });
  connection.onHover(async ({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    if (!here) return null;
    await checks.settled();
    return hoverAt(here.text, here.offset, checked.latest?.workspace, processAt(checked, here.path)) ?? null;
  });
  connection.onDefinition(async ({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    await checks.settled();
    if (!here) return null;
    const name = nameAt(checked, here.path, here.text, here.offset);
    if (name) return definitionOf(checked, name.named) ?? null;
    const data = dataFieldAt(checked, here.path, here.text, here.offset);
    return (data && dataDefinition(checked, data.process, data.field)) ?? null;
  });
  connection.onReferences(async ({ textDocument, position, context }) => {
    const here = at(textDocument.uri, position);
    await checks.settled();
    if (!here) return [];
    const name = nameAt(checked, here.path, here.text, here.offset);
    if (name) return referencesTo(checked, name.named, context.includeDeclaration);
    const data = dataFieldAt(checked, here.path, here.text, here.offset);
    return data ? dataReferences(checked, data.process, data.field, context.includeDeclaration) : [];
  });
  connection.onPrepareRename(async ({ textDocument, position }) => {
    const here = at(textDocument.uri, position);
    await checks.settled();
    const name = here && nameAt(checked, here.path, here.text, here.offset);
    return name ? { range: name.range, placeholder: name.named.key } : null;
  });
  connection.onRenameRequest(async ({ textDocument, position, newName }) => {
    const here = at(textDocument.uri, position);
    await checks.settled();
    const name = here && nameAt(checked, here.path, here.text, here.offset);
    const buffers = new Map(fileBuffers(documents).map((document) => [fileURLToPath(document.uri), document.getText()]));
    return name ? renameEdit(checked, name.named, newName, buffers) : null;
  });
  connection.onCodeAction(({ textDocument, context }) => {
    const document = documents.get(textDocument.uri);
    return document ? codeActionsFor(textDocument.uri, document.getText(), context.diagnostics) : [];
  });

  documents.listen(connection);
  connection.listen();
}

/**
 * One check at a time: a change while a check runs asks for one more after it, however many changes come —
 * the diagnostics always end on the latest buffers.
 */
class CheckQueue {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly runOnce: () => Promise<void>) {}

  request(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => (this.running = undefined));
  }

  /** Resolves when no check is running or asked for. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.runOnce();
    } while (this.again);
  }
}

/** The buffers of files (an untitled buffer stands for no file of the workspace). */
function fileBuffers(documents: TextDocuments<TextDocument>): TextDocument[] {
  return documents.all().filter((document) => document.uri.startsWith('file:'));
}

function rootOf(params: InitializeParams): string | undefined {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri;
  return uri ? fileURLToPath(uri) : undefined;
}

/** The workspace's real directory: packages load by their real paths, and buffers are matched to them. */
function realRoot(dir: string): string {
  try {
    return realpathSync(resolve(dir));
  } catch {
    return resolve(dir);
  }
}
