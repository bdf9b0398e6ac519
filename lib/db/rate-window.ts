/**
 * Fixed-window rate limits kept in the table, so every Lambda instance counts
 * against the same budget: a counter in process memory would let N warm
 * instances allow N times the rate. A window is one clock minute; each call
 * is one conditional UpdateCommand on the window's row (keys.rateWindow),
 * which adds a hit only while the row holds fewer than the limit. Concurrent
 * callers are serialised by DynamoDB on that row, so exactly `limit` calls of
 * a window are allowed. Refused calls write nothing. Rows expire by TTL
 * shortly after their window ends.
 *
 * Callers turn a refusal into their own error (RateLimitedError of
 * lib/errors.ts answers 429 with Retry-After).
 *
 * @example
 * ```ts
 * const slot = await takeRateSlot({ scope: 'insured-write', key: sourceIp, limitPerMinute: 30 });
 * if (!slot.allowed) throw new RateLimitedError('Too many requests', slot.retryAfterSeconds);
 * ```
 */
import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from './client';
import { keys } from './keys';

const WINDOW_SECONDS = 60;
/** Rows outlive their window by this much: enough for a slow in-flight write, short enough to keep the table small. */
const EXPIRY_AFTER_WINDOW_SECONDS = 60;
/** Keys longer than this (user-provided text: a header, an address) are stored as their SHA-256, so keys stay bounded. */
const MAX_KEY_CHARS = 200;

export interface RateSlotRequest {
  /** What is limited ('insured-write'): separate scopes keep separate budgets. A code constant, without '#'. */
  scope: string;
  /** Who is limited (an IP address, a token hash, a team id). */
  key: string;
  /** Calls allowed per clock minute; 0 or less turns the limit off. A whole number. */
  limitPerMinute: number;
  now?: Date;
}

export interface RateSlot {
  allowed: boolean;
  /** Seconds until the current window ends and the budget is back (at least 1) when refused; 0 when allowed. */
  retryAfterSeconds: number;
}

/** Counts one call of `key` in `scope` against the current minute's budget, unless the budget is spent. */
export async function takeRateSlot(request: RateSlotRequest): Promise<RateSlot> {
  const { scope, key, limitPerMinute } = request;
  if (!Number.isInteger(limitPerMinute)) throw new RangeError(`Not a whole number of calls: ${limitPerMinute}`);
  if (scope.includes('#')) throw new RangeError(`A rate limit scope cannot contain '#': ${scope}`);
  if (limitPerMinute <= 0) return { allowed: true, retryAfterSeconds: 0 };

  const nowMs = (request.now ?? new Date()).getTime();
  const windowStart = Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  const windowEnd = windowStart + WINDOW_SECONDS;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(scope, boundedKey(key), windowStart),
        UpdateExpression: 'ADD hits :one SET expires_at = :expires, entity = :entity',
        ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
        ExpressionAttributeValues: {
          ':one': 1,
          ':limit': limitPerMinute,
          ':expires': windowEnd + EXPIRY_AFTER_WINDOW_SECONDS,
          ':entity': 'RateWindow',
        },
      }),
    );
    return { allowed: true, retryAfterSeconds: 0 };
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(windowEnd - nowMs / 1000)) };
  }
}

/** The key as stored: itself when short, else `sha256:<hex>` (a long key keeps its own budget, in bounded space). */
function boundedKey(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}
