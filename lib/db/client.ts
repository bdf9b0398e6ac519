/**
 * The DynamoDB document client. The endpoint comes only from the SDK's own
 * AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_DYNAMODB variables.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';

let doc: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  doc ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return doc;
}

export function tableName(): string {
  return settings().TABLE_NAME;
}

export function isConditionalCheckFailed(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'ConditionalCheckFailedException';
}

export function isTransactionCanceled(err: unknown): boolean {
  return (err as { name?: string } | undefined)?.name === 'TransactionCanceledException';
}

const RACE_CODES = new Set(['ConditionalCheckFailed', 'TransactionConflict']);

/**
 * True when a write lost a race rather than failed: a condition check, or a
 * transaction cancelled because another transaction held the same item.
 * Retrying re-reads and finds the winner's rows.
 */
export function isConditionRace(err: unknown): boolean {
  if (isConditionalCheckFailed(err)) return true;
  if ((err as { name?: string } | undefined)?.name === 'TransactionConflictException') return true;
  if (!isTransactionCanceled(err)) return false;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return (
    reasons.some((r) => RACE_CODES.has(r.Code ?? '')) &&
    reasons.every((r) => !r.Code || r.Code === 'None' || RACE_CODES.has(r.Code))
  );
}

/**
 * True when a transaction collided with another one on a row (cancelled with
 * TransactionConflict, or refused as TransactionConflictException): nothing
 * was written and the same transaction may be sent again.
 */
export function isTransactionCollision(err: unknown): boolean {
  if ((err as { name?: string } | undefined)?.name === 'TransactionConflictException') return true;
  if (!isTransactionCanceled(err)) return false;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'TransactionConflict');
}

const THROTTLE_CODES = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * True when a transaction was cancelled because the table or a partition was
 * over its throughput (the SDK retries a throttled single write, not a
 * cancelled transaction): worth another try after a pause.
 */
export function isThrottledTransaction(err: unknown): boolean {
  if (!isTransactionCanceled(err)) return false;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((r) => THROTTLE_CODES.has(r.Code ?? ''));
}

/**
 * True when a transaction was cancelled because one of its own conditions
 * did not hold; false for a collision with another transaction (which a retry
 * may get past) and for any other error.
 */
export function isConditionCancellation(err: unknown): boolean {
  if (!isTransactionCanceled(err)) return false;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'ConditionalCheckFailed');
}
