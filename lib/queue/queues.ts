/**
 * SQS queues by purpose. Names are <QUEUE_NAME_PREFIX><purpose>, matching the
 * queues declared in serverless.yml; URLs are looked up once per container.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import { settings } from '../config';

/** Every queue the service sends to; each has a -dlq twin in serverless.yml. */
const QUEUE_PURPOSES = ['purge', 'stages', 'units', 'probe', 'photos', 'exports'] as const;
export type QueuePurpose = (typeof QUEUE_PURPOSES)[number];

/**
 * Deliveries of a message before its queue's dead-letter queue takes it:
 * serverless.yml's RedrivePolicy maxReceiveCount of each queue
 * (tests/unit/queue/queues.test.ts checks they agree). A handler that gives
 * up on its last delivery reads it here.
 */
export const QUEUE_MAX_RECEIVES: Record<QueuePurpose, number> = {
  purge: 5,
  stages: 5,
  units: 5,
  probe: 5,
  photos: 5,
  exports: 3,
};

/** How long a send may take before the queue counts as unreachable (spec: ~3 s). */
const QUEUE_CONNECT_TIMEOUT_MS = 3000;

let client: SQSClient | undefined;
const urls = new Map<string, Promise<string>>();

export function sqs(): SQSClient {
  client ??= new SQSClient({ maxAttempts: 2 });
  return client;
}

function queueName(purpose: QueuePurpose): string {
  return `${settings().QUEUE_NAME_PREFIX}${purpose}`;
}

function queueUrl(purpose: QueuePurpose): Promise<string> {
  const name = queueName(purpose);
  let url = urls.get(name);
  if (!url) {
    url = sqs()
      .send(new GetQueueUrlCommand({ QueueName: name }), { abortSignal: AbortSignal.timeout(QUEUE_CONNECT_TIMEOUT_MS) })
      .then((r) => r.QueueUrl as string);
    url.catch(() => urls.delete(name));
    urls.set(name, url);
  }
  return url;
}

export async function sendToQueue(
  purpose: QueuePurpose,
  message: unknown,
  options: { delaySeconds?: number; traceparent?: string | null } = {},
): Promise<void> {
  const signal = AbortSignal.timeout(QUEUE_CONNECT_TIMEOUT_MS);
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: await queueUrl(purpose),
      MessageBody: JSON.stringify(message),
      DelaySeconds: options.delaySeconds,
      // The trace a job run's message belongs to (lib/observability/job-trace.ts), beside the body.
      ...(options.traceparent
        ? { MessageAttributes: { traceparent: { DataType: 'String', StringValue: options.traceparent } } }
        : {}),
    }),
    { abortSignal: signal },
  );
}

/** SQS's most messages in one SendMessageBatch call. */
const BATCH_SIZE = 10;
/** SendMessageBatch calls in flight at once: a homeowner's submit round queues up to 2,000 re-encodes. */
const BATCHES_IN_FLIGHT = 8;

/**
 * Sends many messages, ten to a SendMessageBatch call, a few calls at once.
 * Answers the messages SQS did not take (a failed entry, or a call that
 * threw), for the caller to send another way.
 */
export async function sendBatchToQueue(purpose: QueuePurpose, messages: unknown[]): Promise<unknown[]> {
  const limit = pLimit(BATCHES_IN_FLIGHT);
  const chunks: unknown[][] = [];
  for (let i = 0; i < messages.length; i += BATCH_SIZE) chunks.push(messages.slice(i, i + BATCH_SIZE));
  const left = await Promise.all(
    chunks.map((chunk) =>
      limit(async () => {
        try {
          const { Failed } = await sqs().send(
            new SendMessageBatchCommand({
              QueueUrl: await queueUrl(purpose),
              Entries: chunk.map((message, n) => ({ Id: String(n), MessageBody: JSON.stringify(message) })),
            }),
            { abortSignal: AbortSignal.timeout(QUEUE_CONNECT_TIMEOUT_MS) },
          );
          return (Failed ?? []).map((failed) => chunk[Number(failed.Id)]);
        } catch {
          return chunk;
        }
      }),
    ),
  );
  return left.flat();
}

/** SQS's ceiling for a message's visibility timeout (12 hours). */
const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Makes a received message visible again after `seconds` from now instead of
 * after the queue's visibility timeout: the retry backoff of a failed message.
 */
export async function changeVisibility(purpose: QueuePurpose, receiptHandle: string, seconds: number): Promise<void> {
  const VisibilityTimeout = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.round(seconds)));
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: await queueUrl(purpose),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout,
    }),
    {
      abortSignal: AbortSignal.timeout(QUEUE_CONNECT_TIMEOUT_MS),
    },
  );
}

/** Visible plus in-flight messages on a queue. */
export async function queueDepth(purpose: QueuePurpose): Promise<number> {
  const { Attributes } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: await queueUrl(purpose),
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
    { abortSignal: AbortSignal.timeout(QUEUE_CONNECT_TIMEOUT_MS) },
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}
