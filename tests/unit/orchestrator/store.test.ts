/**
 * Covers: lib/orchestrator/store.ts, lib/orchestrator/engine.ts (the unit retry backoff).
 *
 * The fan-in write against a mocked table: a unit is marked done and counted
 * in one transaction, retried as a whole when it is throttled or loses a
 * race, and never counted by a runner that lost the unit.
 */
import { TransactionCanceledException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { RETRY_MAX_SECONDS, retryDelaySeconds } from '../../../lib/queue/delivery';
import { jobRunKind } from '../../../lib/orchestrator/job-run-kind';
import { finishAndCount } from '../../../lib/orchestrator/store';
import type { Job } from '../../../lib/jobs/job-record-rules';
import { useIsolatedSettings } from '../../support/unit-settings';

const ddb = mockClient(DynamoDBDocumentClient);
const JOB_ID = '3f1c9a4e-8a51-4f7c-9a59-0d6a7c0b2e11';
let jobRow: Partial<Job>;

useIsolatedSettings({ TABLE_NAME: 'unit-orchestrator-store' });

beforeEach(() => {
  ddb.reset();
  jobRow = {
    id: JOB_ID,
    run_id: 'run-1',
    stage_name: 'split',
    stage_state: 'fanout',
    fanout_total: 3,
    fanout_next: 2,
    fanout_done: 0,
  };
  ddb.on(GetCommand).callsFake(async () => ({ Item: { pk: `JOB#${JOB_ID}`, sk: 'JOB', ...jobRow } }));
});

const job = () => ({ ...jobRow }) as Job;
const transactions = () =>
  ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input as TransactWriteCommandInput);
const canceled = (codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('finishAndCount', () => {
  it('marks the unit done and counts it in one transaction, conditioned on the counters it read', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const result = await finishAndCount(jobRunKind, job(), 'split', 1, 'runner-a', 'ok');
    expect(result).toMatchObject({ kind: 'counted', record: { fanout_done: 1, fanout_next: 3 } });
    const [tx] = transactions();
    expect(tx.TransactItems).toHaveLength(2);
    const [unit, count] = tx.TransactItems!.map((i) => i.Update!);
    expect(unit.Key).toEqual({ pk: `JOBUNIT#${JOB_ID}`, sk: 'run-1#split#000001' });
    expect(unit.ConditionExpression).toBe('#state = :running AND runner = :runner');
    expect(count.Key).toEqual({ pk: `JOB#${JOB_ID}`, sk: 'JOB' });
    expect(count.UpdateExpression).toContain('ADD #fanout_done :add_fanout_done, #fanout_next :add_fanout_next');
    expect(count.ExpressionAttributeValues).toMatchObject({ ':seen_done': 0, ':seen_next': 2, ':add_fanout_done': 1 });
  });

  it.each([
    [
      'a throttled write',
      false,
      () => new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }),
    ],
    ['a transaction conflict', false, () => canceled(['None', 'TransactionConflict'])],
    ['another unit counted first', true, () => canceled(['None', 'ConditionalCheckFailed'])],
  ])(
    'retries the whole transaction after %s, reading the counters again, and counts once',
    async (_name, raced, error) => {
      jobRow.fanout_done = 1;
      jobRow.fanout_next = 3;
      let calls = 0;
      const count = () => {
        jobRow.fanout_done! += 1;
        jobRow.fanout_next! += 1;
      };
      ddb.on(TransactWriteCommand).callsFake(async () => {
        if (calls++ > 0) {
          count();
          return {};
        }
        if (raced) count(); // the other unit's transaction
        throw error();
      });
      const result = await finishAndCount(jobRunKind, job(), 'split', 2, 'runner-b', 'ok');
      const expected = raced ? { fanout_done: 3, fanout_next: 5 } : { fanout_done: 2, fanout_next: 4 };
      expect(result).toMatchObject({ kind: 'counted', record: expected });
      expect(jobRow).toMatchObject(expected); // the failed try wrote nothing; the retry counted once
      const [first, second] = transactions();
      expect(transactions()).toHaveLength(2);
      expect(second.TransactItems![1].Update!.ExpressionAttributeValues).toMatchObject({ ':seen_done': raced ? 2 : 1 });
      expect(first.TransactItems![0].Update!.Key).toEqual(second.TransactItems![0].Update!.Key);
    },
  );

  it('counts nothing when another runner took the unit over', async () => {
    ddb.on(TransactWriteCommand).rejects(canceled(['ConditionalCheckFailed', 'None']));
    expect(await finishAndCount(jobRunKind, job(), 'split', 0, 'runner-c', 'ok')).toEqual({ kind: 'lost' });
    expect(transactions()).toHaveLength(1);
  });

  it('counts nothing when the job left the fan-out', async () => {
    jobRow.stage_state = 'done';
    expect(await finishAndCount(jobRunKind, job(), 'split', 0, 'runner-d', 'ok')).toEqual({ kind: 'stale' });
    expect(transactions()).toHaveLength(0);
  });

  it('gives up on an error that is not a throttle or a race', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejects(Object.assign(new Error('no such table'), { name: 'ResourceNotFoundException' }));
    await expect(finishAndCount(jobRunKind, job(), 'split', 0, 'runner-e', 'ok')).rejects.toThrow('no such table');
    expect(transactions()).toHaveLength(1);
  });
});

describe('unit retry backoff', () => {
  it('doubles from 5 s per attempt and stops at the cap', () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([5, 10, 20, 40]);
    expect(retryDelaySeconds(20)).toBe(RETRY_MAX_SECONDS);
  });
});
