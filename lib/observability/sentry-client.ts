/**
 * The error-tracking SDK's client (Sentry's official Node SDK), made by
 * error-tracking.ts when a DSN is set. Only error-tracking.ts loads this
 * module, with require() when it first needs it, so a function without a DSN
 * never runs the SDK's code; the imports are named, so bundles keep only the
 * client, the transport contract and the stack parser.
 *
 * The client runs on its own, without the SDK's default integrations: nothing
 * is captured behind our back (no console breadcrumbs, no request data, no
 * host name, no automatic instrumentation), and every event is scrubbed again
 * just before it leaves (scrub-rules.ts), its UUIDs replaced by their keyed
 * hashes (outbound-id-rules.ts).
 */
import { createTransport, defaultStackParser, NodeClient, Scope } from '@sentry/node';
import { sendOutbound } from './outbound-http';
import { withOutboundIds } from './outbound-id-rules';
import type { TrackedEvent } from './scrub-rules';
import { scrubEvent } from './scrub-rules';

/** The envelope endpoint answers a few bytes; more is read no further. */
const ANSWER_MAX_BYTES = 64 * 1024;

type TransportOptions = Parameters<typeof createTransport>[0] & { url: string; headers?: Record<string, string> };

/**
 * The SDK's transport contract over fetch, each request abandoned after
 * `timeoutMs`: a hanging service must not keep requests (and the SDK's
 * send buffer) waiting in a container that lives on.
 */
const boundedTransport = (timeoutMs: number) => (options: TransportOptions) =>
  createTransport(options, async (request) => {
    const result = await sendOutbound(
      // Never retried here (the SDK keeps its own buffer), never followed: a redirect would carry the signals on.
      { timeoutMs, attempts: 1, backoffMs: 0, maxBytes: ANSWER_MAX_BYTES },
      {
        url: options.url,
        method: 'POST',
        headers: { 'content-type': 'application/x-sentry-envelope', ...options.headers },
        body: request.body,
      },
      ({ status, headers }) => ({
        statusCode: status,
        headers: {
          'x-sentry-rate-limits': headers.get('x-sentry-rate-limits'),
          'retry-after': headers.get('retry-after'),
        },
      }),
    );
    if (result.ok) return result.value;
    // A redirect or a too long answer is still the service's answer; no answer at all fails the send.
    if (result.failure.status !== null)
      return { statusCode: result.failure.status, headers: { 'x-sentry-rate-limits': null, 'retry-after': null } };
    throw new Error(result.failure.message);
  });

export interface ErrorClient {
  capture(event: TrackedEvent): void;
  /** Waits for the events in flight, at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
  close(timeoutMs: number): Promise<void>;
}

/** `idKey`: the key of the hashes ids leave as, read at each event (the settings may change). */
export function startErrorClient(
  dsn: string,
  environment: string,
  timeoutMs: number,
  idKey: () => Buffer | null,
): ErrorClient {
  const client = new NodeClient({
    dsn,
    environment,
    transport: boundedTransport(timeoutMs),
    stackParser: defaultStackParser,
    integrations: [],
    sendDefaultPii: false,
    includeServerName: false,
    sendClientReports: false,
    maxBreadcrumbs: 0,
    // The one step every event passes last: whatever the SDK or a caller added goes through it too.
    beforeSend: (event) => withOutboundIds(scrubEvent(event), idKey()),
  });
  client.init();
  return {
    capture(event) {
      // A scope of its own: nothing set elsewhere in the process rides along.
      const scope = new Scope();
      scope.setClient(client);
      client.captureEvent(event as Parameters<NodeClient['captureEvent']>[0], undefined, scope);
    },
    async flush(timeoutMs) {
      await client.flush(timeoutMs);
    },
    async close(timeoutMs) {
      await client.close(timeoutMs);
    },
  };
}
