/**
 * Preparing pipelines on the real engine (the PDF import is one): a run that
 * starts from importing_pdf, stays in it through its stages and fan-out, and
 * hands the job on to awaiting_grouping, whether it succeeds, fails, or is
 * restarted after its worker died; started once only; and a preparing job
 * whose files were never confirmed, which the watchdog hands on once its
 * upload links have expired. A crashed read reaches error tracking as an
 * import crash; files that never came do not.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '../support/api';
import { fakeSentry } from '../support/fake-sentry';
import { killed, startInProcessWorkers, startWorkerProcess, useEngineStage, type EngineStage } from '../support/engine';
import { preparingPipeline, registerTestPipelines, runRecord, setScript, type Script } from '../support/test-pipelines';
import { getJob, putNewJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import { readArchivedLog, readLiveLog } from '../../lib/jobs/log-store';
import { startJob } from '../../lib/orchestrator/engine';
import { flushSignals } from '../../lib/observability/flush';
import { RESTARTING, runWatchdog } from '../../lib/orchestrator/recovery';
import { signalId } from '../support/outbound-ids';

const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);
let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;

beforeAll(async () => {
  stage = await useEngineStage(
    { STUCK_JOB_MINUTES: '15', STUCK_JOB_MINUTES_WITH_QUEUE: '30', PRESIGNED_URL_TTL_SECONDS: '900' },
    'engine-preparing',
  );
  registerTestPipelines();
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

async function preparingJob(script: Script): Promise<Job> {
  const job = newJobRecord({
    room: { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() },
    userId: randomUUID(),
    sourceType: 'photo',
    status: 'importing_pdf',
  });
  await putNewJob(job);
  await setScript(job.id, script);
  return job;
}

const handedOn = (jobId: string, timeout = 40_000) =>
  eventually(async () => {
    const job = await getJob(jobId);
    return job?.status === 'awaiting_grouping' ? job : null;
  }, timeout);

const messages = async (jobId: string) => (await readLiveLog(jobId)).map((l) => l.message);

it('runs its stages and fan-out in importing_pdf, then hands the job on to awaiting_grouping', async () => {
  workers = startInProcessWorkers(stage);
  const job = await preparingJob({ fanout: { units: 3, concurrency: 2 }, sleepMs: { unit: 200 }, items: 7 });
  const started = await startJob(job, preparingPipeline);
  expect(started).toMatchObject({ status: 'importing_pdf', pipeline: 'test-preparing' });
  const seen = new Set<string>();
  const done = await eventually(
    async () => {
      const now = await getJob(job.id);
      if (now) seen.add(now.status);
      return now?.status === 'awaiting_grouping' ? now : null;
    },
    30_000,
    50,
  );
  expect([...seen].filter((s) => s !== 'awaiting_grouping')).toEqual(['importing_pdf']);
  expect((await runRecord(job.id)).order).toEqual(['split', 'finish']);
  expect((await runRecord(job.id)).units).toEqual({ 0: 1, 1: 1, 2: 1 });
  expect(done).toMatchObject({
    stage_state: 'done',
    preparation_error: null,
    finished_at: null,
    billing_finalized_at: null,
    items_found: 0,
  });
  expect(await messages(job.id)).toContain('Read finished: 7 photo(s); awaiting grouping');
  // The job's life goes on: its log is not archived.
  expect(await readArchivedLog(job.id)).toBeNull();
});

it('hands the job on with the failure recorded when a stage fails', async () => {
  workers = startInProcessWorkers(stage);
  const job = await preparingJob({ fail: { stage: 'finish', message: 'The PDF is damaged.' } });
  await startJob(job, preparingPipeline);
  const done = await handedOn(job.id);
  expect(done).toMatchObject({
    preparation_error: 'The PDF is damaged.',
    error_message: null,
    billing_refunded: false,
  });
  // The log line is written after the job is handed on: on a busy machine it can land a moment later.
  await eventually(async () => (await messages(job.id)).includes('The PDF is damaged.'));
  // Error tracking hears of the crashed read once (the worker sends it before its invocation ends).
  const crash = await eventually(async () =>
    (await errors.events(signalId(job.id))).find((e) => e.tags?.kind === 'import_crash'),
  );
  expect(crash).toMatchObject({
    level: 'error',
    tags: { job_id: signalId(job.id), pipeline: 'test-preparing', source_type: 'photo' },
    exception: { values: [{ type: 'ImportCrash', value: 'The PDF is damaged.' }] },
  });
  await new Promise((r) => setTimeout(r, 1000));
  expect((await errors.events(signalId(job.id))).filter((e) => e.tags?.kind === 'import_crash')).toHaveLength(1);
});

it('starts once: a second start while it runs, or after it ended, is refused', async () => {
  const job = await preparingJob({ sleepMs: { split: 1500 } });
  workers = startInProcessWorkers(stage);
  const first = await startJob(job, preparingPipeline);
  expect(first?.run_id).toEqual(expect.any(String));
  expect(await startJob(job, preparingPipeline)).toBeNull();
  await handedOn(job.id);
  expect(await startJob((await getJob(job.id)) as Job, preparingPipeline)).toBeNull();
  expect((await runRecord(job.id)).runs).toEqual({ split: 1, finish: 1 });
});

it('restarts in importing_pdf when its worker died, then hands the job on', async () => {
  let child = await startWorkerProcess(stage);
  const job = await preparingJob({ hangStage: 'split' });
  await startJob(job, preparingPipeline);
  await eventually(async () => (await getJob(job.id))?.stage_state === 'running');
  await killed(child);
  await setScript(job.id, {});
  const report = await runWatchdog(later(20));
  expect(report.recovered).toBeGreaterThanOrEqual(1);
  expect(await getJob(job.id)).toMatchObject({
    status: 'importing_pdf',
    current_stage: RESTARTING,
    recovery_attempts: 1,
  });
  expect((await runRecord(job.id)).cleared).toBe(1);
  child = await startWorkerProcess(stage);
  try {
    expect(await handedOn(job.id)).toMatchObject({ preparation_error: null, recovery_attempts: 1 });
  } finally {
    await killed(child);
  }
}, 90_000);

it('hands on a preparing job whose files were never confirmed, once its upload links expired', async () => {
  const job = await preparingJob({});
  await runWatchdog(later(10));
  expect((await getJob(job.id))?.status).toBe('importing_pdf');
  await runWatchdog(later(26));
  const done = await getJob(job.id);
  expect(done).toMatchObject({ status: 'awaiting_grouping', run_id: null });
  expect(done?.preparation_error).toMatch(/No contents list was confirmed/);
  // Files that never came are not a crash: error tracking hears only of the sweep that handed it on.
  await flushSignals();
  const reports = await eventually(async () => {
    const found = await errors.events(signalId(job.id));
    return found.length > 0 ? found : null;
  });
  expect(reports.map((e) => e.tags?.kind)).toEqual(['watchdog_sweep']);
  expect(reports[0].extra).toMatchObject({ failed_job_ids: expect.stringContaining(signalId(job.id)) });
});
