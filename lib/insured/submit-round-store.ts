/**
 * The link's writes that hand a homeowner submit round on and give it up
 * (lib/insured/submit-service.ts decides when; submit-round-service.ts gives
 * a round up). Each is conditional on the round still being open, so a round
 * made or given up meanwhile is left alone.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { keys } from '../db/keys';

const ROUND_OPEN = 'submit_round = :round AND (attribute_not_exists(submitted_round) OR submitted_round < :round)';
/** Row releases in flight at once (all rows of a link share its partition). */
const RELEASES_IN_FLIGHT = 8;

/**
 * Counts one more making of open submit `round` and stamps when it was handed
 * on (the round is stale again a stale period after `at`), in one conditional
 * write: unless a maker holds the round's lease (at `leaseNow`, the clock the
 * makers write leases with) or the round has had `max` makings. True when
 * counted: the caller then queues it.
 */
export async function countSubmitAttempt(
  linkId: string,
  round: number,
  max: number,
  at: Date,
  leaseNow: Date,
): Promise<boolean> {
  const stamp = at.toISOString();
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.insuredLink(linkId),
        UpdateExpression: 'SET submit_handed_at = :at, activesk = :sk ADD submit_attempts :one',
        ConditionExpression: `${ROUND_OPEN} AND (attribute_not_exists(submit_lease_until) OR submit_lease_until = :none OR submit_lease_until < :now) AND (attribute_not_exists(submit_attempts) OR submit_attempts < :max)`,
        ExpressionAttributeValues: {
          ':round': round,
          ':none': null,
          ':now': leaseNow.toISOString(),
          ':max': max,
          ':at': stamp,
          ':sk': `${stamp}#${linkId}`,
          ':one': 1,
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Gives rows taken by `round` back to the draft (no round, no job); a row removed or not in it is left alone. */
export async function releaseRoundRows(rows: { pk: string; sk: string }[], round: number): Promise<void> {
  const limit = pLimit(RELEASES_IN_FLIGHT);
  await Promise.all(
    rows.map((key) =>
      limit(async () => {
        try {
          await db().send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key,
              UpdateExpression: 'SET #round = :none, #job = :none',
              ConditionExpression: '#round = :round',
              ExpressionAttributeNames: { '#round': 'round', '#job': 'job_id' },
              ExpressionAttributeValues: { ':round': round, ':none': null },
            }),
          );
        } catch (err) {
          if (!isConditionalCheckFailed(err)) throw err;
        }
      }),
    ),
  );
}

/**
 * Ends open round `round` given up: the round is over (the next submit starts
 * the one after it), the link leaves the open-submits index and the lease is
 * given back. submitted_at stays the last made round's.
 */
export async function endGivenUpRound(linkId: string, round: number, at: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.insuredLink(linkId),
      UpdateExpression:
        'SET submitted_round = :round, submit_lease_until = :none, updated_at = :at REMOVE activepk, activesk',
      ConditionExpression: ROUND_OPEN,
      ExpressionAttributeValues: { ':round': round, ':none': null, ':at': at },
    }),
  );
}
