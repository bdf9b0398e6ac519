/**
 * A request cut off where a crash or a timeout would cut it: through the real
 * route, at a named fault point (lib/faults) the test arms for the job. The
 * job's billing rows the sweeps read, and the passing of a round's lease.
 */
import { pendingBillingEntries } from '../../lib/billing/settlement-store';
import { unstartedRoundLeaseMs } from '../../lib/billing/settlement-rules';
import type { FaultPointName } from '../../lib/faults/fault-points';
import type { Client } from './api';
import { setFields } from './aws';
import { armFaultPoint, faultPointTripped } from './fault-points';

/**
 * The job's click (`action`: process or read-the-rest) through the real route, ended at `point`: the invocation
 * fails and the point has tripped, so nothing after it ran.
 */
export async function clickEndedAt(
  client: Client,
  jobId: string,
  point: FaultPointName,
  action: 'process' | 'read-the-rest' = 'process',
): Promise<void> {
  armFaultPoint(point, jobId);
  const res = await client.post(`/api/jobs/${jobId}/${action}`);
  if (res.status < 500 || !faultPointTripped(point, jobId))
    throw new Error(`${action} was not ended at ${point}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The job's entry on the pending-billing index, as the billing sweep reads it; null when it is not listed. */
export async function sweepEntryOf(jobId: string) {
  for await (const entry of pendingBillingEntries()) if (entry.kind === 'job' && entry.jobId === jobId) return entry;
  return null;
}

/** What time does to a job's charged round (or its spend asked for and not recorded): its lease runs out. */
export const leaseRunsOut = (jobId: string) =>
  setFields(`JOB#${jobId}`, 'JOB', {
    billing_charged_at: new Date(Date.now() - unstartedRoundLeaseMs() - 1000).toISOString(),
  });
