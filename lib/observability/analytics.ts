/**
 * Product analytics (PostHog's capture API) when POSTHOG_API_KEY is set:
 * events are queued in memory as they happen (captureAnalytics never waits or
 * throws) and sent in one `POST /batch/` when the invocation ends
 * (flushAnalytics, from flush.ts), abandoned after SIGNALS_TIMEOUT_MS. A batch
 * that cannot be sent is dropped with a warning: analytics never retries into
 * a later request's time.
 */
import { settings } from '../config';
import { type AnalyticsEvent, analyticsTarget, batchBody } from './analytics-rules';
import { logger } from './logger';
import { outboundIdKey, withOutboundIds } from './outbound-id-rules';

/** A container that cannot send keeps at most this many events; the oldest go first. */
const MAX_QUEUED = 1000;

const queue: AnalyticsEvent[] = [];

/** Whether analytics is on: callers skip work (a lookup) that only an event needs. */
export function analyticsEnabled(): boolean {
  return analyticsTarget(settings()) !== null;
}

/**
 * Queues an event for the end of the invocation, its UUIDs (the distinct id
 * too) already replaced by their keyed hashes (outbound-id-rules.ts);
 * nothing when analytics is off.
 */
export function captureAnalytics(event: AnalyticsEvent): void {
  if (!analyticsEnabled()) return;
  queue.push(withOutboundIds(event, outboundIdKey(settings())));
  if (queue.length > MAX_QUEUED) queue.splice(0, queue.length - MAX_QUEUED);
}

/** Sends the queued events in one batch; never throws. */
export async function flushAnalytics(): Promise<void> {
  if (queue.length === 0) return;
  const config = settings();
  const target = analyticsTarget(config);
  const events = queue.splice(0);
  if (!target) return;
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batchBody(target.apiKey, events)),
      signal: AbortSignal.timeout(config.SIGNALS_TIMEOUT_MS),
      // Never followed: a redirect would carry the signals to wherever it points.
      redirect: 'manual',
    });
    // The answer's body is not needed; reading it frees the connection.
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) logger.warn('analytics batch refused; dropped', { status: res.status, events: events.length });
  } catch (err) {
    logger.warn('analytics batch not sent; dropped', { events: events.length, error: String(err) });
  }
}
