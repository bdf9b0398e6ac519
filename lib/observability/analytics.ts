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
import { sendOutbound } from './outbound-http';
import { outboundIdKey, withOutboundIds } from './outbound-id-rules';

/** A container that cannot send keeps at most this many events; the oldest go first. */
const MAX_QUEUED = 1000;

const queue: AnalyticsEvent[] = [];

/** The capture API answers a few bytes; more is read no further. */
const ANSWER_MAX_BYTES = 64 * 1024;

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
  const result = await sendOutbound(
    // Never retried, never followed: a redirect would carry the signals to wherever it points.
    { timeoutMs: config.SIGNALS_TIMEOUT_MS, attempts: 1, backoffMs: 0, maxBytes: ANSWER_MAX_BYTES },
    {
      url: target.url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batchBody(target.apiKey, events)),
    },
    // The answer's body is not needed; reading it frees the connection.
    ({ status }) => status,
  );
  if (result.ok && result.value >= 200 && result.value < 300) return;
  if (result.ok || result.failure.status !== null)
    logger.warn('analytics batch refused; dropped', {
      status: result.ok ? result.value : result.failure.status,
      events: events.length,
    });
  else logger.warn('analytics batch not sent; dropped', { events: events.length, error: result.failure.message });
}
