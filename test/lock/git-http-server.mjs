// git's smart HTTP on loopback: `git http-backend` as a CGI behind node:http, serving the bare repositories
// under `root`. Used by the lock tests and by the lock bench (scripts/bench/lock.mjs); no mocks.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

/** Starts the server on a free loopback port; `url` is the base (`http://127.0.0.1:<port>`). */
export async function startGitServer(root) {
  const sockets = new Set();
  const server = createServer((request, response) => serveCgi(root, request, response));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    /** Stops serving; open connections are cut, so a client sees the source as unavailable. */
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

function serveCgi(root, request, response) {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const env = {
    PATH: process.env.PATH ?? '',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_ADDR: '127.0.0.1',
    ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
    ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
    ...(request.headers['git-protocol'] ? { GIT_PROTOCOL: request.headers['git-protocol'] } : {}),
  };
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  request.pipe(cgi.stdin);
  cgi.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersSent = false;
  cgi.stdout.on('data', (chunk) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    headersSent = true;
    response.write(head.subarray(end + 4));
  });
  cgi.on('close', () => {
    if (!headersSent) response.writeHead(500);
    response.end();
  });
}
