/**
 * The orchestrator proven on real SQS and DynamoDB with the real worker
 * handlers and pipelines declared by the tests: stages in order, duplicates
 * and out-of-order messages, fan-out with bounded concurrency and fan-in,
 * unit retries with backoff, failures with refunds, a worker killed
 * mid-stage, the watchdog, faults injected around the fan-in (a worker killed
 * right after counting, a throttled or conflicting count, a failed send of
 * the next unit or advance after a count, a throttled claim), local queue
 * delivery's visibility timeouts, and the queue-outage fallback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startFakeChatServer } from '../fakes/chat-server';
import { eventually } from '../support/api';
import { fakeSentry } from '../support/fake-sentry';
import {
  killed,
  selfKilled,
  setVisibilityTimeout,
  startInProcessWorkers,
  startWorkerProcess,
  useEngineStage,
  type EngineStage,
} from '../support/engine';
import { NOTHING_TO_COUNT, wordCountPipeline } from '../support/example-pipeline/pipeline';
import { getTotal, putSource } from '../support/example-pipeline/word-count-store';
import {
  fanoutPipeline,
  linearPipeline,
  retryingPipeline,
  makeStuckForADay,
  registerTestPipelines,
  scriptedJob,
  runRecord,
  setScript,
  type Script,
} from '../support/test-pipelines';
import { db, tableName } from '../../lib/db/client';
import { ConflictError } from '../../lib/errors';
import { STATUS_OF_DOMAIN_ERROR } from '../../lib/http/errors';
import { getJob, putNewJob, updateJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import { appendLog, archiveLog, readArchivedLog, readLiveLog } from '../../lib/jobs/log-store';
import { flushSignals } from '../../lib/observability/flush';
import { sqs as serviceSqs } from '../../lib/queue/queues';
import { startJob } from '../../lib/orchestrator/engine';
import type { PipelineDefinition } from '../../lib/orchestrator/pipeline';
import { jobRunKind } from '../../lib/orchestrator/job-run-kind';
import { dismissJob, RESTARTING, runWatchdog } from '../../lib/orchestrator/recovery';
import { signalId } from '../support/outbound-ids';

const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

let stage: EngineStage;
let chat: Awaited<ReturnType<typeof startFakeChatServer>>;
let workers: { stop(): Promise<void> } | null = null;
const sqs = new SQSClient({});

beforeAll(async () => {
  chat = await startFakeChatServer();
  stage = await useEngineStage({
    STUCK_JOB_MINUTES: '15',
    STUCK_JOB_MINUTES_WITH_QUEUE: '30',
    JOB_LOG_BUFFER_LINES: '5',
    CHAT_WEBHOOK_URL: chat.url,
    APP_ENV: 'stage',
  });
  registerTestPipelines();
}, 120_000);

afterAll(() => chat.stop());

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

const newJob = (script: Script, status: Job['status'] = 'awaiting_confirmation') => scriptedJob(script, { status });

async function run(script: Script, pipeline: PipelineDefinition = linearPipeline): Promise<Job> {
  const job = await newJob(script);
  const started = await startJob(job, pipeline);
  expect(started?.status).toBe('pending');
  return started as Job;
}

const finished = (jobId: string, timeout = 40_000) =>
  eventually(async () => {
    const job = await getJob(jobId);
    return job && (job.status === 'complete' || job.status === 'error') ? job : null;
  }, timeout);

/** The job's live log lines that start with `prefix`. */
const logLines = async (jobId: string, prefix: string) =>
  (await readLiveLog(jobId)).filter((l) => l.message.startsWith(prefix));

const { startQueueDelivery } = require('../../localstack/runtime/queue-delivery.js');

async function sendRaw(queueUrl: string, body: unknown) {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
}

/**
 * The cases in this block run side by side on one set of in-process workers: each runs jobs of its own, and none
 * runs the watchdog (which looks at every job of the stage), breaks the chat fake, changes a queue's visibility
 * timeout or counts every visibility change. The cases that do, or that need a worker process they can kill, run
 * after it one at a time with workers of their own.
 */
describe('the engine, its workers shared by cases side by side', () => {
  let shared: { stop(): Promise<void> };
  // Room for every case's stages and units at once, so the fan-out case still finds more than its bound of unit
  // slots free.
  beforeAll(() => {
    shared = startInProcessWorkers(stage, { stages: 6, units: 16 });
  });
  afterAll(() => shared.stop());

  const field = (message: any, title: string) =>
    message.attachments[0].fields.find((f: any) => f.title === title)?.value;
  async function countWords(text: string): Promise<Job> {
    const job = newJobRecord({
      room: { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() },
      userId: randomUUID(),
      sourceType: 'audio',
      status: 'awaiting_confirmation',
    });
    await putNewJob(job);
    await putSource(job.id, text);
    expect(await startJob(job, wordCountPipeline)).not.toBeNull();
    return finished(job.id);
  }

  // The longest case first: at most five run at once (jest's maxConcurrency), and its backoffs take 15 s.
  it.concurrent('a fan-out retries a failing unit and gives up after three attempts without stalling the fan-in', async () => {
    const job = await run({ fanout: { units: 5, concurrency: 5 }, unitFailures: { 1: 1, 3: 99 } }, fanoutPipeline);
    const done = await finished(job.id, 45_000);
    const record = await runRecord(job.id);
    expect(done.status).toBe('complete');
    expect(record.units[1]).toBe(2); // failed once, then succeeded
    expect(record.units[3]).toBe(3); // failed three times: given up, counted
    expect(record.units[0]).toBe(1);
    expect(record.runs.finish).toBe(1);
  }, 60_000);

  it.concurrent('a linear pipeline runs every stage once, in order, through the declared statuses to complete', async () => {
    const job = await run({ sleepMs: { b: 300 }, items: 4 });
    const statuses = new Set<string>();
    const done = await eventually(
      async () => {
        const now = await getJob(job.id);
        if (now) statuses.add(now.status);
        return now?.status === 'complete' ? now : null;
      },
      30_000,
      50,
    );
    expect((await runRecord(job.id)).order).toEqual(['a', 'b', 'c']);
    expect(statuses.has('analyzing')).toBe(true);
    expect(done).toMatchObject({ status: 'complete', progress_pct: 100, items_found: 4, stage_state: 'done' });
    expect(Object.keys(done.stage_timings).sort()).toEqual(['a', 'b', 'c']);
    expect(done.stage_timings.b.seconds).toBeGreaterThanOrEqual(0.3);
    // The log is archived right after the status turns complete.
    await eventually(async () => (await readArchivedLog(job.id))?.some((l) => l.message.startsWith('Complete')));
  });

  it.concurrent('a linear pipeline runs a stage once when its message is delivered twice', async () => {
    const job = await run({ sleepMs: { a: 1500 } });
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: job.run_id, stage: 'a' });
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: job.run_id, stage: 'a' });
    await finished(job.id);
    expect((await runRecord(job.id)).runs).toEqual({ a: 1, b: 1, c: 1 });
  });

  it.concurrent('a linear pipeline drops messages that arrive out of order or after the job moved on', async () => {
    const job = await run({ sleepMs: { a: 1000 } });
    // A message for a later stage while the job is still in stage a.
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: job.run_id, stage: 'c' });
    // A message of another run.
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: randomUUID(), stage: 'a' });
    const done = await finished(job.id);
    expect(done.status).toBe('complete');
    expect((await runRecord(job.id)).order).toEqual(['a', 'b', 'c']);
    // Redelivering an old stage after completion changes nothing.
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: job.run_id, stage: 'b' });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await runRecord(job.id)).runs.b).toBe(1);
    expect((await getJob(job.id))?.status).toBe('complete');
  });

  it.concurrent('a linear pipeline ends in error with the stage message when a stage fails, and archives the log', async () => {
    const job = await run({ fail: { stage: 'b', message: 'Every AI call failed.' } });
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'error', error_message: 'Every AI call failed.' });
    expect((await runRecord(job.id)).order).toEqual(['a', 'b']);
    await eventually(async () => (await readArchivedLog(job.id))?.some((l) => l.level === 'error'));
  });

  it.concurrent('a stage that allows retries is run again after a fault that passes, under the same lease, and the run completes', async () => {
    const job = await run({ stageFaults: { flaky: 2 } }, retryingPipeline);
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'complete', recovery_attempts: 0 });
    expect((await runRecord(job.id)).runs).toEqual({ flaky: 3 });
  });

  it.concurrent('a stage whose retries are spent fails the run with its fault; a PipelineFailure is never retried', async () => {
    const spent = await run({ stageFaults: { flaky: 3 } }, retryingPipeline);
    const refused = await run({ fail: { stage: 'flaky', message: 'Nothing to read.' } }, retryingPipeline);
    expect(await finished(spent.id)).toMatchObject({
      status: 'error',
      error_message: 'The flaky stage failed: stage flaky faulted on purpose',
    });
    expect((await runRecord(spent.id)).runs).toEqual({ flaky: 3 });
    expect(await finished(refused.id)).toMatchObject({ status: 'error', error_message: 'Nothing to read.' });
    expect((await runRecord(refused.id)).runs).toEqual({ flaky: 1 });
  });

  it.concurrent('a linear pipeline does not start a job twice, nor one that is not startable', async () => {
    const job = await newJob({});
    const [first, second] = await Promise.all([startJob(job, linearPipeline), startJob(job, linearPipeline)]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const processing = await newJob({}, 'analyzing');
    expect(await startJob(processing, linearPipeline)).toBeNull();
  });

  it.concurrent('the example pipeline of the pipeline guide counts the words in chunks through its fan-out and bills one credit per chunk', async () => {
    const done = await countWords('one two three four five six seven eight nine ten eleven twelve');
    expect(done).toMatchObject({ status: 'complete', items_found: 12, billed_cost_usd: 3, progress_pct: 100 });
    expect(await getTotal(done.id)).toBe(12);
  });

  it.concurrent('the example pipeline of the pipeline guide fails with its own message when there is nothing to count', async () => {
    const done = await countWords('   ');
    expect(done).toMatchObject({ status: 'error', error_message: NOTHING_TO_COUNT });
    expect(await getTotal(done.id)).toBeNull();
  });

  // The jobs here belong to claims that do not exist: finalizing still completes the job.
  it.concurrent('outbound chat messages: posts a success with credits and revenue, and a failure with the error', async () => {
    const ok = await run({ credits: 4 });
    await finished(ok.id);
    const success = await eventually(async () =>
      chat.messages.find((m) => m.text === 'New media uploaded' && field(m, 'Credits Used') === '4'),
    );
    expect(field(success, 'Environment')).toBe('Stage');
    expect(field(success, 'Media Type')).toBe('Video');
    expect(field(success, 'Revenue')).toBe('$0.60'); // 4 credits at the default 0.15
    const bad = await run({ fail: { stage: 'a', message: 'Could not read the video.' } });
    await finished(bad.id);
    const failure = await eventually(async () =>
      chat.messages.find(
        (m) => m.text === 'Media processing failed' && field(m, 'Error') === 'Could not read the video.',
      ),
    );
    expect(field(failure, 'Credits Used')).toBeUndefined();
  });

  it.concurrent('the live job log keeps exactly the last JOB_LOG_BUFFER_LINES lines, oldest first, and archives them', async () => {
    const job = await newJob({});
    for (let i = 1; i <= 8; i++) await appendLog(job.id, 'info', `line ${i}`);
    expect((await readLiveLog(job.id)).map((l) => l.message)).toEqual([
      'line 4',
      'line 5',
      'line 6',
      'line 7',
      'line 8',
    ]);
    expect((await readLiveLog(job.id, 6)).map((l) => l.message)).toEqual(['line 7', 'line 8']);
    await archiveLog(job.id);
    expect((await readArchivedLog(job.id))?.map((l) => l.seq)).toEqual([4, 5, 6, 7, 8]);
  });

  it.concurrent('a fan-out keeps at most the per-job concurrency in flight and advances once after the last unit', async () => {
    const job = await run({ fanout: { units: 12, concurrency: 3 }, sleepMs: { unit: 200 } }, fanoutPipeline);
    const done = await finished(job.id);
    const record = await runRecord(job.id);
    expect(done.status).toBe('complete');
    expect(record.max_inflight).toBeLessThanOrEqual(3);
    expect(record.max_inflight).toBeGreaterThanOrEqual(2);
    expect(Object.keys(record.units)).toHaveLength(12);
    expect(Object.values(record.units).every((n) => n === 1)).toBe(true);
    expect(record.runs).toEqual({ split: 1, finish: 1 });
    expect(done).toMatchObject({ fanout_total: 0, progress_pct: 100 });
  });

  it.concurrent('a fan-out ignores a duplicated unit message', async () => {
    const job = await run({ fanout: { units: 3, concurrency: 1 }, sleepMs: { unit: 500 } }, fanoutPipeline);
    await eventually(async () => (await getJob(job.id))?.stage_state === 'fanout');
    await sendRaw(stage.queues.units, { job_id: job.id, run_id: job.run_id, stage: 'split', index: 0 });
    await sendRaw(stage.queues.units, { job_id: job.id, run_id: job.run_id, stage: 'split', index: 0 });
    await finished(job.id);
    expect((await runRecord(job.id)).units).toEqual({ 0: 1, 1: 1, 2: 1 });
  });

  it.concurrent('lets an admin dismiss a processing job, and refuses to dismiss a finished one', async () => {
    const job = await newJob({});
    await updateJob(job.id, ['job', 'run'], {
      set: { status: 'analyzing', run_id: randomUUID(), stage_state: 'running' },
    });
    const dismissed = await dismissJob((await getJob(job.id)) as Job);
    expect(dismissed.status).toBe('error');
    const refused = await dismissJob(dismissed).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(STATUS_OF_DOMAIN_ERROR[(refused as ConflictError).code]).toBe(409);
  });

  it.concurrent.each([
    [
      'a throttled write',
      () =>
        Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
          name: 'ProvisionedThroughputExceededException',
          $fault: 'client',
        }),
    ],
    [
      'a transaction conflict',
      () =>
        Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          $fault: 'client',
          CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
        }),
    ],
  ])('fault injection: counts a unit exactly once when its count write fails once with %s', async (_name, error) => {
    // The workers are running: the fault is in place before the job starts, so its first count meets it.
    const job = await newJob({ fanout: { units: 3, concurrency: 3 } });
    const middleware = `failOneFanInCount ${job.id}`;
    let injected = 0;
    const client = db();
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = JSON.stringify(args.input);
        if (injected === 0 && input.includes('":add_fanout_done"') && input.includes(job.id)) {
          injected++;
          throw error();
        }
        return next(args);
      },
      { step: 'initialize', name: middleware },
    );
    try {
      expect((await startJob(job, fanoutPipeline))?.status).toBe('pending');
      const done = await finished(job.id);
      expect(injected).toBe(1);
      expect(done.status).toBe('complete');
      const record = await runRecord(job.id);
      expect(Object.keys(record.units)).toHaveLength(3);
      expect(record.runs).toEqual({ split: 1, finish: 1 });
      expect(await logLines(job.id, 'Stage split finished')).toHaveLength(1);
    } finally {
      client.middlewareStack.remove(middleware);
    }
  });

  it.concurrent('local queue delivery hands batches of the batch size to at most the concurrency of invocations, each message once', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `delivery-${randomUUID()}` }));
    const seen: string[] = [];
    const batchSizes: number[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const delivery = startQueueDelivery({
      consumers: [{ name: 'slow', queueUrl: QueueUrl, batchSize: 2, concurrency: 3 }],
      invoke: async (_name: string, event: { Records: { body: string }[] }) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        batchSizes.push(event.Records.length);
        seen.push(...event.Records.map((r) => JSON.parse(r.body).n));
        await new Promise((r) => setTimeout(r, 300));
        running--;
        return { payload: { batchItemFailures: [] } };
      },
      sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS,
    });
    try {
      await Promise.all(Array.from({ length: 12 }, (_, n) => sendRaw(QueueUrl as string, { n: String(n) })));
      await eventually(async () => seen.length >= 12 && (await delivery.pending()) === 0, 20_000, 100);
    } finally {
      await delivery.stop();
    }
    expect([...seen].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, n) => String(n)));
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(3);
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(2);
    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
  }, 30_000);

  it.concurrent('local queue delivery leaves a failed message hidden for its visibility timeout, as SQS does', async () => {
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: `delivery-${randomUUID()}`, Attributes: { VisibilityTimeout: '600' } }),
    );
    let calls = 0;
    const delivery = startQueueDelivery({
      consumers: [{ name: 'failing', queueUrl: QueueUrl, batchSize: 1, concurrency: 1 }],
      invoke: async () => {
        calls++;
        return { error: 'failed on purpose', payload: null };
      },
      sqsEndpoint: process.env.AWS_ENDPOINT_URL_SQS,
    });
    try {
      await sendRaw(QueueUrl as string, { hello: 'world' });
      await eventually(async () => calls === 1);
      // Well past any short local retry delay, far inside the 600 s visibility timeout.
      await new Promise((r) => setTimeout(r, 4000));
    } finally {
      await delivery.stop();
    }
    expect(calls).toBe(1);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(Attributes?.ApproximateNumberOfMessagesNotVisible).toBe('1'); // still hidden, not deleted
    await sqs.send(new DeleteQueueCommand({ QueueUrl }));
  }, 30_000);
});

describe('outbound chat messages', () => {
  it('never breaks a job when the chat service fails', async () => {
    chat.failWith(500);
    try {
      workers = startInProcessWorkers(stage);
      const job = await run({});
      expect((await finished(job.id)).status).toBe('complete');
    } finally {
      chat.failWith(null);
    }
  });
});

describe('interruptions and the watchdog', () => {
  const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

  it('restarts a job whose worker was killed mid-stage, clearing partial results, and completes it', async () => {
    let child = await startWorkerProcess(stage);
    const job = await run({ hangStage: 'b' });
    await eventually(
      async () => (await getJob(job.id))?.stage_name === 'b' && (await getJob(job.id))?.stage_state === 'running',
    );
    await killed(child);

    // The lease is 3 s; the watchdog looks 20 minutes ahead so the job counts as quiet.
    await setScript(job.id, {}); // the restarted run behaves
    const report = await runWatchdog(later(20));
    expect(report.recovered).toBeGreaterThanOrEqual(1);
    const restarted = await getJob(job.id);
    expect(restarted).toMatchObject({ status: 'pending', current_stage: RESTARTING, recovery_attempts: 1 });
    expect(restarted?.run_id).not.toBe(job.run_id);
    expect((await runRecord(job.id)).cleared).toBe(1);

    child = await startWorkerProcess(stage);
    try {
      const done = await finished(job.id);
      expect(done).toMatchObject({ status: 'complete', recovery_attempts: 1 });
    } finally {
      await killed(child);
    }
  }, 90_000);

  it('fails a job interrupted a second time, with a retryable message', async () => {
    const child = await startWorkerProcess(stage);
    const job = await run({ hangStage: 'a' });
    await eventually(async () => (await getJob(job.id))?.stage_state === 'running');
    await killed(child);
    await updateJob(job.id, ['run'], { set: { recovery_attempts: 1 } });
    await runWatchdog(later(20));
    const failed = await getJob(job.id);
    expect(failed).toMatchObject({ status: 'error', error_message: jobRunKind.messages.interrupted });
  }, 60_000);

  it('requeues a stage whose message was lost', async () => {
    const job = await newJob({});
    // Start it with the queue message "lost": state queued, nothing sent.
    await updateJob(job.id, ['job', 'run'], {
      set: {
        status: 'pending',
        pipeline: linearPipeline.name,
        run_id: randomUUID(),
        stage_name: 'a',
        stage_state: 'queued',
        started_at: new Date().toISOString(),
        heartbeat_at: new Date().toISOString(),
      },
    });
    const report = await runWatchdog(later(16));
    expect(report.requeued).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    expect((await finished(job.id)).status).toBe('complete');
  });

  it('fails a job stuck for more than a day and never requeues it', async () => {
    const job = await newJob({});
    await makeStuckForADay(job.id);
    const report = await runWatchdog(new Date());
    expect(report.jobs.failed).toContain(job.id);
    expect(await getJob(job.id)).toMatchObject({ status: 'error', error_message: jobRunKind.messages.stuckForADay });

    // Error tracking hears of the sweep (the run's fake, as the scheduled function would send it), naming the job.
    await flushSignals();
    const sweep = await eventually(async () =>
      (await errors.events(signalId(job.id))).find((e) => e.tags?.kind === 'watchdog_sweep'),
    );
    expect(sweep).toMatchObject({
      level: 'warning',
      exception: { values: [{ type: 'WatchdogSweep', value: expect.stringMatching(/\d+ failed of \d+ checked/) }] },
      extra: { failed: expect.any(Number), failed_job_ids: expect.stringContaining(signalId(job.id)) },
    });
  });

  it('fails a hung job that still holds its lease after the queue threshold', async () => {
    const job = await newJob({});
    const now = new Date();
    await updateJob(job.id, ['job', 'run'], {
      set: {
        status: 'analyzing',
        pipeline: linearPipeline.name,
        run_id: randomUUID(),
        stage_name: 'b',
        stage_state: 'running',
        stage_runner: 'x',
        stage_lease_until: later(120).toISOString(),
        started_at: now.toISOString(),
        heartbeat_at: now.toISOString(),
      },
    });
    await runWatchdog(later(20));
    expect((await getJob(job.id))?.status).toBe('analyzing'); // quiet 20 min: not yet hung
    await runWatchdog(later(35));
    expect((await getJob(job.id))?.status).toBe('error');
  });
});

describe('fault injection: the engine cannot lose work', () => {
  const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);
  it('advances a fan-out whose last unit was counted by a worker killed before it advanced', async () => {
    const child = await startWorkerProcess(stage, { ENGINE_KILL_AFTER_FANIN: '2' });
    const job = await run({ fanout: { units: 2, concurrency: 1 } }, fanoutPipeline);
    expect(await selfKilled(child)).toBe('SIGKILL');
    const stranded = (await getJob(job.id)) as Job;
    // All the work is done and counted; nobody is left to advance the stage.
    expect(stranded).toMatchObject({ stage_name: 'split', stage_state: 'fanout', fanout_total: 2, fanout_done: 2 });

    // Quiet for 20 minutes: the watchdog advances it (before, it would have failed it as hung at 30).
    const report = await runWatchdog(later(20));
    expect(report.recovered).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    const done = await finished(job.id);
    expect(done.status).toBe('complete');
    const record = await runRecord(job.id);
    expect(record.units).toEqual({ 0: 1, 1: 1 });
    expect(record.runs).toEqual({ split: 1, finish: 1 });
  }, 90_000);

  it('advances a fan-out whose units are all done although the count missed one', async () => {
    // The state a crash between "unit done" and "count" left behind before both were one transaction.
    const job = await newJob({});
    const runId = randomUUID();
    const now = new Date().toISOString();
    await updateJob(job.id, ['job', 'run'], {
      set: {
        status: 'analyzing',
        pipeline: fanoutPipeline.name,
        run_id: runId,
        stage_name: 'split',
        stage_state: 'fanout',
        fanout_total: 2,
        fanout_next: 2,
        fanout_done: 1,
        started_at: now,
        heartbeat_at: now,
      },
    });
    for (const index of [0, 1]) {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            pk: `JOBUNIT#${job.id}`,
            sk: `${runId}#split#${String(index).padStart(6, '0')}`,
            entity: 'JobUnit',
            state: 'done',
            outcome: 'ok',
            runner: 'gone',
            lease_until: now,
            attempts: 1,
          },
        }),
      );
    }
    const report = await runWatchdog(later(20));
    expect(report.recovered).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    expect((await finished(job.id)).status).toBe('complete');
    expect((await runRecord(job.id)).runs).toEqual({ finish: 1 });
  });

  it('redoes a unit whose worker was killed before it was counted, and counts it once', async () => {
    const child = await startWorkerProcess(stage);
    const job = await run({ fanout: { units: 3, concurrency: 3 }, hangUnits: { 1: 1 } }, fanoutPipeline);
    await eventually(async () => (await getJob(job.id))?.fanout_done === 2 && (await runRecord(job.id)).units[1] === 1);
    await killed(child);
    // The unit's 3-second lease runs out: its worker is gone.
    const unitKey = { pk: `JOBUNIT#${job.id}`, sk: `${job.run_id}#split#000001` };
    await eventually(async () => {
      const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: unitKey, ConsistentRead: true }));
      return Item?.state === 'running' && Item.lease_until < new Date().toISOString();
    });
    const report = await runWatchdog(later(20));
    expect(report.requeued).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    const done = await finished(job.id);
    expect(done.status).toBe('complete');
    const record = await runRecord(job.id);
    expect(record.units).toEqual({ 0: 1, 1: 2, 2: 1 });
    expect(record.runs).toEqual({ split: 1, finish: 1 });
    expect(await logLines(job.id, 'Stage split finished')).toHaveLength(1);
  }, 90_000);

  it('brings a failed unit back after its backoff, not after the queue visibility timeout', async () => {
    // A visibility timeout far beyond this test's time limit: only the backoff can bring the unit back in time.
    await setVisibilityTimeout(stage.queues.units, 600);
    const requested: number[] = [];
    const client = serviceSqs();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ChangeMessageVisibilityCommand')
          requested.push((args.input as { VisibilityTimeout: number }).VisibilityTimeout);
        return next(args);
      },
      { step: 'initialize', name: 'recordVisibilityChanges' },
    );
    try {
      workers = startInProcessWorkers(stage);
      const job = await run({ fanout: { units: 2, concurrency: 2 }, unitFailures: { 1: 1 } }, fanoutPipeline);
      const done = await finished(job.id, 45_000);
      expect(done.status).toBe('complete');
      expect(requested).toEqual([5]); // first retry: 5 s × 2^0
      expect((await runRecord(job.id)).units).toEqual({ 0: 1, 1: 2 });
    } finally {
      client.middlewareStack.remove('recordVisibilityChanges');
      await setVisibilityTimeout(stage.queues.units, 10);
    }
  }, 60_000);
});

describe("fault injection: a unit's message is not lost to a passing failure before its claim or after its count", () => {
  // No watchdog runs in these cases: without the engine's own retry the run would wait for it, quiet, forever here.
  it('sends the next unit when its first send failed after the count (SQS refused it, and the direct invoke too)', async () => {
    const job = await newJob({ fanout: { units: 2, concurrency: 1 } });
    let refused = 0;
    const client = serviceSqs();
    const middleware = `refuseNextUnit ${job.id}`;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const body = String((args.input as { MessageBody?: string }).MessageBody ?? '');
        if (
          context.commandName === 'SendMessageCommand' &&
          refused === 0 &&
          body.includes(job.id) &&
          body.includes('"index":1')
        ) {
          refused++;
          throw Object.assign(new Error('connect ECONNREFUSED (injected)'), { name: 'TimeoutError', $fault: 'client' });
        }
        return next(args);
      },
      { step: 'initialize', name: middleware },
    );
    // The fallback's Lambda endpoint does not answer either: the send fails as a whole, once.
    const savedLambda = process.env.AWS_ENDPOINT_URL_LAMBDA;
    process.env.AWS_ENDPOINT_URL_LAMBDA = 'http://127.0.0.1:9';
    try {
      workers = startInProcessWorkers(stage);
      expect((await startJob(job, fanoutPipeline))?.status).toBe('pending');
      const done = await finished(job.id, 30_000);
      expect(refused).toBe(1);
      expect(done.status).toBe('complete');
      expect((await runRecord(job.id)).units).toEqual({ 0: 1, 1: 1 });
      expect((await logLines(job.id, 'Watchdog:')).length).toBe(0);
    } finally {
      client.middlewareStack.remove(middleware);
      if (savedLambda === undefined) delete process.env.AWS_ENDPOINT_URL_LAMBDA;
      else process.env.AWS_ENDPOINT_URL_LAMBDA = savedLambda;
    }
  }, 60_000);

  /**
   * Throttles the first UpdateItem of the table's client that `names` (its input as JSON) picks out, before the
   * SDK's own retries see it; answers how many it threw and a way to take the fault away.
   */
  function throttleOneUpdate(label: string, names: (input: string) => boolean) {
    const client = db();
    const fault = { throttled: 0, remove: () => client.middlewareStack.remove(label) };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const update = /^Update(Item)?Command$/.test(String(context.commandName));
        if (update && fault.throttled === 0 && names(JSON.stringify(args.input))) {
          fault.throttled++;
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput (injected)'), {
            name: 'ProvisionedThroughputExceededException',
            $fault: 'client',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: label },
    );
    return fault;
  }

  it("advances the stage when the last count's advance write was throttled once", async () => {
    const job = await newJob({ fanout: { units: 2, concurrency: 2 } });
    // The advance out of the fan-out: the job's conditional move from split (in fanout) to finish.
    const fault = throttleOneUpdate(
      `throttleAdvance ${job.id}`,
      (input) => input.includes(job.id) && input.includes('"fanout"') && input.includes('"finish"'),
    );
    try {
      workers = startInProcessWorkers(stage);
      expect((await startJob(job, fanoutPipeline))?.status).toBe('pending');
      const done = await finished(job.id, 30_000);
      expect(fault.throttled).toBe(1);
      expect(done.status).toBe('complete');
      expect((await runRecord(job.id)).runs).toEqual({ split: 1, finish: 1 });
      expect((await logLines(job.id, 'Watchdog:')).length).toBe(0);
    } finally {
      fault.remove();
    }
  }, 60_000);

  it('brings a unit whose claim write was throttled back after its backoff, not after the visibility timeout', async () => {
    // A visibility timeout far beyond this test's time limit: only the backoff can bring the unit back in time.
    await setVisibilityTimeout(stage.queues.units, 600);
    const job = await newJob({ fanout: { units: 2, concurrency: 2 } });
    // A unit's claim: the conditional write of its JOBUNIT row (run by nobody yet, or under an expired lease).
    const fault = throttleOneUpdate(
      `throttleClaim ${job.id}`,
      (input) => input.includes(`JOBUNIT#${job.id}`) && input.includes('"JobUnit"'),
    );
    try {
      workers = startInProcessWorkers(stage);
      expect((await startJob(job, fanoutPipeline))?.status).toBe('pending');
      const done = await finished(job.id, 45_000);
      expect(fault.throttled).toBe(1);
      expect(done.status).toBe('complete');
      // Each unit ran once: the throttled delivery held nothing.
      expect((await runRecord(job.id)).units).toEqual({ 0: 1, 1: 1 });
      expect((await logLines(job.id, 'Watchdog:')).length).toBe(0);
    } finally {
      fault.remove();
      await setVisibilityTimeout(stage.queues.units, 10);
    }
  }, 60_000);
});

describe('queue outage', () => {
  let fakeLambda: Server;
  const invoked: { name: string; body: any }[] = [];

  beforeAll(async () => {
    fakeLambda = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        invoked.push({
          name: decodeURIComponent(String(req.url).split('/functions/')[1]?.split('/')[0] ?? ''),
          body: JSON.parse(body || '{}'),
        });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => fakeLambda.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => fakeLambda.close(() => r())));

  it('hands the stage to the worker by direct invoke when SQS does not answer, and health reports it', async () => {
    const job = await newJob({});
    await jest.isolateModulesAsync(async () => {
      // A fresh module graph whose SQS client points at a closed port.
      process.env.AWS_ENDPOINT_URL_SQS_SAVED = process.env.AWS_ENDPOINT_URL_SQS;
      process.env.AWS_ENDPOINT_URL_SQS = 'http://127.0.0.1:9';
      process.env.AWS_ENDPOINT_URL_LAMBDA = `http://127.0.0.1:${(fakeLambda.address() as AddressInfo).port}`;
      try {
        const engine = await import('../../lib/orchestrator/engine');
        const { getPipelineHealth } = await import('../../lib/health/service');
        const started = await engine.startJob(job, linearPipeline);
        expect(started?.status).toBe('pending');
        expect((await getPipelineHealth()).mode).toBe('in-process-fallback');
      } finally {
        process.env.AWS_ENDPOINT_URL_SQS = process.env.AWS_ENDPOINT_URL_SQS_SAVED;
        delete process.env.AWS_ENDPOINT_URL_LAMBDA;
      }
    });
    expect(invoked).toHaveLength(1);
    expect(invoked[0].name).toBe(`${stage.env.FUNCTION_NAME_PREFIX}stageWorker`);
    const message = JSON.parse(invoked[0].body.Records[0].body);
    expect(message).toMatchObject({ job_id: job.id, stage: 'a' });
  }, 60_000);
});
