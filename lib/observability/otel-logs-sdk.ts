/**
 * The logs SDK (logger provider, batch processor, OTLP/HTTP JSON exporter),
 * started by logger.ts through otel.ts when the export is on. Only logger.ts
 * loads this module, with require() on first use; its imports are named, so
 * bundles keep only what is used.
 */
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import type { SignalExport } from './otel';
import type { OtlpConfig } from './signal-rules';

export interface LogExport extends SignalExport {
  logger: OtelLogger;
}

export function startLogs(config: OtlpConfig): LogExport {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(config.resource),
    processors: [
      new BatchLogRecordProcessor({
        exporter: new OTLPLogExporter({
          url: config.logsUrl,
          headers: config.headers,
          timeoutMillis: config.timeoutMs,
        }),
        // Sent by flush() only: the long delay keeps the timer from firing in a frozen container.
        scheduledDelayMillis: 60_000,
        exportTimeoutMillis: config.timeoutMs,
        maxQueueSize: 4096,
      }),
    ],
  });
  return {
    logger: provider.getLogger('contents-inventory'),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
