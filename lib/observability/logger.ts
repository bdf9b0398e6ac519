/**
 * One structured logger for every function (Powertools), level from LOG_LEVEL.
 * Each line is scrubbed (scrub-rules.ts) and then printed, and also goes to
 * the OpenTelemetry log export when that is on (otel.ts), with the current
 * span's ids when a stage span is running.
 */
import { context } from '@opentelemetry/api';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogItem } from '@aws-lambda-powertools/logger';
import { otelSignal } from './otel';
import type { LogExport } from './otel-logs-sdk';
import { scrubLogAttributes } from './scrub-rules';
import { logRecordOf } from './signal-rules';

/** The log export, its SDK required on first use (otel.ts). */
const logExport = () =>
  otelSignal<LogExport>('logs', (config) => {
    const { startLogs }: typeof import('./otel-logs-sdk') = require('./otel-logs-sdk');
    return startLogs(config);
  });

class ExportingLogger extends Logger {
  protected override printLog(logLevel: number, log: LogItem): void {
    // Every line is scrubbed before it is printed or exported: tokens, keys and addresses never reach either.
    log.setAttributes(scrubLogAttributes(log.getAttributes()));
    super.printLog(logLevel, log);
    try {
      logExport()?.logger.emit({ ...logRecordOf(log.getAttributes()), context: context.active() });
    } catch {
      // The export is best-effort; the line above is printed whatever happens here.
    }
  }
}

export const logger = new ExportingLogger({
  serviceName: 'contents-inventory',
  logLevel: (process.env.LOG_LEVEL ?? 'INFO').toUpperCase() as 'INFO',
});
