/**
 * The tracing SDK (tracer provider, batch processor, OTLP/HTTP JSON exporter),
 * started by job-trace.ts through otel.ts when the export is on. Only
 * job-trace.ts loads this module, with require() on first use; its imports are
 * named, so bundles keep only what is used.
 */
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
} from '@opentelemetry/sdk-trace-base';
import type { SignalExport } from './otel';
import type { OtlpConfig, TraceIds } from './signal-rules';

export interface TraceExport extends SignalExport {
  tracer: Tracer;
  /** Runs `start` (which starts one span, synchronously) with that span taking these ids instead of fresh ones. */
  withIds<T>(ids: TraceIds, start: () => T): T;
  /** Fresh random ids for a new trace's root. */
  newIds(): TraceIds;
}

/** Random ids, except for the one span started inside pin(). */
class PinnableIdGenerator implements IdGenerator {
  private pinned: TraceIds | null = null;

  constructor(private readonly random: IdGenerator) {}

  generateTraceId(): string {
    return this.pinned?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.pinned?.spanId ?? this.random.generateSpanId();
  }

  /** Span starts are synchronous, so the pin reaches only the span `start` begins. */
  pin<T>(ids: TraceIds, start: () => T): T {
    this.pinned = ids;
    try {
      return start();
    } finally {
      this.pinned = null;
    }
  }
}

export function startTraces(config: OtlpConfig): TraceExport {
  // A stage span is current while its stage runs, so log records inside it carry its ids.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const ids = new PinnableIdGenerator(new RandomIdGenerator());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(config.resource),
    idGenerator: ids,
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers, timeoutMillis: config.timeoutMs }),
        // Sent by flush() only: the long delay keeps the timer from firing in a frozen container.
        { scheduledDelayMillis: 60_000, exportTimeoutMillis: config.timeoutMs, maxQueueSize: 4096 },
      ),
    ],
  });
  return {
    tracer: provider.getTracer('contents-inventory'),
    withIds: (pinned, start) => ids.pin(pinned, start),
    newIds: () => ({ traceId: ids.generateTraceId(), spanId: ids.generateSpanId(), sampled: true }),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
