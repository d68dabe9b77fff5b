// `package-sdk lsp` as an editor meets it: the built CLI over stdio, driven by vscode-languageserver-protocol's
// client. Diagnostics after a one-line edit of an open process in a generated package of 1,000 objects — the time
// from the change sent to the diagnostics of that version received, over 100 edits (median and p95; budgets
// 100 ms and 250 ms) — and the memory of the server once it has checked a package of 10,000 objects.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createProtocolConnection, PublishDiagnosticsNotification, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { generatePackage } from './generate.mjs';

const EDITS = Number(process.env.BENCH_LSP_EDITS ?? 100);

/** A server on the package at `dir`, with the process file `file` open; resolves once its first diagnostics arrived. */
async function openServer(cli, dir, file) {
  const child = spawn(process.execPath, [cli, 'lsp', '--stdio'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const uri = pathToFileURL(`${dir}/${file}`).href;
  const waiting = new Map();
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    if (params.uri !== uri) return;
    waiting.get(params.version)?.();
    waiting.delete(params.version);
  });
  connection.listen();
  const published = (version) => new Promise((resolve) => waiting.set(version, resolve));
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {} });
  await connection.sendNotification('initialized', {});
  const text = readFileSync(`${dir}/${file}`, 'utf8');
  const opened = published(1);
  await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  await opened;
  return {
    child, connection, uri, text, published,
    async close() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      connection.dispose();
    },
  };
}

/** Milliseconds from each one-line edit to the diagnostics of its version. */
async function editTimes(server) {
  const line = server.text.split('\n').findIndex((candidate) => candidate.startsWith('  displayName:'));
  const times = [];
  for (let version = 2; version < EDITS + 2; version++) {
    const received = server.published(version);
    const start = process.hrtime.bigint();
    const edit = { range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, text: `  displayName: Process edited ${version}\n` };
    await server.connection.sendNotification('textDocument/didChange', { textDocument: { uri: server.uri, version }, contentChanges: [edit] });
    await received;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

/** Resident memory of a process, in MB (Linux: /proc). */
function residentMegabytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function run({ cli, median }) {
  const small = await openServer(cli, generatePackage(1000, { key: 'lsp' }), 'processes/o3.yaml');
  const times = await editTimes(small);
  await small.close();
  const large = await openServer(cli, generatePackage(10000, { key: 'lsp' }), 'processes/o3.yaml');
  const memory = residentMegabytes(large.child.pid);
  await large.close();
  return [
    { name: `lsp diagnostics after a one-line edit, 1,000 objects (median of ${EDITS})`, value: median(times), unit: 'ms', budget: '< 100 ms' },
    { name: `lsp diagnostics after a one-line edit, 1,000 objects (p95 of ${EDITS})`, value: percentile(times, 95), unit: 'ms', budget: '< 250 ms' },
    { name: 'lsp server memory, 10,000 objects checked', value: memory, unit: 'MB' },
  ];
}
