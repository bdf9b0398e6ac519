/**
 * A fake product analytics service speaking PostHog's capture API, over real
 * HTTP on 127.0.0.1 and a free port. `url` is the host to configure as
 * POSTHOG_HOST, with POSTHOG_API_KEY `apiKey`.
 *
 *   POST /batch/     {api_key, batch: [{event, distinct_id, properties, timestamp}]}   200 {status: 1}
 *   POST /capture/   {api_key, event, distinct_id, properties, timestamp} (or {api_key, batch})
 *   POST /i/v0/e/    as /capture/
 *
 * - As the real service: a body that is not JSON, or a missing event or
 *   distinct_id, answers 400; a wrong or missing key 401. gzip bodies accepted.
 * - Every accepted event is recorded with the key it came with.
 * - mode: 'up' (default); 'refusing' answers 503; 'down' drops the connection
 *   without an answer; 'hanging' never answers (counted, not recorded).
 * - Control API for other processes (tests/support/fake-posthog.ts):
 *     GET  /__fake/events?match=...   GET /__fake/stats   POST /__fake/mode {mode}   POST /__fake/reset
 *   `match` is looked for in the event's JSON (e.g. a job or user id).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { controlBody, isRecord, listenFake, readBytes, sendJson } from './http';

const MODES = ['up', 'refusing', 'down', 'hanging'] as const;
export type AnalyticsMode = (typeof MODES)[number];

export interface RecordedEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string | null;
  api_key: string;
  /** The endpoint it came through. */
  path: string;
}

export interface FakePostHog {
  url: string;
  apiKey: string;
  events: RecordedEvent[];
  setMode(mode: AnalyticsMode): void;
  reset(): void;
  stop(): Promise<void>;
}

const CAPTURE_PATHS = new Set(['/batch', '/batch/', '/capture', '/capture/', '/i/v0/e', '/i/v0/e/']);

export async function startFakePostHog(options: { apiKey?: string; port?: number } = {}): Promise<FakePostHog> {
  const apiKey = options.apiKey ?? 'phc_fake_project_key';
  const events: RecordedEvent[] = [];
  let received = 0;
  let mode: AnalyticsMode = 'up';

  function setMode(next: AnalyticsMode) {
    if (!MODES.includes(next)) throw new Error(`mode must be one of ${MODES.join(', ')}`);
    mode = next;
  }

  function reset() {
    events.length = 0;
    received = 0;
    mode = 'up';
  }

  function capture(path: string, req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    received += 1;
    if (mode === 'refusing') return sendJson(res, 503, { detail: 'unavailable (injected)' });
    if (mode === 'down') return req.socket.destroy();
    if (mode === 'hanging') return server.hang(res);
    let body: unknown;
    try {
      const bytes = /gzip/i.test(req.headers['content-encoding'] ?? '') ? gunzipSync(raw) : raw;
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return sendJson(res, 400, { type: 'validation_error', detail: 'Malformed request data' });
    }
    if (!isRecord(body)) return sendJson(res, 400, { type: 'validation_error', detail: 'Malformed request data' });
    if (body.api_key !== apiKey)
      return sendJson(res, 401, { type: 'authentication_error', detail: 'Project API key invalid.' });
    const batch = Array.isArray(body.batch) ? body.batch : [body];
    const accepted: RecordedEvent[] = [];
    for (const item of batch) {
      if (!isRecord(item) || typeof item.event !== 'string' || !item.event || item.distinct_id === undefined)
        return sendJson(res, 400, { type: 'validation_error', detail: 'Invalid event: event and distinct_id needed' });
      accepted.push({
        event: item.event,
        distinct_id: String(item.distinct_id),
        properties: isRecord(item.properties) ? item.properties : {},
        timestamp: typeof item.timestamp === 'string' ? item.timestamp : null,
        api_key: String(body.api_key),
        path,
      });
    }
    events.push(...accepted);
    return sendJson(res, 200, { status: 1 });
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    if (method === 'GET' && path === '/__fake/events') {
      const match = query.get('match');
      return sendJson(res, 200, match ? events.filter((e) => JSON.stringify(e).includes(match)) : events);
    }
    if (method === 'GET' && path === '/__fake/stats') return sendJson(res, 200, { mode, received });
    if (method === 'POST' && path === '/__fake/mode') {
      try {
        setMode(body.mode as AnalyticsMode);
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
      if (req.method === 'POST' && CAPTURE_PATHS.has(url.pathname)) {
        capture(url.pathname, req, res, raw);
        return;
      }
      sendJson(res, 404, { detail: 'Not found.' });
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { detail: String(err) });
    }
  }, options.port);

  return { url: server.url, apiKey, events, setMode, reset, stop: () => server.close() };
}
