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
 * - The mode switch and the control API of every signal fake (signal-sink.ts);
 *   its list (tests/support/fake-posthog.ts reads it): GET /__fake/events?match=...
 *   `match` is looked for in the event's JSON (e.g. a job or user id).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord, sendJson } from './http';
import { type SignalSink, type SinkMode, startSignalSink } from './signal-sink';

export type AnalyticsMode = SinkMode;

export interface RecordedEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string | null;
  api_key: string;
  /** The endpoint it came through. */
  path: string;
}

export interface FakePostHog extends SignalSink {
  apiKey: string;
  events: RecordedEvent[];
}

const CAPTURE_PATHS = new Set(['/batch', '/batch/', '/capture', '/capture/', '/i/v0/e', '/i/v0/e/']);

export async function startFakePostHog(options: { apiKey?: string; port?: number } = {}): Promise<FakePostHog> {
  const apiKey = options.apiKey ?? 'phc_fake_project_key';
  const events: RecordedEvent[] = [];

  function capture(path: string, req: IncomingMessage, res: ServerResponse, bytes: Buffer | null) {
    let body: unknown;
    try {
      body = JSON.parse(bytes?.toString('utf8') ?? ''); // null (it did not unzip) is malformed too
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

  const sink = await startSignalSink<'capture'>({
    port: options.port,
    kinds: ['capture'],
    route: (method, url) => (method === 'POST' && CAPTURE_PATHS.has(url.pathname) ? 'capture' : null),
    accept: (_kind, url, req, res, bytes) => capture(url.pathname, req, res, bytes),
    lists: {
      events: (query) => {
        const match = query.get('match');
        return match ? events.filter((e) => JSON.stringify(e).includes(match)) : events;
      },
    },
    clear: () => {
      events.length = 0;
    },
    refusal: { detail: 'unavailable (injected)' },
    notFound: { detail: 'Not found.' },
  });
  return { ...sink, apiKey, events };
}
