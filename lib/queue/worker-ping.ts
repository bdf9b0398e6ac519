/**
 * Worker liveness: the watchdog sends this ping through the stages queue
 * every minute, so a healthy deployment has a worker run (and stamp its
 * heartbeat, heartbeat-store.ts) at least every minute; sqs-worker.ts drops
 * the ping without handing it to the worker's handler.
 */

/** Sent through the stages queue by the watchdog every minute. */
export const PING_BODY = JSON.stringify({ kind: 'ping' });
