/**
 * The billing a job owes, as stored on the job row: refunds_owed, refund_state,
 * billing_unconfirmed and the sparse pending-billing index (BILLING#PENDING,
 * lib/db/keys.ts) that the billing sweep walks. A job is listed there from the
 * moment a round's spend is asked for (so a round whose record or start never
 * comes is found) and while it owes anything. Every write is conditional, so a settlement that loses to a
 * newer write (billing_version moved) changes nothing and reads the job again.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { billingIndexes } from './keys';
import { jobKeys } from '../jobs/keys';
import { indexRows } from '../db/query';
import { setClauses } from '../db/update';
import { updateJob } from '../jobs/job-store';
import type { Job, OwedRefund } from '../jobs/job-record-rules';

/** The pending-billing index entry (billingIndexes.pendingBilling; lib/db/keys.ts describes the index). */
export const pendingEntry = (jobId: string, at: string) => ({
  archpk: billingIndexes.pendingBilling().pk,
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
 * Gives up a round no run started on: records its whole refund as owed and
 * marks it abandoned (billing_round_abandoned), so no start can use it any
 * more. Conditional on the round still being the job's, charged, not given
 * back and not started: a start and this write race on the job row, and
 * exactly one of them wins. Null when it lost (the run started, a racing
 * refund or a new round).
 */
export async function abandonRound(job: Pick<Job, 'id' | 'refunds_owed'>, owed: OwedRefund): Promise<Job | null> {
  const fields = owedFields(job, [owed]);
  return updateJob(job.id, ['billing'], {
    set: { ...fields.set, billing_round_abandoned: true },
    add: fields.add,
    condition:
      'billing_charged = :true AND billing_refunded = :false AND billing_rounds = :round AND ' +
      '(attribute_not_exists(billing_round_started) OR billing_round_started = :false)',
    values: { ':true': true, ':false': false, ':round': owed.round },
  });
}

/**
 * Gives up a spend whose answer was never recorded: records its round as
 * charged but unconfirmed (it may have been made), abandoned, with its whole
 * refund owed, so the settlement asks the service again under its reference
 * and gives back what it took. Conditional on the spend still being
 * unrecorded; null when it lost (its request recorded it after all, or the
 * round moved on).
 */
export async function abandonUnrecordedSpend(
  job: Pick<Job, 'id' | 'refunds_owed'>,
  spend: { round: number; previous: number; amount: number; refund: OwedRefund },
): Promise<Job | null> {
  const fields = owedFields(job, [spend.refund]);
  return updateJob(job.id, ['billing'], {
    set: {
      ...fields.set,
      billing_charged: true,
      billing_txn_id: null,
      billing_amount: spend.amount,
      billing_rounds: spend.round,
      billing_refunded: false,
      billing_unconfirmed: true,
      billing_round_started: false,
      billing_round_abandoned: true,
      billing_spend_round: null,
      billing_spend_amount: null,
    },
    add: fields.add,
    condition:
      'billing_spend_round = :round AND ' +
      (spend.previous === 0
        ? '(attribute_not_exists(billing_rounds) OR billing_rounds = :prev)'
        : 'billing_rounds = :prev'),
    values: { ':round': spend.round, ':prev': spend.previous },
  });
}

/** What one settlement pass records on the job. */
export interface SettlementRecord {
  changes: Partial<Job>;
  /** The refunds still owed. */
  remaining: OwedRefund[];
  /** The whole spend of the current round was given back (billing_refunded). */
  refundedWhole: boolean;
  /** The job stays in the index: something stays owed, or its round is charged and not started yet. */
  listed: boolean;
}

/**
 * Records a settlement: what stays owed, and the index entry only while the
 * job is listed. A job left listed moves to the back of the index, so jobs the
 * service keeps refusing never hold up the others. Conditional on the
 * billing_version the settlement read; null when a newer write won.
 */
export async function recordSettlement(job: Job, record: SettlementRecord): Promise<Job | null> {
  const { changes, remaining, refundedWhole, listed } = record;
  const hadRefunds = (job.refunds_owed ?? []).length > 0;
  const at = new Date().toISOString();
  const set = setClauses({
    ...changes,
    refunds_owed: remaining,
    ...(hadRefunds || job.refund_state ? { refund_state: remaining.length ? 'pending' : 'done' } : {}),
    ...(refundedWhole ? { billing_refunded: true } : {}),
    ...(listed ? pendingEntry(job.id, at) : {}),
    updated_at: at,
  });
  const seen = versionSeen(job);
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKeys.job(job.id),
        UpdateExpression: `SET ${set.expression} ADD #billing_version :one${listed ? '' : ' REMOVE archpk, archsk'}`,
        ConditionExpression: seen.condition,
        ExpressionAttributeNames: { ...set.names, ...seen.names },
        ExpressionAttributeValues: { ...set.values, ...seen.values, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Job;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** The condition that the job row still holds the billing_version a settlement read. */
function versionSeen(job: Pick<Job, 'billing_version'>) {
  const names = { '#billing_version': 'billing_version' };
  if (job.billing_version === undefined)
    return { condition: 'attribute_exists(pk) AND attribute_not_exists(#billing_version)', names, values: {} };
  return {
    condition: 'attribute_exists(pk) AND #billing_version = :seen',
    names,
    values: { ':seen': job.billing_version } as Record<string, unknown>,
  };
}

/**
 * Takes a job that owes nothing and has no round waiting for its start off
 * the index (a round is listed from its charge, and its start leaves it
 * listed). Conditional on the billing_version read: a newer charge or refund
 * keeps it listed. False when that write lost.
 */
export async function unlistSettledJob(job: Pick<Job, 'id' | 'billing_version'>): Promise<boolean> {
  const seen = versionSeen(job);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKeys.job(job.id),
        UpdateExpression: 'REMOVE archpk, archsk',
        ConditionExpression: seen.condition,
        ExpressionAttributeNames: seen.names,
        ...(Object.keys(seen.values).length ? { ExpressionAttributeValues: seen.values } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** What the pending-billing index lists: a job owing billing, or the refund of a failed send. */
export type PendingBilling = { kind: 'job'; jobId: string } | { kind: 'send-refund'; reference: string };

/** The entries of the pending-billing index, oldest first, read a page at a time. */
export async function* pendingBillingEntries(): AsyncGenerator<PendingBilling> {
  for await (const row of indexRows(billingIndexes.pendingBilling())) {
    const pk = String(row.pk);
    if (pk.startsWith('JOB#')) yield { kind: 'job', jobId: pk.slice('JOB#'.length) };
    else if (pk.startsWith('SENDREFUND#')) yield { kind: 'send-refund', reference: pk.slice('SENDREFUND#'.length) };
  }
}
