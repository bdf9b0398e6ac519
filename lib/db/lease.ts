/**
 * A lease held in a row: one attribute names its holder, another the epoch
 * millisecond it runs until (lease-rules.ts says when that has passed). It
 * is taken with one conditional write, only while nobody holds it or its
 * lease ran out, and let go only by its holder, so a holder that stalled past
 * its lease never frees a lease another took over meanwhile.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from './client';

/** The row's attributes that hold the lease. */
export interface LeaseAttributes {
  holder: string;
  until: string;
}

/** A condition of a write, with its placeholders' values. */
export interface LeaseCondition {
  expression: string;
  values: Record<string, unknown>;
}

/** The condition that nobody holds the lease, or that it ran out before `nowMs` (`placeholder` carries the clock). */
export function leaseFree(lease: LeaseAttributes, nowMs: number, placeholder = ':leaseNow'): LeaseCondition {
  return {
    expression: `attribute_not_exists(${lease.holder}) OR ${lease.until} < ${placeholder}`,
    values: { [placeholder]: nowMs },
  };
}

/** The condition that `holder` holds the lease (expired or not: nobody took it over). */
export function leaseHeldBy(lease: LeaseAttributes, holder: string, placeholder = ':leaseHolder'): LeaseCondition {
  return { expression: `${lease.holder} = ${placeholder}`, values: { [placeholder]: holder } };
}

/** The condition that nobody has ever held the lease on the row (no holder attribute). */
export function leaseAbsent(lease: LeaseAttributes): LeaseCondition {
  return { expression: `attribute_not_exists(${lease.holder})`, values: {} };
}

/**
 * The condition that the lease is exactly the one read: `holder`'s, running until `untilMs`. Taking over a lease
 * that ran out on this condition takes only that lease: a holder that renewed it meanwhile keeps it.
 */
export function leaseIs(
  lease: LeaseAttributes,
  holder: string,
  untilMs: number,
  placeholder = ':leaseRead',
): LeaseCondition {
  return {
    expression: `${lease.holder} = ${placeholder}Holder AND ${lease.until} = ${placeholder}Until`,
    values: { [`${placeholder}Holder`]: holder, [`${placeholder}Until`]: untilMs },
  };
}

interface TakeLease {
  key: Record<string, unknown>;
  lease: LeaseAttributes;
  holder: string;
  untilMs: number;
  nowMs: number;
  /** Other attributes the write sets with the lease. */
  set?: Record<string, unknown>;
  /** What else the row must satisfy, with the names its expression uses. */
  also?: LeaseCondition & { names?: Record<string, string> };
}

/** Takes the lease on the row at `key` for `holder` until `untilMs` (creating the row if absent); false while held. */
export async function takeLease(take: TakeLease): Promise<boolean> {
  const set = { [take.lease.holder]: take.holder, [take.lease.until]: take.untilMs, ...take.set };
  const names = Object.keys(set);
  const free = leaseFree(take.lease, take.nowMs, ':now');
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: take.key,
        UpdateExpression: `SET ${names.map((name, i) => `#lease${i} = :lease${i}`).join(', ')}`,
        ConditionExpression: take.also ? `${take.also.expression} AND (${free.expression})` : free.expression,
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#lease${i}`, name])),
          ...take.also?.names,
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:lease${i}`, set[name]])),
          ...free.values,
          ...take.also?.values,
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
 * Lets go of the lease on the row at `key` if `holder` still holds it: removes
 * its attributes, or the whole row when the row is only the lease. False when
 * another holder took it over.
 */
export async function releaseLease(
  key: Record<string, unknown>,
  lease: LeaseAttributes,
  holder: string,
  { deleteRow = false } = {},
): Promise<boolean> {
  const heldBy = leaseHeldBy(lease, holder);
  const common = { TableName: tableName(), Key: key, ConditionExpression: heldBy.expression };
  try {
    await db().send(
      deleteRow
        ? new DeleteCommand({ ...common, ExpressionAttributeValues: heldBy.values })
        : new UpdateCommand({
            ...common,
            UpdateExpression: `REMOVE ${lease.holder}, ${lease.until}`,
            ExpressionAttributeValues: heldBy.values,
          }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}
