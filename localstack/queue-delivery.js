'use strict';
/**
 * Local stand-in for Lambda's SQS event source mapping: long-polls each queue
 * that a worker function consumes (as declared in functions/manifest.js),
 * invokes the worker through serverless-offline's Lambda endpoint with a real
 * SQS event, deletes what succeeded and honours ReportBatchItemFailures.
 * Failed messages become visible again after a short delay, so local retries
 * and the DLQ redrive behave like AWS, only faster.
 */
const {
  SQSClient,
  ReceiveMessageCommand,
  DeleteMessageBatchCommand,
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
} = require('@aws-sdk/client-sqs');
const { LambdaClient, InvokeCommand } = require('@aws-sdk/client-lambda');

const RETRY_VISIBILITY_SECONDS = 2;

/**
 * @param {object} options
 * @param {Record<string, any>} options.functions  serverless function definitions (manifest.functions)
 * @param {(logicalId: string) => string} options.queueUrlFor  queue URL for a queue's logical id
 * @param {string} options.functionPrefix  e.g. "contents-inventory-local-"
 * @param {string} options.lambdaEndpoint  serverless-offline's Lambda endpoint, e.g. http://localhost:3002
 * @param {string} options.sqsEndpoint
 * @param {(line: string) => void} [options.log]
 */
function startQueueDelivery({ functions, queueUrlFor, functionPrefix, lambdaEndpoint, sqsEndpoint, log = () => {} }) {
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials });
  const lambda = new LambdaClient({ endpoint: lambdaEndpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  const controller = new AbortController();
  const loops = [];

  for (const [name, definition] of Object.entries(functions)) {
    for (const event of definition.events ?? []) {
      if (!event.sqs) continue;
      const logicalId = event.sqs.arn['Fn::GetAtt'][0];
      const queueUrl = queueUrlFor(logicalId);
      const concurrency = Math.max(1, event.sqs.maximumConcurrency ?? 2);
      for (let i = 0; i < concurrency; i++) {
        loops.push(pollLoop({ sqs, lambda, queueUrl, functionName: `${functionPrefix}${name}`, batchSize: event.sqs.batchSize ?? 10, signal: controller.signal, log }));
      }
      log(`delivering ${logicalId} → ${name} (${concurrency} in parallel)`);
    }
  }

  return {
    async stop() {
      controller.abort();
      await Promise.allSettled(loops);
      sqs.destroy();
      lambda.destroy();
    },
    /** Visible plus in-flight messages across the delivered queues (tests wait for 0). */
    async pending() {
      let total = 0;
      for (const url of new Set(Object.values(functions).flatMap((d) => (d.events ?? []).filter((e) => e.sqs).map((e) => queueUrlFor(e.sqs.arn['Fn::GetAtt'][0]))))) {
        const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }));
        total += Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
      }
      return total;
    },
  };
}

async function pollLoop({ sqs, lambda, queueUrl, functionName, batchSize, signal, log }) {
  while (!signal.aborted) {
    let messages;
    try {
      ({ Messages: messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: Math.min(10, batchSize), WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }),
        { abortSignal: signal },
      ));
    } catch (err) {
      if (signal.aborted) return;
      log(`receive from ${queueUrl} failed: ${err.message}`);
      await sleep(1000);
      continue;
    }
    if (messages.length === 0) continue;
    const failed = await deliver({ lambda, functionName, queueUrl, messages, log });
    const succeeded = messages.filter((m) => !failed.has(m.MessageId));
    if (succeeded.length > 0) {
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: succeeded.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) })).catch((err) => log(`delete failed: ${err.message}`));
    }
    const retry = messages.filter((m) => failed.has(m.MessageId));
    if (retry.length > 0) {
      await sqs
        .send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: retry.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: RETRY_VISIBILITY_SECONDS })) }))
        .catch((err) => log(`visibility change failed: ${err.message}`));
    }
  }
}

/** Invokes the worker; returns the ids of messages to retry. */
async function deliver({ lambda, functionName, queueUrl, messages, log }) {
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
    const result = await lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(event)) }));
    const text = result.Payload ? Buffer.from(result.Payload).toString('utf8') : '';
    if (result.FunctionError) {
      log(`${functionName} failed: ${text.slice(0, 500)}`);
      return new Set(messages.map((m) => m.MessageId));
    }
    const payload = text ? JSON.parse(text) : {};
    return new Set((payload?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch (err) {
    log(`${functionName} invoke failed: ${err.message}`);
    return new Set(messages.map((m) => m.MessageId));
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

module.exports = { startQueueDelivery };
