/**
 * The logs SDK (logger provider, batch processor, OTLP/HTTP JSON exporter),
 * started by logger.ts through otel.ts when the export is on. Only logger.ts
 * loads this module, with require() on first use; its imports are named, so
 * bundles keep only what is used.
 */
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchLogRecordProcessor,
  LoggerProvider,
  type LogRecordProcessor,
  type ReadWriteLogRecord,
} from '@opentelemetry/sdk-logs';
import type { SignalExport } from './otel';
import { withOutboundIds } from './outbound-id-rules';
import type { OtlpConfig } from './signal-rules';

export interface LogExport extends SignalExport {
  logger: OtelLogger;
}

/**
 * The log export's boundary, ahead of the batch processor: every record
 * leaves with the UUIDs in its body and attributes replaced by their keyed
 * hashes (outbound-id-rules.ts). The line printed to stdout was written
 * before and keeps its raw ids.
 */
export class OutboundIdLogProcessor implements LogRecordProcessor {
  constructor(private readonly key: () => Buffer | null) {}

  onEmit(record: ReadWriteLogRecord): void {
    const key = this.key();
    if (record.body !== undefined) record.setBody(withOutboundIds(record.body, key));
    for (const [name, value] of Object.entries(record.attributes)) {
      const outName = withOutboundIds(name, key);
      // A name holding an id is written anew under its outbound name.
      if (outName !== name) delete (record.attributes as Record<string, unknown>)[name];
      record.setAttribute(outName, withOutboundIds(value, key));
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export function startLogs(config: OtlpConfig): LogExport {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(config.resource),
    processors: [
      new OutboundIdLogProcessor(() => config.idKey),
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
