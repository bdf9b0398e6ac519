/**
 * The tracing SDK (tracer provider, batch processor, OTLP/HTTP JSON exporter),
 * started by job-trace.ts through otel.ts when the export is on. Only
 * job-trace.ts loads this module, with require() on first use; its imports are
 * named, so bundles keep only what is used.
 * It reads no settings (the ids' key comes in its config): a module loaded with
 * require() keeps what it imports whole, and the settings would bring every
 * secret source's SDK client into each bundle.
 */
import { type Attributes, context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { SignalExport } from './otel';
import { withOutboundIds, withOutboundIdsInText } from './outbound-id-rules';
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

/**
 * The span exporter's boundary: every span leaves with the UUIDs in its
 * name, attributes, status message, events and links replaced by their
 * keyed hashes (outbound-id-rules.ts). Trace and span ids are not UUIDs and
 * stay.
 */
export class OutboundIdSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly key: () => Buffer | null,
  ) {}

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    const key = this.key();
    this.inner.export(
      spans.map((span) => outboundSpan(span, key)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function outboundSpan(span: ReadableSpan, key: Buffer | null): ReadableSpan {
  const attributes = (a: Attributes) => withOutboundIds(a, key);
  return {
    name: withOutboundIdsInText(span.name, key),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status:
      span.status.message === undefined
        ? span.status
        : { ...span.status, message: withOutboundIdsInText(span.status.message, key) },
    attributes: attributes(span.attributes),
    links: span.links.map((link) => ({
      ...link,
      ...(link.attributes ? { attributes: attributes(link.attributes) } : {}),
    })),
    events: span.events.map((event) => ({
      ...event,
      name: withOutboundIdsInText(event.name, key),
      ...(event.attributes ? { attributes: attributes(event.attributes) } : {}),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
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
        new OutboundIdSpanExporter(
          new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers, timeoutMillis: config.timeoutMs }),
          () => config.idKey,
        ),
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
