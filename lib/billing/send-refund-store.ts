/**
 * Refunds of failed sends that the billing service has not confirmed yet: one
 * row per charge reference (keys.owedSendRefund), written before the refund
 * call and removed once the service answers it, listed meanwhile in the
 * pending-billing index the billing sweep walks (beside jobs owing billing).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { keys, withoutKeys } from '../db/keys';
import { pendingEntry } from './settlement-store';

export interface OwedSendRefund {
  reference: string;
  team_id: string;
  owed_at: string;
}

/**
 * The write that records the refund of `reference` as owed to the team, also
 * usable as one item of a transaction (a send's failure and its refund owed
 * land together); recording it twice keeps the first.
 */
export function owedSendRefundPut(teamId: string, reference: string, now = new Date()) {
  const at = now.toISOString();
  const row: OwedSendRefund = { reference, team_id: teamId, owed_at: at };
  return {
    TableName: tableName(),
    Item: {
      ...keys.owedSendRefund(reference),
      ...row,
      ...pendingEntry(`SEND#${reference}`, at),
      entity: 'SendRefund',
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/** Records the refund of `reference` as owed to the team; recording it twice keeps the first. */
export async function recordOwedSendRefund(teamId: string, reference: string, now = new Date()): Promise<void> {
  try {
    await db().send(new PutCommand(owedSendRefundPut(teamId, reference, now)));
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

export async function getOwedSendRefund(reference: string): Promise<OwedSendRefund | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.owedSendRefund(reference), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as OwedSendRefund) : null;
}

/** The service confirmed the refund: nothing is owed any more. */
export async function clearOwedSendRefund(reference: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.owedSendRefund(reference) }));
}

/** Still owed after a try: to the back of the index, so refunds the service keeps refusing never hold up others. */
export async function deferOwedSendRefund(reference: string, now = new Date()): Promise<void> {
  const entry = pendingEntry(`SEND#${reference}`, now.toISOString());
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.owedSendRefund(reference),
        UpdateExpression: 'SET archsk = :sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':sk': entry.archsk },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}
