/**
 * The claim's numbering lease and insert-between renumbering (spec:
 * Inventory, manual add with insert-between numbering).
 *
 * - Whoever writes numbered items of a claim (a pipeline batch, a manual add,
 *   an undo that brings an item back) first takes the lease on the claim row
 *   (numbering_lease: holder, expiry, pending_plan) with a conditional write, and lets
 *   go when its rows are written. A range of numbers is therefore never handed
 *   out while a renumber moves items, nor a renumber started while a range is
 *   handed out but not yet written.
 * - Placing an item at a number that is taken moves every item of the claim
 *   numbered at or above it up by one, highest first, so no two items ever
 *   share a number, in transactions of 99 items that each also record how far
 *   the move got (next_number) and renew the lease. The plan (with the rows of
 *   the placed item) is written to the lease before the first move: if the
 *   holder dies, its lease expires and the next caller of any kind takes it
 *   over and rolls the plan forward before doing its own work.
 * - The item indexes catch up with the table shortly after a write, so a
 *   renumber reads them only once the last writer let go a moment ago, and
 *   then reads each item it found from the table itself.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getRows, putRows } from '../../db/batch';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../../db/client';
import { type LeaseAttributes, leaseAbsent, leaseHeldBy, leaseIs } from '../../db/lease';
import { leaseHeld } from '../../db/lease-rules';
import { claimKeys } from '../../claims/keys';
import { roomIndexes } from '../../rooms/keys';
import { itemKeys } from '../keys';
import { queryAll } from '../../db/query';
import { withRetry, type RetryPolicy } from '../../retry';
import { scanClaimMaximum } from './item-number-store';
import {
  chunked,
  itemsToShift,
  maximumAfter,
  paddedItemNumber,
  placedNumber,
  settleWaitMs,
  type LeaseState,
  type Placement,
} from './numbering-rules';

/** The claim row's numbering lease: a map holding its holder, expiry and the plan in progress. */
const NUMBERING_LEASE: LeaseAttributes = { holder: 'numbering_lease.holder', until: 'numbering_lease.expires_at' };
/** A holder that stops renewing for this long is taken for dead. */
const LEASE_MS = 15_000;
/** How long after the last numbering write the item indexes are read. */
const INDEX_SETTLE_MS = 1_000;
/** Items moved per transaction (DynamoDB takes 100 elements; one is the claim row). */
const SHIFT_CHUNK = 99;

type Row = Record<string, unknown>;

/** A renumber in progress, kept on the lease so another caller can finish it. */
interface NumberingPlan {
  /** The number the placed item takes. */
  at: number;
  /** The highest number still to move up by one; below `at`, nothing is left to move. */
  next_number: number;
  /** Rows written once `at` is free: the placed item's row first, then its photo rows. */
  rows: Row[];
}

interface StoredLease extends LeaseState {
  pending_plan: NumberingPlan | null;
}

interface HeldLease {
  claimId: string;
  holder: string;
  ttlMs: number;
  /** The claim's item_number_max when the lease was taken (absent on a claim that never numbered an item). */
  max: number | undefined;
  /** When the previous holder let go (epoch ms). */
  writtenAt: number | null;
}

/** Another caller holds the lease: wait and ask again. */
class LeaseBusy extends Error {}

/** A shifted item was deleted or moved under us: read the chunk again. */
class ShiftRace extends Error {}

/** Waits up to about half a minute for the lease (a renumber of thousands of items takes a few seconds). */
const LEASE_WAIT: RetryPolicy = {
  attempts: 900,
  backoffMs: 50,
  factor: 1,
  jitter: true,
  retryable: (err) => err instanceof LeaseBusy,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Our lease was taken over (we stalled past its expiry): what we did so far is on the plan the new holder finishes. */
function leaseLost(claimId: string): Error {
  return new Error(`numbering lease of claim ${claimId} was taken over`);
}

async function acquireLease(
  claimId: string,
  ttlMs: number,
): Promise<{ lease: HeldLease; deadPlan: NumberingPlan | null }> {
  const holder = randomUUID();
  return withRetry(async () => {
    const { Item: claim } = await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: claimKeys.claim(claimId),
        ConsistentRead: true,
        ProjectionExpression: 'pk, item_number_max, numbering_lease, numbering_written_at',
      }),
    );
    if (!claim) throw new Error(`claim ${claimId} no longer exists`);
    const current = claim.numbering_lease as StoredLease | undefined;
    const now = Date.now();
    if (leaseHeld(current?.holder, current?.expires_at, now)) throw new LeaseBusy();
    // Taking over an expired lease: only the very lease read (a holder that renewed meanwhile keeps it).
    const free = current ? leaseIs(NUMBERING_LEASE, current.holder, current.expires_at) : leaseAbsent(NUMBERING_LEASE);
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: claimKeys.claim(claimId),
          UpdateExpression: 'SET numbering_lease = :lease',
          ConditionExpression: `attribute_exists(pk) AND ${free.expression}`,
          ExpressionAttributeValues: {
            ':lease': { holder, expires_at: now + ttlMs, pending_plan: current?.pending_plan ?? null },
            ...free.values,
          },
        }),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) throw new LeaseBusy();
      throw err;
    }
    const max = claim.item_number_max === undefined ? undefined : Number(claim.item_number_max);
    const writtenAt = claim.numbering_written_at === undefined ? null : Number(claim.numbering_written_at);
    return { lease: { claimId, holder, ttlMs, max, writtenAt }, deadPlan: current?.pending_plan ?? null };
  }, LEASE_WAIT);
}

async function releaseLease(lease: HeldLease): Promise<void> {
  const mine = leaseHeldBy(NUMBERING_LEASE, lease.holder);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: claimKeys.claim(lease.claimId),
        UpdateExpression: 'REMOVE numbering_lease SET numbering_written_at = :now',
        ConditionExpression: mine.expression,
        ExpressionAttributeValues: { ...mine.values, ':now': Date.now() },
      }),
    );
  } catch (err) {
    // Taken over after we stalled: the new holder lets go.
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/**
 * Runs `work` while holding the claim's numbering lease, after finishing a
 * renumber a dead holder left behind. `ttlMs`: how long the work may take
 * without renewing (a pipeline batch asks for more when it is large).
 */
export async function withNumberingLease<T>(
  claimId: string,
  work: (lease: HeldLease) => Promise<T>,
  ttlMs = LEASE_MS,
): Promise<T> {
  const { lease, deadPlan } = await acquireLease(claimId, ttlMs);
  try {
    if (deadPlan) await runPlan(lease, deadPlan, null);
    return await work(lease);
  } finally {
    await releaseLease(lease);
  }
}

/** The claim's items numbered `from` or more, as the table has them now (number and id). */
async function claimItemsFrom(claimId: string, from: number): Promise<{ id: string; item_number: number }[]> {
  const rooms = await queryAll<{ id: string }>(roomIndexes.claimRooms(claimId), { ProjectionExpression: 'id' });
  const ids: string[] = [];
  for (const room of rooms) {
    const index = roomIndexes.roomItems(room.id);
    let ExclusiveStartKey: Row | undefined;
    do {
      const page = await db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: index.index,
          KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk >= :from',
          ExpressionAttributeValues: { ':pk': index.pk, ':from': paddedItemNumber(from) },
          ProjectionExpression: 'id',
          ExclusiveStartKey,
        }),
      );
      for (const row of page.Items ?? []) ids.push(String(row.id));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  // The index may still show an old number of an item moved a moment ago: the table has the current one.
  const rows = await getRows(
    ids.map((id) => itemKeys.item(id)),
    { consistentRead: true },
  );
  return rows
    .map((r) => ({ id: String(r.id), item_number: Number(r.item_number) }))
    .filter((r) => r.item_number >= from);
}

/** The TransactWrite element moving one item up by one number (both list indexes follow), bumping its revision. */
function shiftUpdate(item: { id: string; item_number: number }) {
  const to = item.item_number + 1;
  return {
    Update: {
      TableName: tableName(),
      Key: itemKeys.item(item.id),
      UpdateExpression: 'SET item_number = :to, gsi1sk = :sk, gsi2sk = :sk, rev = if_not_exists(rev, :zero) + :one',
      ConditionExpression: 'attribute_exists(pk) AND item_number = :from',
      ExpressionAttributeValues: {
        ':to': to,
        ':sk': paddedItemNumber(to),
        ':from': item.item_number,
        ':zero': 0,
        ':one': 1,
      },
    },
  };
}

/** The claim-row element of each renumber transaction: only while we hold the lease, which it renews. */
function leaseUpdate(lease: HeldLease, set: string, values: Row) {
  const mine = leaseHeldBy(NUMBERING_LEASE, lease.holder);
  return {
    Update: {
      TableName: tableName(),
      Key: claimKeys.claim(lease.claimId),
      UpdateExpression: `SET ${NUMBERING_LEASE.until} = :expires, ${set}`,
      ConditionExpression: mine.expression,
      ExpressionAttributeValues: { ...mine.values, ':expires': Date.now() + lease.ttlMs, ...values },
    },
  };
}

type CancelReasons = { Code?: string }[];
const reasonsOf = (err: unknown): CancelReasons =>
  (err as { CancellationReasons?: CancelReasons }).CancellationReasons ?? [];

/** Moves one chunk (highest first) up by one and records the progress, in one transaction. */
async function shiftChunk(lease: HeldLease, chunk: { id: string; item_number: number }[]): Promise<void> {
  const next = chunk[chunk.length - 1].item_number - 1;
  let items = chunk;
  await withRetry(
    async () => {
      try {
        await db().send(
          new TransactWriteCommand({
            TransactItems: [
              ...items.map(shiftUpdate),
              leaseUpdate(lease, 'numbering_lease.pending_plan.next_number = :next', { ':next': next }),
            ],
          }),
        );
      } catch (err) {
        if (!isTransactionCanceled(err)) throw err;
        const reasons = reasonsOf(err);
        if (reasons[items.length]?.Code === 'ConditionalCheckFailed') throw leaseLost(lease.claimId);
        // An item was deleted (or edited) meanwhile: keep those still where we expect them and try again.
        const now = await getRows(
          items.map((i) => itemKeys.item(i.id)),
          { consistentRead: true },
        );
        const current = new Map(now.map((r) => [String(r.id), Number(r.item_number)]));
        items = items.filter((i) => current.get(i.id) === i.item_number);
        throw new ShiftRace();
      }
    },
    { attempts: 10, backoffMs: 20, jitter: true, retryable: (err) => err instanceof ShiftRace },
  );
}

/** Writes the placed item once its number is free, and clears the plan. */
async function finishPlan(lease: HeldLease, plan: NumberingPlan): Promise<void> {
  const [itemRow, ...photoRows] = plan.rows;
  // Photo rows live in the item's own partition: harmless before the item row, and written again on a roll-forward.
  await putRows(photoRows);
  const clear = leaseUpdate(lease, 'numbering_lease.pending_plan = :none', { ':none': null });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: itemRow, ConditionExpression: 'attribute_not_exists(pk)' } },
          clear,
        ],
      }),
    );
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    const reasons = reasonsOf(err);
    if (reasons[1]?.Code === 'ConditionalCheckFailed') throw leaseLost(lease.claimId);
    // The item row is there already (a holder died after writing it): only the plan is left to clear.
    await db().send(new UpdateCommand(clear.Update));
  }
}

/**
 * Moves the items numbered plan.at..plan.next_number up by one, highest first, then
 * writes the placed item. `known`: the items to move when the caller just
 * read them; null on a roll-forward, which reads what is left.
 */
async function runPlan(
  lease: HeldLease,
  plan: NumberingPlan,
  known: { id: string; item_number: number }[] | null,
): Promise<void> {
  const pending =
    known ??
    (await claimItemsFrom(lease.claimId, plan.at))
      .filter((i) => i.item_number <= plan.next_number)
      .sort((a, b) => b.item_number - a.item_number);
  for (const chunk of chunked(pending, SHIFT_CHUNK)) await shiftChunk(lease, chunk);
  await finishPlan(lease, plan);
}

/**
 * Writes a new or restored item at a place in the claim's numbering: after
 * the last number, right after an existing number (moving every later item of
 * the claim up by one), or at a given number (moving the items from there up
 * when it is taken). `build` makes the rows (the item row first, then its
 * photo rows) for the number the item takes. Answers that number, or null when
 * an insert names a number the claim does not have (nothing is written).
 */
export async function placeItemRows(
  claimId: string,
  placement: Placement,
  build: (itemNumber: number) => Row[],
): Promise<number | null> {
  return withNumberingLease(claimId, async (lease) => {
    await sleep(settleWaitMs(lease.writtenAt, Date.now(), INDEX_SETTLE_MS));
    const max = lease.max ?? (await scanClaimMaximum(claimId));
    const from = placement.kind === 'end' ? max + 1 : Math.max(1, placement.number);
    const later = await claimItemsFrom(claimId, from);
    const afterExists = placement.kind === 'after' && later.some((i) => i.item_number === placement.number);
    const at = placedNumber(placement, max, afterExists);
    if (at === null) return null;
    const shifted = itemsToShift(later, at);
    const plan: NumberingPlan = { at, next_number: shifted[0]?.item_number ?? at - 1, rows: build(at) };
    try {
      await db().send(
        new UpdateCommand(
          leaseUpdate(
            lease,
            'numbering_lease.pending_plan = :plan, item_number_max = :max, numbering_seq = if_not_exists(numbering_seq, :zero) + :one',
            { ':plan': plan, ':max': maximumAfter(max, at, shifted), ':zero': 0, ':one': 1 },
          ).Update,
        ),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) throw leaseLost(claimId);
      throw err;
    }
    await runPlan(lease, plan, shifted);
    return at;
  });
}
