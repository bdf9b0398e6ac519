/**
 * This process's OpenTelemetry export: traces, metrics and logs over
 * OTLP/HTTP (JSON) when an endpoint is set and OTEL_SDK_DISABLED is not
 * (signal-rules.ts, otlpConfig). Each signal's SDK lives in a module of its own
 * (otel-trace-sdk.ts, otel-metrics-sdk.ts, otel-logs-sdk.ts) that only the
 * module using that signal loads, with require() on first use: a function
 * that records no metrics bundles no metrics SDK, and with the export off no
 * SDK code runs at all.
 *
 * A Lambda container is frozen between invocations, so nothing is sent in the
 * background: spans, metrics and log records wait in memory until
 * flushOtel(), which the end of every invocation calls (flush.ts); each export
 * is abandoned after SIGNALS_TIMEOUT_MS.
 *
 * The signals are started again when the export's settings change (a cold
 * start reads the collector's header from SSM after the first log line may
 * have started the log export); the old ones are flushed and shut down in the
 * background.
 */
import { context, TraceFlags, trace } from '@opentelemetry/api';
import { type Settings, settings } from '../config';
import { type OtlpConfig, otlpConfig, type TraceIds } from './signal-rules';

/** What each signal's SDK module starts. */
export interface SignalExport {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

type SignalName = 'traces' | 'metrics' | 'logs';

let started: Partial<Record<SignalName, SignalExport>> = {};
let config: OtlpConfig | null = null;
let builtFor: Settings | undefined;
let builtKey = '';

/** The export's configuration for the current settings (null when off); a change shuts down what was started. */
function currentConfig(): OtlpConfig | null {
  const now = settings();
  if (now === builtFor) return config;
  builtFor = now;
  const next = otlpConfig(now, process.env);
  const key = next ? JSON.stringify(next) : '';
  if (key === builtKey) return config;
  const previous = Object.values(started);
  started = {};
  config = next;
  builtKey = key;
  for (const part of previous) void part.flush().then(() => part.shutdown());
  return config;
}

/**
 * One signal's export, started by `start` on first use (the signal's module
 * requires its SDK there); null when the export is off or could not start.
 */
export function otelSignal<T extends SignalExport>(name: SignalName, start: (config: OtlpConfig) => T): T | null {
  try {
    const on = currentConfig();
    if (!on) return null;
    started[name] ??= start(on);
    return started[name] as T;
  } catch {
    // Telemetry is best-effort: a process whose export cannot start runs without it.
    return null;
  }
}

/** Sends what the started signals hold; nothing when none was started. */
export async function flushOtel(): Promise<void> {
  await Promise.allSettled(Object.values(started).map((part) => part.flush()));
}

/** A context whose current span is the remote one these ids name (a job run's root, carried by its messages). */
export function remoteParent(ids: TraceIds) {
  return trace.setSpanContext(context.active(), {
    traceId: ids.traceId,
    spanId: ids.spanId,
    traceFlags: ids.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}
