/**
 * A minimal client of the Language Server Protocol over stdio: enough to drive the real yaml-language-server
 * the way an editor does (initialize, configuration, open a file, ask for completion and hover).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Json;
  result?: Json;
  error?: { code: number; message: string };
}

export class LspClient {
  private readonly server: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Json) => void; reject: (e: Error) => void }>();
  private diagnosticWaiters: Array<{ uri: string; resolve: (d: Json[]) => void }> = [];
  private stderr = '';

  /** `settings` answers the server's workspace/configuration requests, section by section. */
  constructor(command: string, args: string[], private readonly settings: Record<string, Json>) {
    this.server = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.server.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.server.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.server.on('exit', (code) => {
      for (const { reject } of this.pending.values()) reject(new Error(`language server exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  request(method: string, params: Json): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: Json): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The next diagnostics the server publishes for `uri`. */
  diagnosticsOf(uri: string): Promise<Json[]> {
    return new Promise((resolve) => this.diagnosticWaiters.push({ uri, resolve }));
  }

  async stop(): Promise<void> {
    if (this.server.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.server.once('exit', () => resolve()));
    try {
      await this.request('shutdown', null);
      this.notify('exit', null);
    } catch {
      // the server went away on its own: nothing left to stop
    }
    const killer = setTimeout(() => this.server.kill(), 5_000);
    await exited;
    clearTimeout(killer);
  }

  private send(message: Message): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.server.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString('ascii'))?.[1]);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      const message = JSON.parse(this.buffer.subarray(start, start + length).toString('utf8')) as Message;
      this.buffer = this.buffer.subarray(start + length);
      this.dispatch(message);
    }
  }

  private dispatch(message: Message): void {
    if (message.method && message.id !== undefined) return this.answer(message);
    if (message.method === 'textDocument/publishDiagnostics') {
      const { uri, diagnostics } = message.params as { uri: string; diagnostics: Json[] };
      const waiting = this.diagnosticWaiters.filter((w) => w.uri === uri);
      this.diagnosticWaiters = this.diagnosticWaiters.filter((w) => w.uri !== uri);
      for (const waiter of waiting) waiter.resolve(diagnostics);
      return;
    }
    if (typeof message.id !== 'number') return;
    const waiter = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result ?? null);
  }

  /** Requests from the server to the editor: configuration is answered from the settings, the rest acknowledged. */
  private answer(message: Message): void {
    let result: Json = null;
    if (message.method === 'workspace/configuration') {
      const items = ((message.params as { items?: Array<{ section?: string }> }).items ?? []);
      result = items.map((item) => this.settings[item.section ?? ''] ?? null);
    }
    this.send({ jsonrpc: '2.0', id: message.id, result });
  }
}
