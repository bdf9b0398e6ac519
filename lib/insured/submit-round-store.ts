/**
 * The link's writes that make a homeowner submit round one maker at a time
 * (its lease), hand it on and give it up (lib/insured/submit-service.ts
 * decides when; submit-round-service.ts makes and gives up rounds). Each but
 * the end of a submit is conditional on the round still being open, so a
 * round made or given up meanwhile is left alone.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { keys } from '../db/keys';

const ROUND_OPEN = 'submit_round = :round AND (attribute_not_exists(submitted_round) OR submitted_round < :round)';
/** No maker holds the link's submit lease (at `:now`; a released lease is `:none`). */
const LEASE_FREE =
  '(attribute_not_exists(submit_lease_until) OR submit_lease_until = :none OR submit_lease_until < :now)';
/** Row releases in flight at once (all rows of a link share its partition). */
const RELEASES_IN_FLIGHT = 8;

/**
 * Takes the link's submit lease to make (or give up) open round `round`: one
 * maker at a time. False while another holds it, or once the round is over
 * (made, or given up), so a maker that read the round open before it was
 * given up cannot make it afterwards.
 */
export async function takeSubmitLease(linkId: string, round: number, now: Date, ms: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.insuredLink(linkId),
        UpdateExpression: 'SET submit_lease_until = :until',
        ConditionExpression: `${ROUND_OPEN} AND ${LEASE_FREE}`,
        ExpressionAttributeValues: {
          ':round': round,
          ':until': new Date(now.getTime() + ms).toISOString(),
          ':now': now.toISOString(),
          ':none': null,
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

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
        ConditionExpression: `${ROUND_OPEN} AND ${LEASE_FREE} AND (attribute_not_exists(submit_attempts) OR submit_attempts < :max)`,
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

/** Ends a submit: the round is finished (when one ran) and the lease is given back. */
export async function endSubmit(linkId: string, finished: { round: number; at: string } | null): Promise<void> {
  const set = finished
    ? 'SET submitted_round = :round, submitted_at = :at, submit_lease_until = :none, updated_at = :at REMOVE activepk, activesk'
    : 'SET submit_lease_until = :none';
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.insuredLink(linkId),
      UpdateExpression: set,
      ExpressionAttributeValues: finished
        ? { ':round': finished.round, ':at': finished.at, ':none': null }
        : { ':none': null },
    }),
  );
}
