/**
 * Covers: lib/background/sqs-worker.ts.
 *
 * A queue worker fails only the record whose handler threw, and says why in
 * its log (the queue alone hears of it otherwise, and a message hidden until
 * its visibility timeout leaves no trace); a malformed message is dropped,
 * never failed.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { z } from 'zod';
import { sqsWorker } from '../../../lib/background/sqs-worker';
import { logger } from '../../../lib/observability/logger';
import { useIsolatedSettings } from '../../support/unit-settings';

const ddb = mockClient(DynamoDBDocumentClient);
useIsolatedSettings({ TABLE_NAME: 'unit-sqs-worker' });

beforeEach(() => {
  ddb.reset();
  ddb.on(PutCommand).resolves({}); // the worker heartbeat
});
afterEach(() => jest.restoreAllMocks());

const record = (messageId: string, body: string, receiveCount = '1'): SQSRecord =>
  ({
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: receiveCount },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:units',
    awsRegion: 'us-east-1',
  }) as unknown as SQSRecord;

const context = { functionName: 'unitWorker', getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

describe('sqsWorker', () => {
  it('fails the record whose handler threw, alone, and logs the worker, the message, its delivery and the error', async () => {
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const handled: number[] = [];
    const handler = sqsWorker('units', z.object({ n: z.number() }), async ({ n }) => {
      if (n === 2) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      handled.push(n);
    });

    const event: SQSEvent = {
      Records: [record('m-1', '{"n":1}'), record('m-2', '{"n":2}', '3'), record('m-3', '{"n":3}')],
    };
    const answer = await handler(event, context);

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-2' }]);
    expect(handled).toEqual([1, 3]);
    expect(warn).toHaveBeenCalledWith('queue message failed; the queue delivers it again', {
      worker: 'units',
      message_id: 'm-2',
      receive_count: 3,
      error: 'TimeoutError: socket hang up',
    });
  });

  it('drops a malformed message without failing it (it could never succeed)', async () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const handler = sqsWorker('units', z.object({ n: z.number() }), async () => undefined);

    const answer = await handler({ Records: [record('m-bad', '{"n":"not a number"}')] }, context);

    expect(answer.batchItemFailures).toEqual([]);
    expect(error).toHaveBeenCalledWith(
      'dropping malformed queue message',
      expect.objectContaining({ message_id: 'm-bad' }),
    );
    expect(warn).not.toHaveBeenCalledWith('queue message failed; the queue delivers it again', expect.anything());
  });
});
