/**
 * Traces of job runs (spec: Outbound signals): one trace per run, whose root
 * span `job.process` covers the run from its start to its end, with a child
 * span `stage.<name>` for each stage (or branch) run and `stage.<name>.unit`
 * for each fan-out unit, wherever they run.
 *
 * A run crosses many invocations and queue hops, so no span can stay open
 * for all of it. The run's root ids are chosen when it starts (a W3C
 * traceparent the engine keeps on the job row); every queue message of the run
 * carries them as its `traceparent` attribute (lib/queue), the worker makes
 * them current while it handles the message (runInMessageTrace), stage spans
 * start under them, and the terminal path records the root span itself with
 * those ids and the run's start time (recordRunSpan). The root arrives last;
 * trace viewers place it by its ids.
 */
import { type Attributes, context, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { otelSignal, remoteParent } from './otel';
import type { TraceExport } from './otel-trace-sdk';
import { formatTraceparent, parseTraceparent, traceparentOfMessage } from './signal-rules';

/** The trace export, its SDK required on first use (otel.ts). */
const traces = () =>
  otelSignal<TraceExport>('traces', (config) => {
    const { startTraces }: typeof import('./otel-trace-sdk') = require('./otel-trace-sdk');
    return startTraces(config);
  });

/** A new run's root ids as a traceparent; null when tracing is off (nothing to carry). */
export function newRunTraceparent(): string | null {
  const sdk = traces();
  return sdk ? formatTraceparent(sdk.newIds()) : null;
}

/** Runs a queue message's handler with the trace its `traceparent` attribute names made current. */
export function runInMessageTrace<T>(messageAttributes: unknown, handle: () => Promise<T>): Promise<T> {
  const ids = parseTraceparent(traceparentOfMessage(messageAttributes));
  if (!ids || !traces()) return handle();
  return context.with(remoteParent(ids), handle);
}

/**
 * Runs `work` in a span named `name`, a child of the current message's trace
 * or, without one, of `runTraceparent` (the job row's). Without either, or
 * with tracing off, `work` simply runs. A throw marks the span as an error
 * and is passed on.
 */
export async function inRunSpan<T>(
  name: string,
  runTraceparent: string | null | undefined,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const sdk = traces();
  const current = trace.getSpanContext(context.active());
  const fallback = parseTraceparent(runTraceparent);
  if (!sdk || (!current && !fallback)) return work();
  const parent = current ? context.active() : remoteParent(fallback as NonNullable<typeof fallback>);
  let span: Span;
  try {
    span = sdk.tracer.startSpan(name, { attributes }, parent);
  } catch {
    return work();
  }
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Records a run's root span `job.process` with the ids its traceparent
 * names, from `startedAt` to now; `error` marks it failed. Nothing without a
 * traceparent or with tracing off.
 */
export function recordRunSpan(
  runTraceparent: string | null | undefined,
  run: { startedAt: string | null; attributes: Attributes; error?: string | null },
): void {
  const sdk = traces();
  const ids = parseTraceparent(runTraceparent);
  if (!sdk || !ids) return;
  const started = run.startedAt ? new Date(run.startedAt) : new Date();
  const span = sdk.withIds(ids, () =>
    sdk.tracer.startSpan('job.process', {
      root: true,
      startTime: Number.isNaN(started.getTime()) ? new Date() : started,
      attributes: run.attributes,
    }),
  );
  span.setStatus(run.error ? { code: SpanStatusCode.ERROR, message: run.error } : { code: SpanStatusCode.OK });
  span.end();
}
