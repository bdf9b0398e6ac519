/**
 * Covers: functions/schedules/watchdog.ts, lib/background/watchdog-parts.ts.
 *
 * The watchdog's part `runs` recovers every run kind's open runs (jobs, both
 * platforms' sends, homeowner submit rounds). One kind failing must not skip
 * the others: here one kind's read of the table fails (the mocked table
 * refuses its query), and the other kinds still read theirs; the invocation's
 * report names the failed part, and the failure reaches error tracking (an
 * in-process fake of the service).
 */
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { handler } from '../../../functions/schedules/watchdog';
import { loadSettings, resetSettings } from '../../../lib/config';
import { jobIndexes } from '../../../lib/jobs/keys';
import { sendIndexes } from '../../../lib/sends/keys';
import { insuredIndexes } from '../../../lib/insured/keys';
import { startFakeSentry } from '../../fakes/sentry-server';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
let sentry: Awaited<ReturnType<typeof startFakeSentry>>;

beforeAll(async () => {
  sentry = await startFakeSentry();
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: 'unit-watchdog', SENTRY_DSN: sentry.dsn, APP_ENV: 'local' },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
});

afterAll(async () => {
  resetSettings();
  await sentry.stop();
});

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  sqs.onAnyCommand().resolves({ QueueUrl: 'http://queues.invalid/stages', MessageId: 'm-1' });
  sentry.envelopes.length = 0;
});

/** The partition key each index query asked for, in order. */
const queriedPartitions = () =>
  ddb.commandCalls(QueryCommand).map((c) => (c.args[0].input as QueryCommandInput).ExpressionAttributeValues?.[':pk']);

const runHandler = () => (handler as unknown as () => Promise<Record<string, unknown>>)();

it('reads every kind when the first fails, names the failed part, and reports it to error tracking', async () => {
  const activeJobs = jobIndexes.activeJobs().pk;
  ddb.on(QueryCommand).callsFake(async (input: QueryCommandInput) => {
    if (input.ExpressionAttributeValues?.[':pk'] === activeJobs) throw new Error('table refused the active jobs query');
    return { Items: [] };
  });

  const report = await runHandler();

  // The runs' other kinds (the two platforms' sends, the homeowner submit rounds) each read their own index, after
  // the jobs' failed read.
  expect(queriedPartitions()).toEqual([
    activeJobs,
    sendIndexes.openSubmissions().pk,
    sendIndexes.openEstimationSends().pk,
    insuredIndexes.openInsuredRounds().pk,
  ]);
  expect(report).toMatchObject({
    failed_parts: ['runs'],
    runs: { error: expect.stringContaining('table refused the active jobs query') },
  });
  const events = sentry.envelopes.flatMap((e) => e.items.map((i) => i.payload as Record<string, any>));
  const failure = events.find((e) => e.tags?.part === 'runs');
  expect(failure).toMatchObject({ level: 'error', tags: { kind: 'watchdog_sweep', part: 'runs' } });
  expect(JSON.stringify(failure?.exception)).toContain('table refused the active jobs query');
});

it('reads every kind after a later one fails too, and reports nothing failed when none did', async () => {
  const sends = sendIndexes.openSubmissions().pk;
  ddb.on(QueryCommand).callsFake(async (input: QueryCommandInput) => {
    if (input.ExpressionAttributeValues?.[':pk'] === sends) throw new Error('sends index unreadable');
    return { Items: [] };
  });
  const report = await runHandler();
  expect(report).toMatchObject({
    failed_parts: ['runs'],
    runs: { error: expect.stringContaining('sends index unreadable') },
  });
  expect(queriedPartitions()).toHaveLength(4);

  ddb.reset();
  ddb.on(QueryCommand).resolves({ Items: [] });
  expect(await runHandler()).toMatchObject({
    failed_parts: [],
    runs: { checked: 0 },
  });
});
