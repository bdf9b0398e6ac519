/**
 * Error tracking (Sentry, backend project) when SENTRY_DSN is set: pipeline
 * failures, import crashes, claims platform submission failures, watchdog
 * sweep counts and session expiries, each reported once where it happens
 * (error-report-rules.ts shapes them; sentry-client.ts sends them).
 *
 * reportError never waits or throws; events are sent in the background and
 * flushErrors (flush.ts) waits for them at the end of the invocation, at most
 * SIGNALS_TIMEOUT_MS. Without a DSN the SDK is never loaded.
 */
import { type Settings, settings } from '../config';
import { type ErrorReport, trackedEventOf } from './error-report-rules';
import { logger } from './logger';
import { outboundIdKey } from './outbound-id-rules';
import type { ErrorClient } from './sentry-client';

let client: ErrorClient | null = null;
let builtFor: Settings | undefined;
let builtDsn = '';

function errorClient(): ErrorClient | null {
  const config = settings();
  if (config === builtFor) return client;
  builtFor = config;
  const dsn = config.SENTRY_DSN.trim();
  if (dsn === builtDsn) return client;
  const previous = client;
  builtDsn = dsn;
  client = null;
  if (dsn) {
    try {
      // Required here, not imported: a process without a DSN never loads (or runs) the SDK's code.
      const { startErrorClient }: typeof import('./sentry-client') = require('./sentry-client');
      client = startErrorClient(dsn, config.APP_ENV, config.SIGNALS_TIMEOUT_MS, () => outboundIdKey(settings()));
    } catch (err) {
      // A malformed DSN: error tracking stays off rather than failing the function.
      logger.warn('error tracking not started', { error: String(err) });
    }
  }
  if (previous) void previous.close(config.SIGNALS_TIMEOUT_MS).catch(() => undefined);
  return client;
}

/** Sends one report in the background; nothing when error tracking is off. */
export function reportError(report: ErrorReport): void {
  try {
    errorClient()?.capture(trackedEventOf(report));
  } catch (err) {
    logger.warn('error report not captured', { kind: report.kind, error: String(err) });
  }
}

/** Waits for the reports in flight, at most `timeoutMs`; never throws. */
export async function flushErrors(timeoutMs: number): Promise<void> {
  await client?.flush(timeoutMs).catch(() => undefined);
}
