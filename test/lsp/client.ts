/**
 * An editor's side of `package-sdk lsp`: the built CLI in a child process, spoken to through
 * vscode-languageserver-protocol's own connection over the child's stdio, with the diagnostics it publishes
 * collected by file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection, PublishDiagnosticsNotification, StreamMessageReader, StreamMessageWriter,
  type Diagnostic, type ProtocolConnection, type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { CLI } from '../support/cli.js';

export interface LspClient {
  connection: ProtocolConnection;
  child: ChildProcess;
  /** Resolves with the next diagnostics published for `uri` that satisfy `until`. */
  diagnostics(uri: string, until?: (diagnostics: Diagnostic[]) => boolean): Promise<Diagnostic[]>;
  close(): Promise<void>;
}

export function uriIn(root: string, file: string): string {
  return pathToFileURL(join(root, file)).href;
}

export function startClient(root: string): LspClient {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: undefined, PACKAGE_SDK_CACHE: join(root, '.cache') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const latest = new Map<string, PublishDiagnosticsParams>();
  const waiting: { uri: string; until: (d: Diagnostic[]) => boolean; resolve: (d: Diagnostic[]) => void }[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    latest.set(params.uri, params);
    for (const waiter of [...waiting]) {
      if (waiter.uri === params.uri && waiter.until(params.diagnostics)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(params.diagnostics);
      }
    }
  });
  connection.listen();
  return {
    connection,
    child,
    diagnostics: (uri, until = () => true) => new Promise((resolve) => waiting.push({ uri, until, resolve })),
    async close() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      connection.dispose();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    },
  };
}

/**
 * The answer to `initialize` as a command's outcome: the body of the server's first message (stdout frames each
 * message by Content-Length), and the exit code after shutdown and exit.
 */
export async function initializeOutcome(root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const client = startClient(root);
  const result: unknown = await client.connection.sendRequest('initialize', { processId: process.pid, rootUri: uriIn(root, ''), capabilities: {} });
  await client.close();
  return { code: client.child.exitCode ?? -1, stdout: JSON.stringify({ jsonrpc: '2.0', id: 0, result }), stderr: '' };
}
