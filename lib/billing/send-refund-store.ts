/**
 * Refunds of failed sends that the billing service has not confirmed yet: one
 * row per refund (billingKeys.owedSendRefund: the charge reference for a whole
 * refund, the refund's own reference for a part of a charge, such as one
 * item of a send that failed for good), written before the refund call and
 * removed once the service answers it, listed meanwhile in the pending-billing
 * index the billing sweep walks (beside jobs owing billing). A refund of a
 * charge whose answer was lost carries that spend, so whoever settles the row
 * asks for it again under its reference before refunding it.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { billingKeys } from './keys';
import { pendingEntry } from './settlement-store';
import type { OwedSendRefund, UnconfirmedSpend } from './send-refund-record-rules';

/** The key an owed refund is kept and settled under: the charge's reference, or the part's own. */
export const owedRefundKey = (owed: Pick<OwedSendRefund, 'reference' | 'part'>) =>
  owed.part?.refund_reference ?? owed.reference;

/**
 * The write that records the refund of `reference` (or of `part` of it) as
 * owed to the team, also usable as one item of a transaction (a send's
 * failure and its refund owed land together); recording it twice keeps the
 * first. `spend`: the charge's answer was lost (chargeSend's `spend`).
 */
export function owedSendRefundPut(
  teamId: string,
  reference: string,
  now = new Date(),
  part?: OwedSendRefund['part'],
  spend?: UnconfirmedSpend,
) {
  const at = now.toISOString();
  const row: OwedSendRefund = {
    reference,
    team_id: teamId,
    owed_at: at,
    ...(part ? { part } : {}),
    ...(spend ? { spend } : {}),
  };
  const key = owedRefundKey(row);
  return {
    TableName: tableName(),
    Item: {
      ...billingKeys.owedSendRefund(key),
      ...row,
      ...pendingEntry(`SEND#${key}`, at),
      entity: 'SendRefund',
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/** Records the refund of `reference` (of `spend`, when unconfirmed) as owed to the team; recording it twice keeps the first. */
export async function recordOwedSendRefund(
  teamId: string,
  reference: string,
  now = new Date(),
  spend?: UnconfirmedSpend,
): Promise<void> {
  try {
    await db().send(new PutCommand(owedSendRefundPut(teamId, reference, now, undefined, spend)));
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** The owed refund kept under `key` (owedRefundKey). */
export async function getOwedSendRefund(key: string): Promise<OwedSendRefund | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: billingKeys.owedSendRefund(key), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as OwedSendRefund) : null;
}

/** The service confirmed the refund: nothing is owed any more. */
export async function clearOwedSendRefund(key: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: billingKeys.owedSendRefund(key) }));
}

/** Still owed after a try: to the back of the index, so refunds the service keeps refusing never hold up others. */
export async function deferOwedSendRefund(key: string, now = new Date()): Promise<void> {
  const entry = pendingEntry(`SEND#${key}`, now.toISOString());
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: billingKeys.owedSendRefund(key),
        UpdateExpression: 'SET archsk = :sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':sk': entry.archsk },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}
