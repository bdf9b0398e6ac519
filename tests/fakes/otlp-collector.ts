/**
 * A fake OpenTelemetry collector speaking OTLP/HTTP with JSON bodies (what
 * the service's exporters send, lib/observability/otel-*-sdk.ts), over real
 * HTTP on 127.0.0.1 and a free port. `url` is the base URL to configure as
 * OTEL_EXPORTER_OTLP_ENDPOINT.
 *
 *   POST /v1/traces    {resourceSpans: [...]}     200 {partialSuccess: {}}
 *   POST /v1/metrics   {resourceMetrics: [...]}   200 {partialSuccess: {}}
 *   POST /v1/logs      {resourceLogs: [...]}      200 {partialSuccess: {}}
 *
 * - JSON only (protobuf answers 415, a body that is not OTLP JSON 400), gzip
 *   bodies accepted. Each export is flattened into records (spans, metric data
 *   points, log records) with their attributes as plain values and the
 *   resource's attributes beside them.
 * - The mode switch and the control API of every signal fake (signal-sink.ts);
 *   its lists (tests/support/fake-otlp.ts reads them):
 *     GET  /__fake/spans?match=...   GET /__fake/metrics?name=...   GET /__fake/logs?match=...
 *   `match` is looked for in the record's JSON (e.g. a job id in its attributes).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord, sendJson } from './http';
import { type SignalSink, type SinkMode, type SinkStats, startSignalSink } from './signal-sink';

export type CollectorMode = SinkMode;

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export interface RecordedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: number; message?: string };
  attributes: Record<string, Value>;
  resource: Record<string, Value>;
  scope: string | null;
}

export interface RecordedMetricPoint {
  name: string;
  unit: string | null;
  kind: 'sum' | 'gauge' | 'histogram' | 'other';
  /** Sums and gauges: the value; histograms: the sum. */
  value: number | null;
  /** Histograms: how many values were recorded. */
  count: number | null;
  attributes: Record<string, Value>;
  resource: Record<string, Value>;
}

export interface RecordedLog {
  body: Value;
  severityText: string | null;
  severityNumber: number | null;
  traceId: string | null;
  spanId: string | null;
  attributes: Record<string, Value>;
  resource: Record<string, Value>;
}

/** Exports received per signal, whatever the mode (refused, dropped and hung ones included). */
export type CollectorStats = SinkStats<Signal>;

export interface FakeOtlpCollector extends SignalSink {
  spans: RecordedSpan[];
  metrics: RecordedMetricPoint[];
  logs: RecordedLog[];
}

/** An OTLP AnyValue as a plain value. */
function plain(value: unknown): Value {
  if (!isRecord(value)) return null;
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if (isRecord(value.arrayValue)) return ((value.arrayValue.values as unknown[]) ?? []).map(plain);
  if (isRecord(value.kvlistValue)) return attributesOf(value.kvlistValue.values);
  return null;
}

function attributesOf(list: unknown): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of Array.isArray(list) ? list : []) if (isRecord(kv)) out[String(kv.key)] = plain(kv.value);
  return out;
}

const array = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const num = (v: unknown): number | null => (v === undefined || v === null || v === '' ? null : Number(v));

function spansOf(body: Record<string, unknown>): RecordedSpan[] {
  return array(body.resourceSpans).flatMap((rs) => {
    const resource = attributesOf(isRecord(rs.resource) ? rs.resource.attributes : []);
    return array(rs.scopeSpans).flatMap((ss) =>
      array(ss.spans).map((span) => ({
        traceId: String(span.traceId),
        spanId: String(span.spanId),
        parentSpanId: text(span.parentSpanId),
        name: String(span.name),
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
        status: isRecord(span.status)
          ? { code: Number(span.status.code ?? 0), message: text(span.status.message) ?? undefined }
          : { code: 0 },
        attributes: attributesOf(span.attributes),
        resource,
        scope: isRecord(ss.scope) ? text(ss.scope.name) : null,
      })),
    );
  });
}

function metricsOf(body: Record<string, unknown>): RecordedMetricPoint[] {
  return array(body.resourceMetrics).flatMap((rm) => {
    const resource = attributesOf(isRecord(rm.resource) ? rm.resource.attributes : []);
    return array(rm.scopeMetrics).flatMap((sm) =>
      array(sm.metrics).flatMap((metric) => {
        const kind = isRecord(metric.sum)
          ? 'sum'
          : isRecord(metric.gauge)
            ? 'gauge'
            : isRecord(metric.histogram)
              ? 'histogram'
              : 'other';
        const data = (metric[kind] ?? {}) as Record<string, unknown>;
        return array(data.dataPoints).map((point) => ({
          name: String(metric.name),
          unit: text(metric.unit),
          kind,
          value: kind === 'histogram' ? num(point.sum) : num(point.asDouble ?? point.asInt),
          count: kind === 'histogram' ? num(point.count) : null,
          attributes: attributesOf(point.attributes),
          resource,
        }));
      }),
    );
  });
}

function logsOf(body: Record<string, unknown>): RecordedLog[] {
  return array(body.resourceLogs).flatMap((rl) => {
    const resource = attributesOf(isRecord(rl.resource) ? rl.resource.attributes : []);
    return array(rl.scopeLogs).flatMap((sl) =>
      array(sl.logRecords).map((record) => ({
        body: plain(record.body),
        severityText: text(record.severityText),
        severityNumber: num(record.severityNumber),
        traceId: text(record.traceId),
        spanId: text(record.spanId),
        attributes: attributesOf(record.attributes),
        resource,
      })),
    );
  });
}

const SIGNALS = { '/v1/traces': 'traces', '/v1/metrics': 'metrics', '/v1/logs': 'logs' } as const;
type Signal = (typeof SIGNALS)[keyof typeof SIGNALS];

export async function startFakeOtlpCollector(options: { port?: number } = {}): Promise<FakeOtlpCollector> {
  const spans: RecordedSpan[] = [];
  const metrics: RecordedMetricPoint[] = [];
  const logs: RecordedLog[] = [];
  const matching = <T>(records: T[], match: string | null) =>
    match ? records.filter((r) => JSON.stringify(r).includes(match)) : records;

  function exported(signal: Signal, req: IncomingMessage, res: ServerResponse, bytes: Buffer | null) {
    if (!/json/i.test(req.headers['content-type'] ?? '')) return sendJson(res, 415, { message: 'JSON only' });
    let body: unknown;
    try {
      body = JSON.parse(bytes?.toString('utf8') ?? ''); // null (it did not unzip) is malformed too
    } catch {
      return sendJson(res, 400, { message: 'not OTLP JSON' });
    }
    if (!isRecord(body)) return sendJson(res, 400, { message: 'not OTLP JSON' });
    if (signal === 'traces') spans.push(...spansOf(body));
    if (signal === 'metrics') metrics.push(...metricsOf(body));
    if (signal === 'logs') logs.push(...logsOf(body));
    return sendJson(res, 200, { partialSuccess: {} });
  }

  const sink = await startSignalSink<Signal>({
    port: options.port,
    kinds: ['traces', 'metrics', 'logs'],
    route: (method, url) => (method === 'POST' ? (SIGNALS[url.pathname as keyof typeof SIGNALS] ?? null) : null),
    accept: (signal, _url, req, res, bytes) => exported(signal, req, res, bytes),
    lists: {
      spans: (query) => matching(spans, query.get('match')),
      logs: (query) => matching(logs, query.get('match')),
      metrics: (query) => {
        const name = query.get('name');
        return name ? metrics.filter((m) => m.name === name) : metrics;
      },
    },
    clear: () => {
      spans.length = 0;
      metrics.length = 0;
      logs.length = 0;
    },
    refusal: { code: 14, message: 'unavailable (injected)' },
    notFound: { message: 'not found' },
  });
  return { ...sink, spans, metrics, logs };
}
