/**
 * One received queue message as its handler sees it: which delivery this is,
 * whether it is the last one, and a way to have it delivered again after a
 * backoff rather than after the queue's visibility timeout.
 *
 * A message handed over by direct invoke (the queue-outage fallback,
 * dispatch.ts) is on no queue, so SQS counts nothing: Lambda retries a failed
 * asynchronous invoke with the same event, and the deliveries are counted
 * here instead, on a row per message id (lib/db/delivery-counter.ts), so a
 * handler that gives up on its last delivery still does when the queue is down.
 */
import type { SQSRecord } from 'aws-lambda';
import { countDirectDelivery } from '../db/delivery-counter';
import { DIRECT_INVOKE_RECEIPT } from './dispatch';
import { changeVisibility, type QueuePurpose } from './queues';

/** A failed message comes back after base × 2^(attempt − 1) seconds, at most the cap, not after its queue's visibility timeout. */
const RETRY_BASE_SECONDS = 5;
export const RETRY_MAX_SECONDS = 300;

/** The backoff of a message whose handler failed on its `attempt`-th delivery (1 = the first): 5, 10, 20, 40 … 300 s. */
export const retryDelaySeconds = (attempt: number) =>
  Math.min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, attempt - 1));

/** Lambda's retries of a failed asynchronous invoke (its default): a direct invoke is delivered at most 1 + this. */
const DIRECT_INVOKE_RETRIES = 2;

export interface Delivery {
  /** SQS's receive count: 1 on the first delivery. */
  attempt: number;
  /** The message comes back after `seconds` once its handler fails. */
  retryAfter(seconds: number): Promise<void>;
}

/** What a delivery count reads of a record: its receive count, and for a direct invoke its receipt and id. */
type DeliveredRecord = Pick<SQSRecord, 'attributes'> & Partial<Pick<SQSRecord, 'receiptHandle' | 'messageId'>>;

const isDirectInvoke = (record: Partial<Pick<SQSRecord, 'receiptHandle'>>) =>
  record.receiptHandle === DIRECT_INVOKE_RECEIPT;

/** SQS's receive count of a record (1 when it carries none). */
const receiveCount = (record: Pick<SQSRecord, 'attributes'>) => Number(record.attributes?.ApproximateReceiveCount ?? 1);

export function deliveryOf(purpose: QueuePurpose, record: Pick<SQSRecord, 'receiptHandle' | 'attributes'>): Delivery {
  return {
    attempt: receiveCount(record),
    // A directly invoked message has no queue entry; Lambda's own async retries apply.
    retryAfter: async (seconds) =>
      isDirectInvoke(record) ? undefined : changeVisibility(purpose, record.receiptHandle, seconds),
  };
}

/**
 * Which delivery of the message this is (1 = the first) and whether no other
 * will follow: the queue's `maxReceives` (its redrive maxReceiveCount), or for
 * a direct invoke 1 + Lambda's retries. A direct invoke's count is kept on its
 * own row, one increment per delivery.
 */
export async function countDelivery(
  record: DeliveredRecord,
  maxReceives: number,
): Promise<{ attempt: number; last: boolean }> {
  if (!isDirectInvoke(record) || !record.messageId) {
    const attempt = receiveCount(record);
    return { attempt, last: attempt >= maxReceives };
  }
  const attempt = await countDirectDelivery(record.messageId);
  return { attempt, last: attempt >= Math.min(maxReceives, 1 + DIRECT_INVOKE_RETRIES) };
}
