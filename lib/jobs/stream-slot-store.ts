/**
 * Stream slot leases (keys.jobStreamSlot): a job has a fixed number of slots,
 * and an open event stream holds one. A slot is taken with a conditional put
 * (free, or its lease ran out) and deleted on close; a holder that dies
 * without closing frees its slot when the lease runs out (TTL then removes
 * the row).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { keys } from '../db/keys';

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
    const key = keys.jobStreamSlot(jobId, (first + i) % limits.slots);
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            entity: 'JobStreamSlot',
            holder,
            lease_until_ms: now + limits.leaseMs,
            expires_at: Math.ceil((now + limits.leaseMs) / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR lease_until_ms < :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) continue;
      throw err;
    }
    return {
      release: async () => {
        try {
          await db().send(
            new DeleteCommand({
              TableName: tableName(),
              Key: key,
              ConditionExpression: 'holder = :holder',
              ExpressionAttributeValues: { ':holder': holder },
            }),
          );
        } catch (err) {
          // Our lease ran out and another stream took the slot: it is theirs now.
          if (!isConditionalCheckFailed(err)) throw err;
        }
      },
    };
  }
  return null;
}
