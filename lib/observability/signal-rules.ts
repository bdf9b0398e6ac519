/**
 * Pure rules of the OpenTelemetry export (no I/O): whether it is on, where
 * each signal goes and with which headers, the resource that names this
 * service, the W3C trace context carried by queue messages, and how a
 * service log line becomes an OTLP log record.
 */
import { type OutboundIdSettings, outboundIdKey } from './outbound-id-rules';

/** The settings the export reads (lib/config's Settings has them all). */
export interface OtlpSettings extends OutboundIdSettings {
  OTEL_SDK_DISABLED: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT: string;
  OTEL_EXPORTER_OTLP_HEADERS: string;
  OTEL_SERVICE_NAME: string;
  SIGNALS_TIMEOUT_MS: number;
  APP_ENV: string;
}

export interface OtlpConfig {
  tracesUrl: string;
  metricsUrl: string;
  logsUrl: string;
  headers: Record<string, string>;
  /** Each export is abandoned after this long. */
  timeoutMs: number;
  resource: Record<string, string>;
  /** The key of the hashes ids leave as (outbound-id-rules.ts); the SDK modules take it from here, not from the settings. */
  idKey: Buffer | null;
}

/**
 * The export's configuration, or null when it is off: OTEL_SDK_DISABLED, or
 * no endpoint (or one that is not http(s), which the settings refuse anyway).
 * The endpoint is a base URL: each signal goes to its standard path under it.
 */
export function otlpConfig(settings: OtlpSettings, env: Record<string, string | undefined> = {}): OtlpConfig | null {
  if (settings.OTEL_SDK_DISABLED) return null;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/\S+$/i.test(base)) return null;
  return {
    tracesUrl: `${base}/v1/traces`,
    metricsUrl: `${base}/v1/metrics`,
    logsUrl: `${base}/v1/logs`,
    headers: parseOtlpHeaders(settings.OTEL_EXPORTER_OTLP_HEADERS),
    timeoutMs: settings.SIGNALS_TIMEOUT_MS,
    resource: resourceAttributes(settings, env),
    idKey: outboundIdKey(settings),
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs separated by commas, values percent-encoded; malformed pairs are skipped. */
export function parseOtlpHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    if (!key) continue;
    headers[key] = decoded(pair.slice(eq + 1).trim());
  }
  return headers;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** What every signal says about its source: the service, the stage and, on Lambda, the function. */
export function resourceAttributes(
  settings: Pick<OtlpSettings, 'OTEL_SERVICE_NAME' | 'APP_ENV'>,
  env: Record<string, string | undefined>,
): Record<string, string> {
  const attributes: Record<string, string> = {
    'service.name': settings.OTEL_SERVICE_NAME.trim() || 'contents-inventory',
    'deployment.environment.name': settings.APP_ENV,
  };
  if (env.AWS_LAMBDA_FUNCTION_NAME) {
    attributes['cloud.provider'] = 'aws';
    attributes['faas.name'] = env.AWS_LAMBDA_FUNCTION_NAME;
  }
  if (env.AWS_REGION) attributes['cloud.region'] = env.AWS_REGION;
  return attributes;
}

/** A span's place in its trace, as a W3C traceparent names it. */
export interface TraceIds {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/** The ids of a version-00 traceparent; null when it is absent, malformed or names the invalid (all-zero) ids. */
export function parseTraceparent(value: unknown): TraceIds | null {
  if (typeof value !== 'string') return null;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match || ALL_ZERO.test(match[1]) || ALL_ZERO.test(match[2])) return null;
  return { traceId: match[1], spanId: match[2], sampled: (Number.parseInt(match[3], 16) & 1) === 1 };
}

export function formatTraceparent(ids: TraceIds): string {
  return `00-${ids.traceId}-${ids.spanId}-${ids.sampled ? '01' : '00'}`;
}

/**
 * The traceparent a queue message carries, from its attributes as Lambda's
 * SQS event gives them ({stringValue}) or as the SQS API answers them
 * ({StringValue}, the local queue delivery); null when there is none.
 */
export function traceparentOfMessage(attributes: unknown): string | null {
  if (!isRecord(attributes)) return null;
  const attribute = attributes.traceparent;
  if (!isRecord(attribute)) return null;
  const value = attribute.stringValue ?? attribute.StringValue;
  return parseTraceparent(value) ? (value as string) : null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** OpenTelemetry severity numbers of the service logger's levels. */
const SEVERITY: Record<string, number> = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, CRITICAL: 21 };

export interface LogRecordShape {
  body: string;
  severityNumber: number;
  severityText: string;
  attributes: Record<string, string | number | boolean>;
}

/** Keys of a service log line that the record carries elsewhere (body, severity, time, resource). */
const LINE_KEYS = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate']);

/**
 * A service log line (the logger's JSON attributes) as an OTLP log record:
 * the message is the body, the level the severity, every other field an
 * attribute (objects as JSON, empty values left out).
 */
export function logRecordOf(line: Record<string, unknown>): LogRecordShape {
  const level = String(line.level ?? 'INFO').toUpperCase();
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(line)) {
    if (LINE_KEYS.has(key) || value === null || value === undefined) continue;
    attributes[key] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : jsonOf(value);
  }
  return {
    body: typeof line.message === 'string' ? line.message : jsonOf(line.message ?? ''),
    severityNumber: SEVERITY[level] ?? SEVERITY.INFO,
    severityText: level,
    attributes,
  };
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
