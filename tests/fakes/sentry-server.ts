/**
 * A fake error-tracking service speaking Sentry's envelope endpoint, over real
 * HTTP on 127.0.0.1 and a free port. `dsn` is the DSN to configure as
 * SENTRY_DSN (http://<key>@127.0.0.1:<port>/<project>).
 *
 *   POST /api/<project>/envelope/?sentry_key=<key>&sentry_version=7
 *        (or X-Sentry-Auth: Sentry sentry_key=<key>, ...)
 *     body: an envelope, newline-separated: its header, then per item a header
 *     ({type, length?}) and a payload (length bytes, or up to the newline)
 *   200 {id: <event_id>}
 *
 * - As the real service: an unknown project 404, a wrong or missing key 401,
 *   a body that is not an envelope 400. gzip bodies accepted.
 * - Each accepted envelope is recorded raw (its exact bytes as text, what the
 *   tests search for personal data) and parsed into its items.
 * - mode: 'up' (default); 'refusing' answers 503; 'down' drops the connection
 *   without an answer; 'hanging' never answers (counted, not recorded).
 * - Control API for other processes (tests/support/fake-sentry.ts):
 *     GET  /__fake/envelopes?match=...   GET /__fake/stats   POST /__fake/mode {mode}   POST /__fake/reset
 *   `match` is looked for in the envelope's raw text (e.g. a job id in a tag).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { controlBody, isRecord, listenFake, readBytes, sendJson } from './http';

const MODES = ['up', 'refusing', 'down', 'hanging'] as const;
export type ErrorTrackingMode = (typeof MODES)[number];

export interface EnvelopeItem {
  header: Record<string, unknown>;
  /** The payload parsed as JSON, else its text. */
  payload: unknown;
}

export interface RecordedEnvelope {
  project: string;
  /** The envelope exactly as it arrived (decompressed), as text. */
  raw: string;
  header: Record<string, unknown>;
  items: EnvelopeItem[];
  at: string;
}

interface FakeSentry {
  url: string;
  dsn: string;
  envelopes: RecordedEnvelope[];
  setMode(mode: ErrorTrackingMode): void;
  reset(): void;
  stop(): Promise<void>;
}

const ENVELOPE_PATH = /^\/api\/([^/]+)\/envelope\/?$/;

/** An envelope's header and items; null when the bytes are not one. */
function parseEnvelope(bytes: Buffer): { header: Record<string, unknown>; items: EnvelopeItem[] } | null {
  let offset = 0;
  const line = (): Buffer | null => {
    if (offset >= bytes.length) return null;
    const end = bytes.indexOf(0x0a, offset);
    const slice = bytes.subarray(offset, end < 0 ? bytes.length : end);
    offset = end < 0 ? bytes.length : end + 1;
    return slice;
  };
  const json = (b: Buffer | null): unknown => {
    try {
      return b ? JSON.parse(b.toString('utf8')) : null;
    } catch {
      return undefined;
    }
  };
  const header = json(line());
  if (!isRecord(header)) return null;
  const items: EnvelopeItem[] = [];
  for (let raw = line(); raw !== null; raw = line()) {
    if (raw.length === 0) continue;
    const itemHeader = json(raw);
    if (!isRecord(itemHeader) || typeof itemHeader.type !== 'string') return null;
    let payload: Buffer;
    if (typeof itemHeader.length === 'number') {
      payload = bytes.subarray(offset, offset + itemHeader.length);
      offset += itemHeader.length;
      if (bytes[offset] === 0x0a) offset += 1;
    } else payload = line() ?? Buffer.alloc(0);
    const parsed = json(payload);
    items.push({ header: itemHeader, payload: parsed === undefined ? payload.toString('utf8') : parsed });
  }
  return { header, items };
}

/** The key a request authenticates with: the query's sentry_key, else X-Sentry-Auth's. */
function keyOf(req: IncomingMessage, query: URLSearchParams): string | null {
  const fromQuery = query.get('sentry_key');
  if (fromQuery) return fromQuery;
  const auth = /sentry_key=([^,\s]+)/.exec(String(req.headers['x-sentry-auth'] ?? ''));
  return auth ? auth[1] : null;
}

export async function startFakeSentry(options: { project?: string; key?: string; port?: number } = {}) {
  const project = options.project ?? '4242';
  const key = options.key ?? 'fakepublickey0123456789abcdef';
  const envelopes: RecordedEnvelope[] = [];
  let received = 0;
  let mode: ErrorTrackingMode = 'up';

  function setMode(next: ErrorTrackingMode) {
    if (!MODES.includes(next)) throw new Error(`mode must be one of ${MODES.join(', ')}`);
    mode = next;
  }

  function reset() {
    envelopes.length = 0;
    received = 0;
    mode = 'up';
  }

  function envelope(
    pathProject: string,
    query: URLSearchParams,
    req: IncomingMessage,
    res: ServerResponse,
    raw: Buffer,
  ) {
    received += 1;
    if (mode === 'refusing') return sendJson(res, 503, { detail: 'unavailable (injected)' });
    if (mode === 'down') return req.socket.destroy();
    if (mode === 'hanging') return server.hang(res);
    if (pathProject !== project) return sendJson(res, 404, { detail: 'project not found' });
    if (keyOf(req, query) !== key) return sendJson(res, 401, { detail: 'invalid api key' });
    let bytes: Buffer;
    try {
      bytes = /gzip/i.test(req.headers['content-encoding'] ?? '') ? gunzipSync(raw) : raw;
    } catch {
      return sendJson(res, 400, { detail: 'bad compression' });
    }
    const parsed = parseEnvelope(bytes);
    if (!parsed) return sendJson(res, 400, { detail: 'invalid envelope' });
    envelopes.push({ project: pathProject, raw: bytes.toString('utf8'), ...parsed, at: new Date().toISOString() });
    return sendJson(res, 200, { id: parsed.header.event_id ?? null });
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    if (method === 'GET' && path === '/__fake/envelopes') {
      const match = query.get('match');
      return sendJson(res, 200, match ? envelopes.filter((e) => e.raw.includes(match)) : envelopes);
    }
    if (method === 'GET' && path === '/__fake/stats') return sendJson(res, 200, { mode, received });
    if (method === 'POST' && path === '/__fake/mode') {
      try {
        setMode(body.mode as ErrorTrackingMode);
      } catch (err) {
        return sendJson(res, 400, { error: (err as Error).message });
      }
      return sendJson(res, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__fake/reset') {
      reset();
      return sendJson(res, 200, { ok: true });
    }
    return sendJson(res, 404, { error: 'not_found' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = await readBytes(req);
      if (url.pathname.startsWith('/__fake/')) {
        control(url.pathname, req.method ?? 'GET', url.searchParams, raw.toString('utf8'), res);
        return;
      }
      const path = ENVELOPE_PATH.exec(url.pathname);
      if (req.method === 'POST' && path) {
        envelope(decodeURIComponent(path[1]), url.searchParams, req, res, raw);
        return;
      }
      sendJson(res, 404, { detail: 'not found' });
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { detail: String(err) });
    }
  }, options.port);

  const fake: FakeSentry = {
    url: server.url,
    dsn: `${server.url.replace('://', `://${key}@`)}/${project}`,
    envelopes,
    setMode,
    reset,
    stop: () => server.close(),
  };
  return fake;
}
