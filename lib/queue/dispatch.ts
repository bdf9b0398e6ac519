/**
 * Sending work to the workers. Normally through SQS; if the queue does not
 * answer within ~3 s the message is handed to the worker function by a direct
 * asynchronous invoke with the same SQS-shaped event, and the outage is logged
 * at error level (spec: Processing rules 10, 'in-process-fallback').
 */
import { randomUUID } from 'node:crypto';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { settings } from '../config';
import { logger } from '../observability/logger';
import { sendBatchToQueue, sendToQueue, type QueuePurpose } from './queues';

/** The worker function that consumes each queue (lib/background/functions.ts). */
const WORKER_FOR_QUEUE: Record<QueuePurpose, string> = {
  purge: 'purgeWorker',
  stages: 'stageWorker',
  units: 'unitWorker',
  probe: 'probeWorker',
  photos: 'photoWorker',
  exports: 'exportWorker',
};

/** The receipt handle of a message handed over by direct invoke (it is on no queue). */
export const DIRECT_INVOKE_RECEIPT = 'direct-invoke';

let lambda: LambdaClient | undefined;

export type DispatchPath = 'queue' | 'direct-invoke';

/** `traceparent`: the trace of the job run the message belongs to, carried as a message attribute. */
export async function dispatch(
  purpose: QueuePurpose,
  message: unknown,
  options: { traceparent?: string | null } = {},
): Promise<DispatchPath> {
  try {
    await sendToQueue(purpose, message, { traceparent: options.traceparent });
    return 'queue';
  } catch (queueError) {
    logger.error('queue unreachable: handing the message to the worker directly (in-process-fallback)', {
      queue: purpose,
      error: String(queueError),
    });
    await invokeWorker(purpose, message, options.traceparent);
    return 'direct-invoke';
  }
}

/**
 * Sends many messages to one queue, ten to a call; those SQS did not take are
 * dispatched one by one (so the direct-invoke fallback still applies).
 */
export async function dispatchAll(purpose: QueuePurpose, messages: unknown[]): Promise<void> {
  const left = await sendBatchToQueue(purpose, messages);
  for (const message of left) await dispatch(purpose, message);
}

async function invokeWorker(purpose: QueuePurpose, message: unknown, traceparent?: string | null): Promise<void> {
  lambda ??= new LambdaClient({ maxAttempts: 2 });
  const event = {
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: DIRECT_INVOKE_RECEIPT,
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
        messageAttributes: traceparent ? { traceparent: { dataType: 'String', stringValue: traceparent } } : {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `direct-invoke:${purpose}`,
        awsRegion: process.env.AWS_REGION ?? 'us-east-1',
      },
    ],
  };
  await lambda.send(
    new InvokeCommand({
      FunctionName: `${settings().FUNCTION_NAME_PREFIX}${WORKER_FOR_QUEUE[purpose]}`,
      InvocationType: 'Event',
      Payload: Buffer.from(JSON.stringify(event)),
    }),
  );
}
