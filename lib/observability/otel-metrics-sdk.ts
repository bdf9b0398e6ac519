/**
 * The metrics SDK (meter provider, reader, OTLP/HTTP JSON exporter), started
 * by metrics.ts through otel.ts when the export is on. Only metrics.ts loads
 * this module, with require() on first use; its imports are named, so bundles
 * keep only what is used.
 */
import type { Meter } from '@opentelemetry/api';
import { AggregationTemporalityPreference, OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { SignalExport } from './otel';
import type { OtlpConfig } from './signal-rules';

export interface MetricExport extends SignalExport {
  meter: Meter;
}

export function startMetrics(config: OtlpConfig): MetricExport {
  const provider = new MeterProvider({
    resource: resourceFromAttributes(config.resource),
    readers: [
      new PeriodicExportingMetricReader({
        // Delta: each container reports what it counted since its last flush, so containers add up.
        exporter: new OTLPMetricExporter({
          url: config.metricsUrl,
          headers: config.headers,
          timeoutMillis: config.timeoutMs,
          temporalityPreference: AggregationTemporalityPreference.DELTA,
        }),
        // Sent by flush() only: the long interval keeps the timer from firing in a frozen container.
        exportIntervalMillis: 60_000,
        exportTimeoutMillis: config.timeoutMs,
      }),
    ],
  });
  return {
    meter: provider.getMeter('contents-inventory'),
    flush: () => provider.forceFlush({ timeoutMillis: config.timeoutMs }),
    shutdown: () => provider.shutdown(),
  };
}
