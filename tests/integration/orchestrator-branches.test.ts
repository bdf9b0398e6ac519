/**
 * Branch stages proven on real SQS and DynamoDB with the real worker
 * handlers: a frames-like branch that fans out units ‖ a transcript-like
 * branch that runs once, joined before the next stage. The branches run at
 * the same time, the status follows the declared rule, the next stage starts
 * exactly once, duplicated messages run nothing twice, and a branch whose
 * worker died is an interruption the watchdog (or a redelivery) recovers.
 * Runs on an engine stage of its own, so orchestrator.test.ts's workers never
 * take its messages.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { eventually } from '../support/api';
import { killed, startInProcessWorkers, startWorkerProcess, useEngineStage, type EngineStage } from '../support/engine';
import {
  branchPipeline,
  registerTestPipelines,
  runRecord,
  setScript,
  type Script,
  type Span,
} from '../support/test-pipelines';
import { getJob, putNewJob, updateJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import { readLiveLog } from '../../lib/jobs/log-store';
import { startJob } from '../../lib/orchestrator/engine';
import { RESTARTING, runWatchdog } from '../../lib/orchestrator/recovery';

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;
const sqs = new SQSClient({});

beforeAll(async () => {
  stage = await useEngineStage({ STUCK_JOB_MINUTES: '15', STUCK_JOB_MINUTES_WITH_QUEUE: '30' }, 'engine-branches');
  registerTestPipelines();
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

async function newJob(script: Script): Promise<Job> {
  const job = newJobRecord({
    room: { id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() },
    userId: randomUUID(),
    sourceType: 'video',
    status: 'awaiting_confirmation',
  });
  await putNewJob(job);
  await setScript(job.id, script);
  return job;
}

async function run(script: Script): Promise<Job> {
  const started = await startJob(await newJob(script), branchPipeline);
  expect(started?.status).toBe('pending');
  return started as Job;
}

const finished = (jobId: string, timeout = 40_000) =>
  eventually(async () => {
    const job = await getJob(jobId);
    return job && (job.status === 'complete' || job.status === 'error') ? job : null;
  }, timeout);

/** Polls the job until it finishes, keeping every distinct (status, progress) it was seen in. */
async function watch(jobId: string): Promise<{ done: Job; seen: { status: string; progress: number }[] }> {
  const seen: { status: string; progress: number }[] = [];
  const done = await eventually(
    async () => {
      const job = await getJob(jobId);
      if (!job) return null;
      const last = seen[seen.length - 1];
      if (!last || last.status !== job.status || last.progress !== job.progress_pct)
        seen.push({ status: job.status, progress: job.progress_pct });
      return job.status === 'complete' || job.status === 'error' ? job : null;
    },
    40_000,
    40,
  );
  return { done, seen };
}

async function sendRaw(queueUrl: string, body: unknown) {
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
}

const logLines = async (jobId: string, prefix: string) =>
  (await readLiveLog(jobId)).filter((l) => l.message.startsWith(prefix));

const spansOf = (spans: Span[], name: string | RegExp) =>
  spans.filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));

describe('a branch stage', () => {
  it('runs its branches side by side, follows the status rule, and starts the next stage once after both', async () => {
    workers = startInProcessWorkers(stage, { stages: 4, units: 4 });
    const job = await run({
      fanout: { units: 4, concurrency: 2 },
      // The transcript outlasts the frames by a second: frames finish first.
      outlast: { transcript: 'frames' },
      sleepMs: { unit: 300, transcript: 1000, analyze: 300 },
    });
    const { done, seen } = await watch(job.id);
    expect(done).toMatchObject({ status: 'complete', progress_pct: 100, stage_state: 'done' });
    const record = await runRecord(job.id);
    expect(record.runs).toEqual({ frames: 1, transcript: 1, analyze: 1 });
    expect(record.units).toEqual({ 0: 1, 1: 1, 2: 1, 3: 1 });

    // Concurrent: the transcript's window overlaps the frame units' windows.
    const [transcript] = spansOf(record.spans, 'transcript');
    const units = spansOf(record.spans, /^unit /);
    expect(units).toHaveLength(4);
    expect(units.some((u) => u.start < transcript.end && transcript.start < u.end)).toBe(true);
    // Joined: analyze started after both branches had ended, once.
    const [analyze] = spansOf(record.spans, 'analyze');
    expect(spansOf(record.spans, 'analyze')).toHaveLength(1);
    expect(analyze.start).toBeGreaterThanOrEqual(Math.max(transcript.end, ...units.map((u) => u.end)));
    expect(await logLines(job.id, 'Stage extract finished')).toHaveLength(1);

    // Extracting while frames run; transcribing once frames are done and the transcript is not; then analyzing.
    const statuses = seen.map((s) => s.status).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses.filter((s) => s !== 'pending')).toEqual(['extracting', 'transcribing', 'analyzing', 'complete']);
    // Frames done, transcript not: half of the stage's 0..40 range (the end of it once both are done).
    const transcribing = seen.filter((s) => s.status === 'transcribing').map((s) => s.progress);
    expect(transcribing).toContain(20);
    expect(transcribing.every((p) => p <= 20 || p === 40)).toBe(true);
    expect(seen.filter((s) => s.status === 'extracting').every((s) => s.progress <= 20)).toBe(true);
    expect(Object.keys(done.stage_timings).sort()).toEqual([
      'analyze',
      'extract',
      'extract/frames',
      'extract/transcript',
    ]);
    expect(done.stage_timings.extract.seconds).toBeGreaterThanOrEqual(
      done.stage_timings['extract/transcript'].seconds as number,
    );
  });

  it('stays extracting when the transcript finishes first, until the frames are done', async () => {
    workers = startInProcessWorkers(stage, { stages: 4, units: 4 });
    const job = await run({
      fanout: { units: 3, concurrency: 1 },
      outlast: { frames: 'transcript' },
      sleepMs: { unit: 300, analyze: 300 },
    });
    const { done, seen } = await watch(job.id);
    expect(done.status).toBe('complete');
    const statuses = seen.map((s) => s.status);
    expect(statuses).toContain('extracting');
    expect(statuses).toContain('analyzing');
    expect(statuses).not.toContain('transcribing');
    expect((await runRecord(job.id)).runs).toEqual({ frames: 1, transcript: 1, analyze: 1 });
  });

  it('runs a branch once when its message, its stage message or a unit message is delivered again', async () => {
    workers = startInProcessWorkers(stage, { stages: 4, units: 4 });
    const job = await run({ fanout: { units: 2, concurrency: 1 }, sleepMs: { transcript: 1500, unit: 400 } });
    await eventually(async () => (await getJob(job.id))?.branches?.frames?.state === 'fanout', 20_000, 50);
    const base = { job_id: job.id, run_id: job.run_id, stage: 'extract' };
    await sendRaw(stage.queues.stages, { ...base, branch: 'transcript' });
    await sendRaw(stage.queues.stages, { ...base, branch: 'transcript' });
    await sendRaw(stage.queues.stages, { ...base, branch: 'frames' });
    await sendRaw(stage.queues.stages, base);
    await sendRaw(stage.queues.units, { ...base, branch: 'frames', index: 0 });
    await sendRaw(stage.queues.units, { ...base, branch: 'frames', index: 0 });
    // A branch message for a stage without branches, and one of another run.
    await sendRaw(stage.queues.stages, { ...base, stage: 'analyze', branch: 'frames' });
    await sendRaw(stage.queues.stages, { ...base, run_id: randomUUID(), branch: 'frames' });
    const done = await finished(job.id);
    expect(done.status).toBe('complete');
    const record = await runRecord(job.id);
    expect(record.runs).toEqual({ frames: 1, transcript: 1, analyze: 1 });
    expect(record.units).toEqual({ 0: 1, 1: 1 });
    expect(await logLines(job.id, 'Stage extract finished')).toHaveLength(1);
  });

  it('ends the job in error when a branch fails', async () => {
    workers = startInProcessWorkers(stage);
    const job = await run({ fail: { stage: 'transcript', message: 'The sound track could not be read.' } });
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'error', error_message: 'The sound track could not be read.' });
    expect((await runRecord(job.id)).runs.analyze).toBeUndefined();
  });
});

describe('a branch stage interrupted', () => {
  /** Runs the job on a worker process until the transcript branch hangs with frames done, then kills it. */
  async function killedInTranscript(): Promise<Job> {
    const child = await startWorkerProcess(stage);
    const job = await run({ fanout: { units: 2, concurrency: 2 }, hangStage: 'transcript' });
    try {
      await eventually(async () => {
        const now = await getJob(job.id);
        return now?.branches?.frames?.state === 'done' && now.branches.transcript?.state === 'running';
      });
      expect((await getJob(job.id))?.status).toBe('transcribing');
    } finally {
      await killed(child);
    }
    // The branch's 3-second lease runs out: its worker is gone.
    await eventually(async () => {
      const lease = (await getJob(job.id))?.branches?.transcript?.lease_until;
      return Boolean(lease && lease < new Date().toISOString());
    });
    await setScript(job.id, { fanout: { units: 2, concurrency: 2 } }); // the restarted run behaves
    return job;
  }

  it('is recovered by the watchdog: the run restarts, partial results cleared, and the stage joins once', async () => {
    const job = await killedInTranscript();
    const report = await runWatchdog(later(20));
    expect(report.recovered).toBeGreaterThanOrEqual(1);
    const restarted = await getJob(job.id);
    expect(restarted).toMatchObject({ status: 'pending', current_stage: RESTARTING, recovery_attempts: 1 });
    expect(restarted?.run_id).not.toBe(job.run_id);
    expect(restarted?.branches).toBeNull();
    expect((await runRecord(job.id)).cleared).toBe(1);

    workers = startInProcessWorkers(stage);
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'complete', recovery_attempts: 1 });
    const record = await runRecord(job.id);
    expect(record.runs).toEqual({ frames: 1, transcript: 1, analyze: 1 });
    expect(await logLines(job.id, 'Stage extract finished')).toHaveLength(1);
  }, 90_000);

  it('is recovered when its redelivered branch message finds the lease expired', async () => {
    const job = await killedInTranscript();
    workers = startInProcessWorkers(stage);
    await sendRaw(stage.queues.stages, { job_id: job.id, run_id: job.run_id, stage: 'extract', branch: 'transcript' });
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'complete', recovery_attempts: 1 });
    expect((await runRecord(job.id)).runs).toEqual({ frames: 1, transcript: 1, analyze: 1 });
    expect(await logLines(job.id, RESTARTING)).toHaveLength(1);
  }, 90_000);
});

describe('the watchdog on a branch stage', () => {
  async function strandedInBranches(branches: Job['branches'], branchesDone: number): Promise<Job> {
    const job = await newJob({});
    const now = new Date().toISOString();
    await updateJob(job.id, ['job', 'run'], {
      set: {
        status: 'extracting',
        pipeline: branchPipeline.name,
        run_id: randomUUID(),
        stage_name: 'extract',
        stage_state: 'branches',
        branches,
        branches_done: branchesDone,
        started_at: now,
        heartbeat_at: now,
      },
    });
    return job;
  }

  it('advances a stage whose branches all finished but whose joiner died before advancing', async () => {
    const job = await strandedInBranches({ frames: { state: 'done' }, transcript: { state: 'done' } }, 2);
    const report = await runWatchdog(later(20));
    expect(report.recovered).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    expect((await finished(job.id)).status).toBe('complete');
    expect((await runRecord(job.id)).runs).toEqual({ analyze: 1 });
  });

  it('sends branches whose messages were lost', async () => {
    const job = await strandedInBranches({ frames: { state: 'done' }, transcript: { state: 'queued' } }, 1);
    const report = await runWatchdog(later(16));
    expect(report.requeued).toBeGreaterThanOrEqual(1);
    workers = startInProcessWorkers(stage);
    expect((await finished(job.id)).status).toBe('complete');
    expect((await runRecord(job.id)).runs).toEqual({ transcript: 1, analyze: 1 });
  });
});
