/**
 * The live job log with the deployed defaults (spec: Outbound signals: live
 * job logs are mirrored under per-job keys with a 24-hour expiry; the last
 * 1000 lines per job are kept and archived to the job log archive at every
 * terminal path), on the real table and the real worker handlers: every live
 * row expires 24 hours after its write, the ring keeps exactly the last 1000
 * lines, and each way a job run ends leaves the archive: complete, error, a
 * follow-up pass that completes or fails, a claim import's reader that ends
 * complete, an administrator's dismissal and the watchdog's day limit.
 */
import { randomUUID } from 'node:crypto';
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { eventually } from '../support/api';
import { startInProcessWorkers, useEngineStage, type EngineStage } from '../support/engine';
import {
  linearPipeline,
  preparingPipeline,
  makeStuckForADay,
  registerTestPipelines,
  scriptedJob,
} from '../support/test-pipelines';
import { settings } from '../../lib/config';
import { db, tableName } from '../../lib/db/client';
import { getJob, updateJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { appendLog, archiveLog, readArchivedLog, readLiveLog } from '../../lib/jobs/log-store';
import { startJob } from '../../lib/orchestrator/engine';
import { registerPipeline, type PipelineDefinition } from '../../lib/orchestrator/pipeline';
import { jobRunKind } from '../../lib/orchestrator/job-run-kind';
import { dismissJob, runWatchdog } from '../../lib/orchestrator/recovery';

let stage: EngineStage;
let workers: { stop(): Promise<void> } | null = null;

/** A follow-up pass (read the rest) on the linear test pipeline: it starts from complete and ends complete. */
const passPipeline: PipelineDefinition = { ...linearPipeline, name: 'test-log-pass', followUp: true };

beforeAll(async () => {
  // The deployed defaults: JOB_LOG_BUFFER_LINES and JOB_LOG_TTL_HOURS are not overridden.
  stage = await useEngineStage({}, 'engine-job-log');
  registerTestPipelines();
  registerPipeline(passPipeline);
}, 120_000);

afterEach(async () => {
  await workers?.stop();
  workers = null;
});

const newJob = scriptedJob;

const settled = (jobId: string, statuses: string[], timeout = 40_000) =>
  eventually(async () => {
    const job = await getJob(jobId);
    return job && statuses.includes(job.status) && job.stage_state === 'done' ? job : null;
  }, timeout);

/** The archive, once it holds a line that `last` matches. */
const archivedUpTo = (jobId: string, last: RegExp) =>
  eventually(async () => {
    const lines = await readArchivedLog(jobId);
    return lines?.some((l) => last.test(l.message)) ? lines : null;
  });

async function liveRows(jobId: string) {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `JOBLOG#${jobId}` },
    }),
  );
  return Items;
}

describe('the live log with the deployed defaults', () => {
  it('runs on 1000 lines and 24 hours unless told otherwise', () => {
    expect(settings().JOB_LOG_BUFFER_LINES).toBe(1000);
    expect(settings().JOB_LOG_TTL_HOURS).toBe(24);
  });

  it('gives every live row a 24-hour expiry on the attribute the table expires rows by', async () => {
    const { TimeToLiveDescription } = await db().send(new DescribeTimeToLiveCommand({ TableName: tableName() }));
    expect(TimeToLiveDescription?.AttributeName).toBe('expires_at');
    const job = await newJob({});
    const before = Math.floor(Date.now() / 1000);
    await appendLog(job.id, 'info', 'first');
    await appendLog(job.id, 'warn', 'second');
    const after = Math.ceil(Date.now() / 1000);
    const rows = await liveRows(job.id);
    expect(rows.map((r) => r.sk).sort()).toEqual(['LINE#000001', 'LINE#000002', 'SEQ']);
    for (const row of rows) {
      expect(row.expires_at).toBeGreaterThanOrEqual(before + 24 * 3600);
      expect(row.expires_at).toBeLessThanOrEqual(after + 24 * 3600);
    }
  });

  it('keeps exactly the last 1000 lines, oldest first, and archives those', async () => {
    const job = await newJob({});
    const limit = pLimit(16);
    await Promise.all(Array.from({ length: 1005 }, (_, i) => limit(() => appendLog(job.id, 'info', `line ${i + 1}`))));
    const live = await readLiveLog(job.id);
    expect(live).toHaveLength(1000);
    expect(live.map((l) => l.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 6));
    expect((await liveRows(job.id)).filter((r) => String(r.sk).startsWith('LINE#'))).toHaveLength(1000);
    // Each line sits in its ring slot, and says which line it is.
    for (const line of live) expect(line.message).toMatch(/^line \d+$/);
    // The whole ring goes to the archive, as a terminal path copies it.
    expect(await archiveLog(job.id)).toBe(1000);
    expect((await readArchivedLog(job.id))?.map((l) => l.seq)).toEqual(live.map((l) => l.seq));
  }, 120_000);
});

describe('every terminal path archives the log', () => {
  it('a run that completes', async () => {
    workers = startInProcessWorkers(stage);
    const job = await newJob({ items: 2 });
    await startJob(job, linearPipeline);
    await settled(job.id, ['complete']);
    const lines = await archivedUpTo(job.id, /^Complete: 2 items/);
    expect(lines.map((l) => l.message)).toEqual((await readLiveLog(job.id)).map((l) => l.message));
  });

  it('a run that fails', async () => {
    workers = startInProcessWorkers(stage);
    const job = await newJob({ fail: { stage: 'b', message: 'The analysis failed for good.' } });
    await startJob(job, linearPipeline);
    await settled(job.id, ['error']);
    const lines = await archivedUpTo(job.id, /The analysis failed for good/);
    expect(lines.at(-1)).toMatchObject({ level: 'error' });
  });

  it('a follow-up pass that completes, and one that fails', async () => {
    workers = startInProcessWorkers(stage);
    const passing = await newJob({ items: 1 }, { status: 'complete' });
    expect(await startJob(passing, passPipeline)).not.toBeNull();
    await settled(passing.id, ['complete']);
    await archivedUpTo(passing.id, /^Pass complete/);

    const failing = await newJob(
      { fail: { stage: 'c', message: 'The pass found nothing to read.' } },
      { status: 'complete' },
    );
    expect(await startJob(failing, passPipeline)).not.toBeNull();
    const back = await settled(failing.id, ['complete']);
    expect(back.last_pass_error).toBe('The pass found nothing to read.');
    await archivedUpTo(failing.id, /The pass found nothing to read/);
  });

  it("a claim import's reader, which ends complete once its read is handed over", async () => {
    workers = startInProcessWorkers(stage);
    const reader = await newJob(
      { items: 3 },
      { status: 'importing_pdf', source_type: 'photo', reads_batch_id: randomUUID() },
    );
    await startJob(reader, preparingPipeline);
    await settled(reader.id, ['complete']);
    await archivedUpTo(reader.id, /^Read finished: 3 photo/);
  });

  it("an administrator's dismissal", async () => {
    const job = await newJob({});
    await updateJob(job.id, ['job', 'run'], {
      set: {
        status: 'analyzing',
        pipeline: linearPipeline.name,
        run_id: randomUUID(),
        stage_name: 'b',
        stage_state: 'running',
      },
    });
    await dismissJob((await getJob(job.id)) as Job);
    await archivedUpTo(job.id, /Stopped by an administrator/);
  });

  it("the watchdog's day limit", async () => {
    const job = await newJob({});
    await makeStuckForADay(job.id);
    await runWatchdog(new Date());
    expect(await getJob(job.id)).toMatchObject({ status: 'error', error_message: jobRunKind.messages.stuckForADay });
    await archivedUpTo(job.id, /stuck for more than 24 hours/);
  });
});
