/**
 * The billing a job owes, as stored on the job row: refunds_owed, refund_state,
 * billing_unconfirmed and the sparse pending-billing index (BILLING#PENDING,
 * lib/db/keys.ts) that the billing sweep walks. Every write is conditional, so
 * a settlement that loses to a newer write (billing_version moved) changes
 * nothing and reads the job again.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { indexRows } from '../db/query';
import { setClauses } from '../db/update';
import { type Job, type OwedRefund, updateJob } from '../jobs/job-store';

/** The pending-billing index entry (lib/db/keys.ts). */
export const pendingEntry = (jobId: string, at: string) => ({
  archpk: indexes.pendingBilling().pk,
  archsk: `${at}#${jobId}`,
});

/**
 * What a run-ending write adds to record refunds owed: merge them into the
 * job's list (by reference: recording one twice is harmless, the service
 * refunds a reference once), mark pending, list the job for the sweep.
 */
export function owedFields(job: Pick<Job, 'id' | 'refunds_owed'>, owed: (OwedRefund | null)[], now = new Date()) {
  const fresh = owed.filter((o): o is OwedRefund => o !== null);
  if (!fresh.length) return { set: {}, add: {} };
  const merged = [...(job.refunds_owed ?? []).filter((o) => !fresh.some((f) => f.reference === o.reference)), ...fresh];
  return {
    set: { refunds_owed: merged, refund_state: 'pending' as const, ...pendingEntry(job.id, now.toISOString()) },
    add: { billing_version: 1 },
  };
}

/**
 * Records a round's whole refund as owed, while the round is still charged
 * and not given back; null when it no longer is (a racing refund or a new round).
 */
export async function markRefundOwed(job: Pick<Job, 'id' | 'refunds_owed'>, owed: OwedRefund): Promise<Job | null> {
  const fields = owedFields(job, [owed]);
  return updateJob(job.id, {
    set: fields.set,
    add: fields.add,
    condition: 'billing_charged = :true AND billing_refunded = :false AND billing_rounds = :round',
    values: { ':true': true, ':false': false, ':round': owed.round },
  });
}

/** What one settlement pass records on the job. */
export interface SettlementRecord {
  changes: Partial<Job>;
  /** The refunds still owed. */
  remaining: OwedRefund[];
  /** The whole spend of the current round was given back (billing_refunded). */
  refundedWhole: boolean;
  /** Something stays owed: the job stays in the index. */
  pending: boolean;
}

/**
 * Records a settlement: what stays owed, and the index entry only while
 * something does. A job left owed moves to the back of the index, so jobs the
 * service keeps refusing never hold up the others. Conditional on the
 * billing_version the settlement read; null when a newer write won.
 */
export async function recordSettlement(job: Job, record: SettlementRecord): Promise<Job | null> {
  const { changes, remaining, refundedWhole, pending } = record;
  const hadRefunds = (job.refunds_owed ?? []).length > 0;
  const at = new Date().toISOString();
  const set = setClauses({
    ...changes,
    refunds_owed: remaining,
    ...(hadRefunds || job.refund_state ? { refund_state: remaining.length ? 'pending' : 'done' } : {}),
    ...(refundedWhole ? { billing_refunded: true } : {}),
    ...(pending ? pendingEntry(job.id, at) : {}),
    updated_at: at,
  });
  const values: Record<string, unknown> = { ...set.values, ':one': 1 };
  const names: Record<string, string> = { ...set.names, '#billing_version': 'billing_version' };
  let condition = 'attribute_exists(pk) AND attribute_not_exists(#billing_version)';
  if (job.billing_version !== undefined) {
    condition = 'attribute_exists(pk) AND #billing_version = :seen';
    values[':seen'] = job.billing_version;
  }
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.job(job.id),
        UpdateExpression: `SET ${set.expression} ADD #billing_version :one${pending ? '' : ' REMOVE archpk, archsk'}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Job;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** What the pending-billing index lists: a job owing billing, or the refund of a failed send. */
export type PendingBilling = { kind: 'job'; jobId: string } | { kind: 'send-refund'; reference: string };

/** The entries of the pending-billing index, oldest first, read a page at a time. */
export async function* pendingBillingEntries(): AsyncGenerator<PendingBilling> {
  for await (const row of indexRows(indexes.pendingBilling())) {
    const pk = String(row.pk);
    if (pk.startsWith('JOB#')) yield { kind: 'job', jobId: pk.slice('JOB#'.length) };
    else if (pk.startsWith('SENDREFUND#')) yield { kind: 'send-refund', reference: pk.slice('SENDREFUND#'.length) };
  }
}
