/**
 * One received queue message as its handler sees it: which delivery this is,
 * and a way to have it delivered again after a backoff rather than after the
 * queue's visibility timeout.
 */
import type { SQSRecord } from 'aws-lambda';
import { DIRECT_INVOKE_RECEIPT } from './dispatch';
import { changeVisibility, type QueuePurpose } from './queues';

export interface Delivery {
  /** SQS's receive count: 1 on the first delivery. */
  attempt: number;
  /** The message comes back after `seconds` once its handler fails. */
  retryAfter(seconds: number): Promise<void>;
}

export function deliveryOf(purpose: QueuePurpose, record: Pick<SQSRecord, 'receiptHandle' | 'attributes'>): Delivery {
  return {
    attempt: Number(record.attributes?.ApproximateReceiveCount ?? 1),
    // A directly invoked message has no queue entry; Lambda's own async retries apply.
    retryAfter: async (seconds) =>
      record.receiptHandle === DIRECT_INVOKE_RECEIPT
        ? undefined
        : changeVisibility(purpose, record.receiptHandle, seconds),
  };
}
