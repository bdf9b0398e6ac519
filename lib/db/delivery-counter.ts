/**
 * Delivery counts of messages that no queue counts: a message handed to a
 * worker by direct invoke (lib/queue/dispatch.ts) while SQS is down, which
 * Lambda redelivers with the same event when the invocation fails. One row per
 * message id (keys.directDelivery), an atomic ADD per delivery, expiring a day on.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { keys } from './keys';

/** A direct delivery row outlives every retry of its message. */
const DIRECT_DELIVERY_TTL_SECONDS = 24 * 3600;

/** Counts one more delivery of the message; which delivery this is (1 = the first). */
export async function countDirectDelivery(messageId: string, now = new Date()): Promise<number> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.directDelivery(messageId),
      UpdateExpression: 'ADD deliveries :one SET expires_at = if_not_exists(expires_at, :expires), entity = :entity',
      ExpressionAttributeValues: {
        ':one': 1,
        ':expires': Math.floor(now.getTime() / 1000) + DIRECT_DELIVERY_TTL_SECONDS,
        ':entity': 'DirectDelivery',
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.deliveries ?? 1);
}
