/**
 * The end of an invocation: Lambda freezes the container as soon as the
 * handler returns, so what the outbound signals hold (spans, metrics, log
 * records, analytics events, error reports) is sent now, all at once, and
 * never waited for longer than SIGNALS_TIMEOUT_MS: a collector, analytics or
 * error-tracking service that is down, refusing or hanging costs the
 * invocation at most that. With nothing configured, or nothing to send, it
 * returns at once without a network call.
 */
import { settings } from '../config';
import { flushAnalytics } from './analytics';
import { flushErrors } from './error-tracking';
import { logger } from './logger';
import { flushOtel } from './otel';

export async function flushSignals(): Promise<void> {
  const bound = settings().SIGNALS_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), bound);
  });
  try {
    const outcome = await Promise.race([
      Promise.allSettled([flushErrors(bound), flushAnalytics(), flushOtel()]).then(() => 'sent' as const),
      timedOut,
    ]);
    if (outcome === 'timeout') logger.warn('outbound signals not all sent in time; left behind', { bound_ms: bound });
  } finally {
    clearTimeout(timer);
  }
}

/** Wraps a handler (a schedule) so the signals it left are sent before it returns, whether it returned or threw. */
export function withSignalsFlushed<A extends unknown[], R>(handler: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } finally {
      await flushSignals();
    }
  };
}
