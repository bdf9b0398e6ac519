/** The HTTP plumbing the fake servers share. */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Answers JSON; returns the status (fakes record how they answered). */
export function sendJson(res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return status;
}

export async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function readText(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A control request's JSON body: {} when empty or not an object; null when it is not JSON (answer 400). */
export function controlBody(raw: string): Record<string, unknown> | null {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return null;
  }
}

/** A fake's server, listening on 127.0.0.1. */
export interface FakeHttpServer {
  /** The origin, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Never answers `res` (the 'timeout' failure); close() drops it. */
  hang(res: ServerResponse): void;
  /** Drops the hanging answers and every open connection, then closes. */
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 and `port` (default: a free one), keeping track of its connections. */
export async function listenFake(handler: RequestListener, port = 0): Promise<FakeHttpServer> {
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const server = createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    hang(res) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
    },
    async close() {
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The injected failures that are not an HTTP error: garbage (200, an HTML
 * page, not JSON), reset (the socket destroyed), timeout (never answered).
 * Returns the status answered, null when none.
 */
export function misbehave(
  server: FakeHttpServer,
  mode: 'garbage' | 'reset' | 'timeout',
  req: IncomingMessage,
  res: ServerResponse,
): number | null {
  switch (mode) {
    case 'garbage':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
      return 200;
    case 'reset':
      req.socket.destroy();
      return null;
    case 'timeout':
      server.hang(res);
      return null;
  }
}
