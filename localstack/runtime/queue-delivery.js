/**
 * Local stand-in for Lambda's SQS event source mapping: long-polls each queue
 * that a worker function consumes (as declared in deploy/manifest.js),
 * invokes the worker through serverless-offline's Lambda endpoint with a real
 * SQS event, deletes what succeeded and honours ReportBatchItemFailures.
 * Like the event source mapping, it leaves a failed message alone: it stays
 * hidden for the queue's visibility timeout, or for whatever a worker set with
 * ChangeMessageVisibility (a retry backoff), and the emulator then delivers it
 * again (and redrives it to the DLQ after maxReceiveCount), as SQS does.
 */
const {
  SQSClient,
  ReceiveMessageCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
} = require('@aws-sdk/client-sqs');
const { LambdaClient, InvokeCommand } = require('@aws-sdk/client-lambda');

/**
 * The queue consumers serverless.yml declares: one per function with an sqs event.
 *
 * @param {Record<string, any>} functions  serverless function definitions (manifest.functions)
 * @param {(logicalId: string) => string} queueUrlFor  queue URL for a queue's logical id
 * @returns {{ name: string, queueUrl: string, batchSize: number, concurrency: number }[]}
 */
function consumersOf(functions, queueUrlFor) {
  const consumers = [];
  for (const [name, definition] of Object.entries(functions)) {
    for (const event of definition.events ?? []) {
      if (!event.sqs) continue;
      consumers.push({
        name,
        queueUrl: queueUrlFor(event.sqs.arn['Fn::GetAtt'][0]),
        batchSize: event.sqs.batchSize ?? 10,
        concurrency: Math.max(1, event.sqs.maximumConcurrency ?? 2),
      });
    }
  }
  return consumers;
}

/** Invokes functions through serverless-offline's Lambda endpoint. */
function offlineInvoker({ lambdaEndpoint, functionPrefix }) {
  const lambda = new LambdaClient({
    endpoint: lambdaEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    maxAttempts: 1,
  });
  const invoke = async (name, event) => {
    const result = await lambda.send(
      new InvokeCommand({
        FunctionName: `${functionPrefix}${name}`,
        InvocationType: 'RequestResponse',
        Payload: Buffer.from(JSON.stringify(event)),
      }),
    );
    const text = result.Payload ? Buffer.from(result.Payload).toString('utf8') : '';
    return {
      error: result.FunctionError ? text.slice(0, 500) || result.FunctionError : undefined,
      payload: text && !result.FunctionError ? JSON.parse(text) : null,
    };
  };
  return { invoke, close: () => lambda.destroy() };
}

/**
 * @param {object} options
 * @param {{ name: string, queueUrl: string, batchSize: number, concurrency: number }[]} options.consumers
 * @param {(name: string, event: object) => Promise<{ error?: string, payload: any }>} options.invoke
 *   runs a worker with an SQS event: through serverless-offline, or in-process in tests
 * @param {string} options.sqsEndpoint
 * @param {(line: string) => void} [options.log]
 */
function startQueueDelivery({ consumers, invoke, sqsEndpoint, log = () => {} }) {
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials });
  const controller = new AbortController();
  const loops = [];

  for (const consumer of consumers) {
    loops.push(consumeQueue({ sqs, invoke, ...consumer, signal: controller.signal, log }));
    log(`delivering ${consumer.queueUrl.split('/').pop()} → ${consumer.name} (${consumer.concurrency} in parallel)`);
  }

  return {
    async stop() {
      controller.abort();
      await Promise.allSettled(loops);
      sqs.destroy();
    },
    /** Visible plus in-flight messages across the delivered queues (tests wait for 0). */
    async pending() {
      let total = 0;
      for (const url of new Set(consumers.map((c) => c.queueUrl))) {
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
              'ApproximateNumberOfMessagesDelayed',
            ],
          }),
        );
        total +=
          Number(Attributes.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
      }
      return total;
    },
  };
}

/**
 * One long-poll loop per queue, which hands what it receives to at most
 * `concurrency` invocations of `batchSize` messages at a time (as the event
 * source mapping scales its pollers): it asks only for as many messages as
 * free invocations can take, and waits for one to finish when all are busy.
 * One loop per queue rather than one per invocation slot: an idle stack keeps
 * eight long polls open, not one per slot (57 with today's workers).
 */
async function consumeQueue({ sqs, invoke, queueUrl, name, batchSize, concurrency, signal, log }) {
  const running = new Set();
  // Stopping waits for the current 1-second poll instead of aborting it: an
  // aborted long poll can still be handed a message by the server, which then
  // stays invisible for the whole visibility timeout. Whatever a last poll
  // receives is delivered before the loop ends.
  while (!signal.aborted) {
    if (running.size >= concurrency) {
      await Promise.race(running);
      continue;
    }
    let messages;
    try {
      ({ Messages: messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, (concurrency - running.size) * batchSize),
          WaitTimeSeconds: 1,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      ));
    } catch (err) {
      if (signal.aborted) break;
      log(`receive from ${queueUrl} failed: ${err.message}`);
      await sleep(1000);
      continue;
    }
    for (let first = 0; first < messages.length; first += batchSize) {
      const batch = messages.slice(first, first + batchSize);
      const delivery = deliverAndDelete({ sqs, invoke, name, queueUrl, messages: batch, log }).finally(() =>
        running.delete(delivery),
      );
      running.add(delivery);
    }
  }
  await Promise.allSettled(running);
}

/** Delivers one batch and deletes what succeeded; failed messages are left to their visibility timeout. */
async function deliverAndDelete({ sqs, invoke, name, queueUrl, messages, log }) {
  const failed = await deliver({ invoke, name, queueUrl, messages, log });
  const succeeded = messages.filter((m) => !failed.has(m.MessageId));
  if (succeeded.length === 0) return;
  await sqs
    .send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: succeeded.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
      }),
    )
    .catch((err) => log(`delete failed: ${err.message}`));
}

/** Invokes the worker; returns the ids of messages that failed (left on the queue). */
async function deliver({ invoke, name, queueUrl, messages, log }) {
  const queueName = queueUrl.split('/').pop();
  const event = {
    Records: messages.map((m) => ({
      messageId: m.MessageId,
      receiptHandle: m.ReceiptHandle,
      body: m.Body,
      attributes: m.Attributes ?? {},
      messageAttributes: m.MessageAttributes ?? {},
      md5OfBody: m.MD5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
      awsRegion: 'us-east-1',
    })),
  };
  try {
    const { error, payload } = await invoke(name, event);
    if (error) {
      log(`${name} failed: ${error}`);
      return new Set(messages.map((m) => m.MessageId));
    }
    return new Set((payload?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (err) {
    log(`${name} invoke failed: ${err.message}`);
    return new Set(messages.map((m) => m.MessageId));
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

module.exports = { startQueueDelivery, consumersOf, offlineInvoker };
