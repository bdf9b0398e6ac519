/**
 * What the fakes of the outbound signals (the OTLP collector, PostHog and
 * Sentry) share: a mode that makes the endpoint misbehave, a count of the
 * deliveries per kind, and a control API beside the delivery routes.
 *
 * - mode: 'up' (default) hands a delivery to the fake; 'refusing' answers
 *   503; 'down' drops the connection without an answer; 'hanging' never
 *   answers. Deliveries that arrive while not up are counted, not recorded.
 *   With a `match` the mode holds only for deliveries whose body (unzipped)
 *   contains it, and the others are taken as usual: the fakes serve every
 *   test file of the run at once, and an outage one test stages must not
 *   swallow the signals another test is waiting for.
 * - Control API for other processes:
 *     GET /__fake/<list>?...   each fake's own lists
 *     GET /__fake/stats        {mode, received: {<kind>: count}}
 *     POST /__fake/mode {mode, match?} POST /__fake/reset (forget everything, mode up)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { controlBody, listenFake, readBytes, sendJson } from './http';

const SINK_MODES = ['up', 'refusing', 'down', 'hanging'] as const;
export type SinkMode = (typeof SINK_MODES)[number];

export interface SinkStats<K extends string> {
  mode: SinkMode;
  match: string | null;
  received: Record<K, number>;
}

export interface SignalSinkSpec<K extends string> {
  port?: number;
  kinds: readonly K[];
  /** Which kind of delivery a request is, or null when it is not one of the sink's routes (404). */
  route: (method: string, url: URL) => K | null;
  /**
   * Takes one delivery while the sink is up, and answers it. `body`: the request's bytes, unzipped when sent
   * gzipped; null when they do not unzip (the fake answers that as its provider does).
   */
  accept: (kind: K, url: URL, req: IncomingMessage, res: ServerResponse, body: Buffer | null) => void;
  /** GET /__fake/<name> answers lists[name](query). */
  lists: Record<string, (query: URLSearchParams) => unknown>;
  /** Forgets what was recorded. */
  clear: () => void;
  /** The provider's answer bodies for a refusal (503) and for an unknown path (404). */
  refusal: Record<string, unknown>;
  notFound: Record<string, unknown>;
}

export interface SignalSink {
  url: string;
  setMode(mode: SinkMode, match?: string | null): void;
  reset(): void;
  stop(): Promise<void>;
}

export async function startSignalSink<K extends string>(spec: SignalSinkSpec<K>): Promise<SignalSink> {
  const received = Object.fromEntries(spec.kinds.map((kind) => [kind, 0])) as Record<K, number>;
  let mode: SinkMode = 'up';
  /** The deliveries the mode holds for (those whose body contains it); every one when null. */
  let modeMatch: string | null = null;

  function setMode(next: SinkMode, match: unknown = null) {
    if (!SINK_MODES.includes(next)) throw new Error(`mode must be one of ${SINK_MODES.join(', ')}`);
    if (match !== null && (typeof match !== 'string' || !match)) throw new Error('match must be a non-empty string');
    mode = next;
    modeMatch = next === 'up' ? null : match;
  }

  /** Whether the mode holds for this delivery (its body unzipped). */
  function modeHolds(body: Buffer | null): boolean {
    if (mode === 'up') return false;
    return modeMatch === null || Boolean(body?.toString('utf8').includes(modeMatch));
  }

  function reset() {
    spec.clear();
    for (const kind of spec.kinds) received[kind] = 0;
    mode = 'up';
    modeMatch = null;
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    const list = spec.lists[path.slice('/__fake/'.length)];
    if (method === 'GET' && list) return sendJson(res, 200, list(query));
    if (method === 'GET' && path === '/__fake/stats') return sendJson(res, 200, { mode, match: modeMatch, received });
    if (method === 'POST' && path === '/__fake/mode') {
      try {
        setMode(body.mode as SinkMode, body.match ?? null);
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
      const kind = spec.route(req.method ?? 'GET', url);
      if (kind === null) return void sendJson(res, 404, spec.notFound);
      received[kind] += 1;
      const body = unzipped(req, raw);
      if (modeHolds(body)) {
        if (mode === 'refusing') return void sendJson(res, 503, spec.refusal);
        if (mode === 'down') return req.socket.destroy();
        if (mode === 'hanging') return server.hang(res);
      }
      spec.accept(kind, url, req, res, body);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { detail: String(err) });
    }
  }, spec.port);

  return { url: server.url, setMode, reset, stop: () => server.close() };
}

/** A delivery's bytes, unzipped when sent gzipped (the SDKs may compress); null when they do not unzip. */
function unzipped(req: IncomingMessage, raw: Buffer): Buffer | null {
  if (!/gzip/i.test(req.headers['content-encoding'] ?? '')) return raw;
  try {
    return gunzipSync(raw);
  } catch {
    return null;
  }
}
