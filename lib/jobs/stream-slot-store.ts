/**
 * Stream slot leases (jobKeys.jobStreamSlot): a job has a fixed number of slots,
 * and an open event stream holds one. A slot is taken with a conditional write
 * (free, or its lease ran out: lib/db/lease.ts) and deleted on close; a holder that dies
 * without closing frees its slot when the lease runs out (TTL then removes
 * the row).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { jobKeys } from './keys';
import { releaseLease, takeLease } from '../db/lease';

/** A slot row is only its lease: a holder and the epoch ms it runs until (expires_at lets TTL remove it). */
const SLOT_LEASE = { holder: 'holder', until: 'lease_until_ms' };

export interface StreamSlot {
  release(): Promise<void>;
}

/** Takes one of the job's `slots` stream slots that is free (or expired) for `leaseMs`; null when all are held. */
export async function claimStreamSlot(
  jobId: string,
  limits: { slots: number; leaseMs: number },
  now = Date.now(),
): Promise<StreamSlot | null> {
  const holder = randomUUID();
  // Starting at a random slot keeps simultaneous openers from racing for the same row.
  const first = randomInt(limits.slots);
  for (let i = 0; i < limits.slots; i++) {
    const key = jobKeys.jobStreamSlot(jobId, (first + i) % limits.slots);
    const untilMs = now + limits.leaseMs;
    const set = { entity: 'JobStreamSlot', expires_at: Math.ceil(untilMs / 1000) };
    if (!(await takeLease({ key, lease: SLOT_LEASE, holder, untilMs, nowMs: now, set }))) continue;
    return {
      // A slot another stream took once our lease ran out is theirs now: only our own row is deleted.
      release: async () => void (await releaseLease(key, SLOT_LEASE, holder, { deleteRow: true })),
    };
  }
  return null;
}
