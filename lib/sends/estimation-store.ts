/**
 * The estimation platform send record: one row per claim (ESTSEND#<claim_id>)
 * that serialises the claim's sends and remembers the last one, so a send
 * interrupted anywhere can be finished and a repeated one answered.
 *
 * - A send holds a lease (owner, lease_until) taken with a conditional write:
 *   one send per claim at a time; a lease left by a dead process expires.
 * - It records each step before the next: the batch and its charge
 *   (state 'sending'), the remote's answer ('delivered'), the local stamps and
 *   the response ('done'), or a refusal ('failed', which moves the charge
 *   round on, written in one transaction with the refund it owes, before the
 *   refund is asked for). Every write after the lease is conditional on the
 *   owner, so a process that lost its lease can no longer write.
 * - The batch's item ids are rows of their own in the claim's send partition
 *   (ITEM#<batch_id>#<item_id>), not lists on the record, so a send of
 *   thousands of items never meets DynamoDB's 400 KB row limit.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { owedSendRefundPut, type UnconfirmedSpend } from '../billing/send-refund-store';
import { deleteKeys, partitionKeys, putRows } from '../db/batch';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { indexRows, partitionRows } from '../db/query';
import { setClauses } from '../db/update';
import type { Destination, Pricing } from './estimation-rules';

type SendState = 'sending' | 'delivered' | 'done' | 'failed';

export interface RemoteOutcome {
  claim_key: string;
  claim_id: string;
  created: boolean;
  added: number;
  skipped: number;
}

/** The response of a finished send (also replayed to a repeat of it). */
export interface SendResult {
  claim_key: string;
  claim_id: string;
  created: boolean;
  items_sent: number;
  item_ids: string[];
  added: number;
  skipped: number;
  credits_charged: number;
  photos_included: number;
  dry_run: boolean;
  warnings: string[];
  sent_at: string;
}

type StoredSendResult = Omit<SendResult, 'item_ids'>;

export interface EstimationSend {
  claim_id: string;
  team_id: string;
  owner: string;
  /** Epoch ms; a lease in the past is free. */
  lease_until: number;
  state: SendState;
  /** Charge round of the current (or last) attempt; moves on after a refunded failure. */
  round: number;
  reference: string | null;
  /** Credits the attempt spent (0 when uncharged). */
  credits: number;
  /** The spend's answer was lost: the service may hold it. */
  charge_unconfirmed: boolean;
  /** That lost spend, as asked: a refund of it asks for it again first (send-refund-store.ts). */
  charge_spend?: UnconfirmedSpend | null;
  /** The current (or last) batch: its item rows are ITEM#<batch_id>#…; null before the first. */
  batch_id: string | null;
  item_count: number;
  destination: Destination | null;
  pricing: Pricing | null;
  photos_included: number;
  warnings: string[];
  dry_run: boolean;
  sender_user_id: string | null;
  remote: RemoteOutcome | null;
  /** The finished send's response, without its item ids (those are the batch's rows). */
  result: StoredSendResult | null;
  updated_at: string;
}

export async function getEstimationSend(claimId: string): Promise<EstimationSend | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.estimationSend(claimId), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as EstimationSend) : null;
}

/**
 * Takes the claim's send lease for `owner` until `leaseUntil` when it is free
 * (no record, or its lease in the past). Answers the record as it was before
 * (null when there was none), or `busy` when another send holds the lease.
 * With `interrupted` (the send sweep's take-over of a send it saw open with
 * an expired lease) it takes the lease only while the record is still that
 * send: still open ('sending', 'delivered') under the lease seen; one that
 * another process has taken over, finished or failed since answers `busy`.
 */
export async function acquireSendLease(
  claim: { id: string; team_id: string },
  owner: string,
  now: number,
  leaseUntil: number,
  interrupted?: { leaseSeen: number },
): Promise<{ busy: true } | { busy: false; previous: EstimationSend | null }> {
  const free = 'attribute_not_exists(pk) OR lease_until < :now';
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.estimationSend(claim.id),
        UpdateExpression:
          'SET #owner = :owner, lease_until = :until, claim_id = :claim, team_id = :team, entity = :entity, updated_at = :at',
        ConditionExpression: interrupted
          ? 'lease_until < :now AND lease_until = :seen AND #state IN (:sending, :delivered)'
          : free,
        ExpressionAttributeNames: { '#owner': 'owner', ...(interrupted ? { '#state': 'state' } : {}) },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':until': leaseUntil,
          ':claim': claim.id,
          ':team': claim.team_id,
          ':entity': 'EstimationSend',
          ':at': new Date(now).toISOString(),
          ':now': now,
          ...(interrupted ? { ':seen': interrupted.leaseSeen, ':sending': 'sending', ':delivered': 'delivered' } : {}),
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const previous = Attributes?.state ? (withoutKeys(Attributes) as unknown as EstimationSend) : null;
    return { busy: false, previous };
  } catch (err) {
    if (isConditionalCheckFailed(err)) return { busy: true };
    throw err;
  }
}

type StepFields = Partial<Omit<EstimationSend, 'claim_id' | 'team_id' | 'owner'>>;

/** The conditional update of a step (see recordSendStep), also usable as one item of a transaction. */
function stepUpdate(claimId: string, owner: string, fields: StepFields, options: { release?: boolean }) {
  const at = new Date().toISOString();
  // A send between its record and its end ('sending', 'delivered') is on the open index, so the send sweep
  // finishes it if its process dies and no later send of the claim comes to do it.
  const open = fields.state === 'sending' || fields.state === 'delivered';
  const closed = fields.state === 'done' || fields.state === 'failed';
  const set = setClauses({
    ...fields,
    ...(options.release ? { lease_until: 0 } : {}),
    ...(open ? { activepk: indexes.openEstimationSends().pk, activesk: `${at}#${claimId}` } : {}),
    updated_at: at,
  });
  return {
    TableName: tableName(),
    Key: keys.estimationSend(claimId),
    UpdateExpression: `SET ${set.expression}${closed ? ' REMOVE activepk, activesk' : ''}`,
    ConditionExpression: '#owner_ = :owner_',
    ExpressionAttributeNames: { ...set.names, '#owner_': 'owner' },
    ExpressionAttributeValues: { ...set.values, ':owner_': owner },
  };
}

/**
 * Writes the step's fields while `owner` still holds the lease; `release`
 * frees it. False when the lease was lost (another send took it over).
 */
export async function recordSendStep(
  claimId: string,
  owner: string,
  fields: StepFields,
  options: { release?: boolean } = {},
): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(stepUpdate(claimId, owner, fields, options)));
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/**
 * Records a refused attempt while `owner` still holds the lease: state
 * 'failed', the charge round moved on to `nextRound`, the lease released and,
 * in the same transaction, the refund of its charge owed to the team (the
 * billing sweep asks for it until the service confirms it). Only then may the
 * refund be asked for: a refunded reference must never be left on a record
 * still 'sending', which the next send would finish under it for free. False
 * when the lease was lost (the send is another's now: nothing is owed).
 */
export async function recordSendFailure(
  claimId: string,
  owner: string,
  nextRound: number,
  refund: { teamId: string; reference: string; spend?: UnconfirmedSpend } | null,
): Promise<boolean> {
  const fields: StepFields = { state: 'failed', round: nextRound, remote: null, result: null };
  if (!refund) return recordSendStep(claimId, owner, fields, { release: true });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: stepUpdate(claimId, owner, fields, { release: true }) },
          { Put: owedSendRefundPut(refund.teamId, refund.reference, new Date(), undefined, refund.spend) },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    const [record, owed] = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (record?.Code === 'ConditionalCheckFailed') return false;
    // The refund is owed already (recorded by an earlier attempt under this reference): the failure alone.
    if (owed?.Code === 'ConditionalCheckFailed' && (!record?.Code || record.Code === 'None'))
      return recordSendStep(claimId, owner, fields, { release: true });
    throw err;
  }
}

/** Frees the lease without recording a step (a send refused before it started: nothing to remember). */
export async function releaseSendLease(claimId: string, owner: string): Promise<void> {
  await recordSendStep(claimId, owner, {}, { release: true });
}

/** The claims whose estimation send is between its record and its end (its process may have died). */
export async function* openEstimationSendClaimIds(): AsyncGenerator<string> {
  for await (const row of indexRows(indexes.openEstimationSends())) yield String(row.pk).slice('ESTSEND#'.length);
}

/** Writes the item rows of a new batch, after dropping those of earlier batches. */
export async function recordBatchItems(claimId: string, batchId: string, itemIds: string[]): Promise<void> {
  const earlier = (await partitionKeys(keys.estimationSend(claimId).pk)).filter((k) => k.sk.startsWith('ITEM#'));
  await deleteKeys(earlier);
  await putRows(
    itemIds.map((itemId) => ({
      ...keys.estimationSendItem(claimId, batchId, itemId),
      entity: 'EstimationSendItem',
      item_id: itemId,
    })),
  );
}

/** The item ids of the record's batch (a record written before batches had rows keeps them in a list). */
export async function batchItemIds(record: Pick<EstimationSend, 'claim_id' | 'batch_id'>): Promise<string[]> {
  if (!record.batch_id) return (record as { item_ids?: string[] }).item_ids ?? [];
  const ids: string[] = [];
  for await (const row of partitionRows(keys.estimationSend(record.claim_id).pk, {
    skPrefix: `ITEM#${record.batch_id}#`,
    consistent: true,
    projection: 'item_id',
  }))
    ids.push(String(row.item_id));
  return ids;
}

/** The purge's part: the record and its batch rows go with the claim. */
export async function deleteEstimationSend(claimId: string): Promise<void> {
  await deleteKeys(await partitionKeys(keys.estimationSend(claimId).pk));
}
