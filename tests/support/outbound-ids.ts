/**
 * What an id looks like in the outbound signals the fakes receive (traces,
 * logs, error reports, analytics): its keyed hash under the stack's
 * SIGNALS_ID_KEY (set for the stack and the test processes by global-setup).
 */
import { outboundId } from '../../lib/observability/outbound-id-rules';

export function signalId(id: string): string {
  const key = process.env.SIGNALS_ID_KEY;
  if (!key) throw new Error('SIGNALS_ID_KEY is not set: run under the service test setup');
  return outboundId(id, Buffer.from(key, 'utf8'));
}
