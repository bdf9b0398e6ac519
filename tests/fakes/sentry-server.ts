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
 * - The mode switch and the control API of every signal fake (signal-sink.ts);
 *   its list (tests/support/fake-sentry.ts reads it): GET /__fake/envelopes?match=...
 *   `match` is looked for in the envelope's raw text (e.g. a job id in a tag).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord, sendJson } from './http';
import { type SignalSink, type SinkMode, startSignalSink } from './signal-sink';

export type ErrorTrackingMode = SinkMode;

interface EnvelopeItem {
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

interface FakeSentry extends SignalSink {
  dsn: string;
  envelopes: RecordedEnvelope[];
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

export async function startFakeSentry(
  options: { project?: string; key?: string; port?: number } = {},
): Promise<FakeSentry> {
  const project = options.project ?? '4242';
  const key = options.key ?? 'fakepublickey0123456789abcdef';
  const envelopes: RecordedEnvelope[] = [];

  function envelope(
    pathProject: string,
    query: URLSearchParams,
    req: IncomingMessage,
    res: ServerResponse,
    bytes: Buffer | null,
  ) {
    if (pathProject !== project) return sendJson(res, 404, { detail: 'project not found' });
    if (keyOf(req, query) !== key) return sendJson(res, 401, { detail: 'invalid api key' });
    if (!bytes) return sendJson(res, 400, { detail: 'bad compression' });
    const parsed = parseEnvelope(bytes);
    if (!parsed) return sendJson(res, 400, { detail: 'invalid envelope' });
    envelopes.push({ project: pathProject, raw: bytes.toString('utf8'), ...parsed, at: new Date().toISOString() });
    return sendJson(res, 200, { id: parsed.header.event_id ?? null });
  }

  const sink = await startSignalSink<'envelope'>({
    port: options.port,
    kinds: ['envelope'],
    route: (method, url) => (method === 'POST' && ENVELOPE_PATH.test(url.pathname) ? 'envelope' : null),
    accept: (_kind, url, req, res, bytes) =>
      envelope(decodeURIComponent(ENVELOPE_PATH.exec(url.pathname)?.[1] ?? ''), url.searchParams, req, res, bytes),
    lists: {
      envelopes: (query) => {
        const match = query.get('match');
        return match ? envelopes.filter((e) => e.raw.includes(match)) : envelopes;
      },
    },
    clear: () => {
      envelopes.length = 0;
    },
    refusal: { detail: 'unavailable (injected)' },
    notFound: { detail: 'not found' },
  });
  return { ...sink, dsn: `${sink.url.replace('://', `://${key}@`)}/${project}`, envelopes };
}
