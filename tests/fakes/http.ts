/** The HTTP plumbing the fake servers share. */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
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

/**
 * Every answer closes its connection (`Connection: close`), so no client
 * keeps one pooled. A kept connection races the server's idle timeout: on a
 * busy test machine the server closed one just as a client reused it, and the
 * request failed with "other side closed". A new loopback connection per
 * request costs next to nothing.
 */
export function closeConnectionsAfterAnswers(server: Server): void {
  server.prependListener('request', (_req, res: ServerResponse) => res.setHeader('connection', 'close'));
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
  closeConnectionsAfterAnswers(server);
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

/** A request body that is there but is not JSON (fakes record its text and answer 422). */
export const NOT_JSON = Symbol('not JSON');

/** An API request as the platform fakes read it: its JSON body (NOT_JSON, or undefined when empty), path segments and bearer token. */
export function readApiRequest(req: IncomingMessage, rawPath: string, text: string) {
  let body: unknown;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = NOT_JSON;
    }
  }
  let segments: string[] | null;
  try {
    segments = rawPath.split('/').slice(1).map(decodeURIComponent);
  } catch {
    // A malformed escape: no route matches it.
    segments = null;
  }
  return { body, segments, token: bearerToken(req) };
}

/** The bearer token of a request, or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const auth = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return auth ? auth[1].trim() : null;
}

/** Whether `match` is a substring of "METHOD /path", the path raw or percent-decoded. */
export function pathMatches(method: string, path: string, match: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: the raw path only.
  }
  return `${method} ${path}`.includes(match) || `${method} ${decoded}`.includes(match);
}

/** A held request is answered after this even if never released, so a failed test cannot wedge a job. */
const DEFAULT_HOLD_MS = 60_000;

/**
 * Requests a test keeps unanswered: hold(match, ms) holds every request whose
 * text (its URL, or "METHOD path") contains `match` until release(match), for
 * `ms` at most; heldBack(text) is what a fake awaits before it answers.
 */
export function requestHolds() {
  const holds = new Map<string, { released: Promise<void>; release: () => void; ms: number }>();

  function release(match: string) {
    holds.get(match)?.release();
    holds.delete(match);
  }

  return {
    hold(match: string, ms = DEFAULT_HOLD_MS) {
      if (typeof match !== 'string' || !match) throw new Error('match must be a non-empty string');
      if (!(typeof ms === 'number' && ms > 0)) throw new Error('ms must be a number > 0');
      release(match);
      let done = () => {};
      const released = new Promise<void>((resolve) => {
        done = resolve;
      });
      holds.set(match, { released, release: done, ms });
    },
    release,
    releaseAll() {
      for (const match of [...holds.keys()]) release(match);
    },
    /** Waits while a hold matches `text` (for its `ms` at most). */
    async heldBack(text: string) {
      const held = [...holds.entries()].find(([match]) => text.includes(match))?.[1];
      if (!held) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([held.released, new Promise((r) => (timer = setTimeout(r, held.ms)))]);
      clearTimeout(timer);
    },
  };
}

/**
 * The hold controls of a fake with requestHolds(): POST /__fake/hold {match, ms?}
 * and POST /__fake/release {match}, answered {ok: true}. True when the request
 * was one of them.
 */
export function answerHoldControl(
  holds: Pick<ReturnType<typeof requestHolds>, 'hold' | 'release'>,
  request: { method: string; path: string; body: Record<string, unknown> },
  res: ServerResponse,
): boolean {
  if (request.method !== 'POST') return false;
  if (request.path === '/__fake/hold') holds.hold(request.body.match as string, request.body.ms as number | undefined);
  else if (request.path === '/__fake/release') holds.release(request.body.match as string);
  else return false;
  sendJson(res, 200, { ok: true });
  return true;
}
