/**
 * Sending many messages (lib/queue/queues.ts): ten to a SendMessageBatch
 * call, several calls at once, and the messages SQS did not take (a failed
 * entry, or a call that threw) handed back for the caller to send another way.
 */
import { GetQueueUrlCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { EXPORT_MAX_ATTEMPTS } from '../../../lib/exports/rules';
import { QUEUE_MAX_RECEIVES, sendBatchToQueue } from '../../../lib/queue/queues';
import { useIsolatedSettings } from '../../support/unit-settings';

const sqs = mockClient(SQSClient);
const URL = 'https://sqs.test/unit-photos';

useIsolatedSettings({ QUEUE_NAME_PREFIX: 'unit-' });
beforeEach(() => {
  sqs.reset();
  sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: URL });
});

const sentBodies = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .map((call) => (call.args[0].input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody as string).n));

describe('sendBatchToQueue', () => {
  it('sends every message once, ten to a call, with several calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    sqs.on(SendMessageBatchCommand).callsFake(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return { Successful: [], Failed: [] };
    });
    const messages = Array.from({ length: 95 }, (_, n) => ({ n }));
    expect(await sendBatchToQueue('photos', messages)).toEqual([]);
    const batches = sentBodies();
    expect(batches.map((b) => b.length)).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 5]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(messages.map((m) => m.n));
    expect(sqs.commandCalls(SendMessageBatchCommand)[0].args[0].input.QueueUrl).toBe(URL);
    expect(most).toBeGreaterThan(1);
  });

  it('hands back the entries SQS refused and every message of a call that threw', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [],
        Failed: [{ Id: '3', SenderFault: false, Code: 'InternalError' }],
      })
      .rejectsOnce(new Error('socket hang up'))
      .resolves({ Successful: [], Failed: [] });
    const messages = Array.from({ length: 25 }, (_, n) => ({ n }));
    const left = (await sendBatchToQueue('photos', messages)) as { n: number }[];
    expect(left.map((m) => m.n).sort((a, b) => a - b)).toEqual([3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });
});

describe('QUEUE_MAX_RECEIVES', () => {
  it("is each queue's redrive maxReceiveCount in serverless.yml, and the exports rule's attempts", () => {
    const { loadServerlessConfig, declaredResources } = require('../../../deploy/serverless-config.js');
    const resources = declaredResources(loadServerlessConfig()) as Record<string, any>;
    const declared: Record<string, number> = {};
    for (const resource of Object.values(resources)) {
      const name = resource?.Properties?.QueueName;
      const receives = resource?.Properties?.RedrivePolicy?.maxReceiveCount;
      if (typeof name === 'string' && typeof receives === 'number')
        declared[name.split('}').at(-1) as string] = receives;
    }
    expect(declared).toEqual(QUEUE_MAX_RECEIVES);
    expect(EXPORT_MAX_ATTEMPTS).toBe(QUEUE_MAX_RECEIVES.exports);
  });
});
