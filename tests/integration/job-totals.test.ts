/**
 * The media job totals kept as jobs are written (lib/jobs/job-totals-rules.ts),
 * against the embedded DynamoDB on a table of its own: every path that adds
 * to them or takes from them, repeated and at once, leaves them exactly the
 * jobs there are.
 *
 * Covered: a create counted once however often it is repeated, and never for
 * a contents-list reader; creates at once; a job's first AI call counted once
 * among many at once, not for a call with no attempt nor for a reader; a
 * cancel and a purge taking a job away once, with what it was counted in,
 * and nothing when their condition fails; the day-bucket migration counting
 * the rows written before the totals once, two runs at once.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { migrateJobIndexToDays } from '../../lib/admin/migration-service';
import { resetSettings } from '../../lib/config';
import { db, tableName } from '../../lib/db/client';
import {
  addJobAiSpend,
  deleteJobRows,
  getJob,
  jobRowOf,
  purgeJobRows,
  putJobOnce,
  putNewJob,
} from '../../lib/jobs/job-store';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import type { JobStatus } from '../../lib/jobs/job-rules';
import type { JobTotals } from '../../lib/jobs/job-totals-rules';
import { readJobTotals } from '../../lib/jobs/job-totals-store';
import { useOwnStage } from '../support/stage';

jest.setTimeout(60_000);

const TEAM = randomUUID();

function media(type: Job['source_type'] = 'photo', status: JobStatus = 'awaiting_confirmation', at = new Date()): Job {
  return newJobRecord(
    {
      room: { id: randomUUID(), claim_id: randomUUID(), team_id: TEAM },
      userId: randomUUID(),
      sourceType: type,
      status,
    },
    at,
  );
}

const spend = (calls: number) => ({
  ai_api_calls: calls,
  ai_input_tokens: 10,
  ai_output_tokens: 5,
  ai_cost_usd: 0.001,
});

/** How each total moved while `work` ran. */
async function change(work: () => Promise<unknown>): Promise<Partial<JobTotals>> {
  const before = await readJobTotals();
  await work();
  const after = await readJobTotals();
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, value]) => [name, value - before[name as keyof JobTotals]])
      .filter(([, moved]) => moved !== 0),
  );
}

beforeAll(async () => {
  await useOwnStage('job-totals-kept');
  resetSettings();
});

afterAll(() => resetSettings());

describe('a job’s create', () => {
  it('counts a media job once, in its type, however often it is put', async () => {
    const job = media('video');
    expect(
      await change(async () => {
        await putJobOnce(job);
        await putJobOnce(job);
        await Promise.all([putJobOnce(job), putJobOnce(job)]);
      }),
    ).toEqual({ jobs: 1, jobs__video: 1 });
    expect(await getJob(job.id)).toMatchObject({ in_job_totals: true });
    await expect(putNewJob(job)).rejects.toThrow();
  });

  it('counts creates at once, every one, though they meet on the shards', async () => {
    const jobs = Array.from({ length: 40 }, (_, i) => media(i % 2 ? 'audio' : 'photo'));
    expect(await change(() => Promise.all(jobs.map((job) => putNewJob(job))))).toEqual({
      jobs: 40,
      jobs__audio: 20,
      jobs__photo: 20,
    });
  });

  it('does not count a contents-list reader, which no list shows', async () => {
    const reader = { ...media('photo', 'importing_pdf'), reads_batch_id: randomUUID() };
    expect(await change(() => putNewJob(reader))).toEqual({});
    expect(await change(() => addJobAiSpend(reader.id, spend(2)))).toEqual({});
    expect((await getJob(reader.id))?.ai_api_calls).toBe(2);
  });
});

describe('a job’s AI calls', () => {
  it('count the job once among the jobs with AI calls, the first of many at once', async () => {
    const job = await putNewJob(media('audio', 'analyzing'));
    expect(await change(() => Promise.all(Array.from({ length: 12 }, () => addJobAiSpend(job.id, spend(1)))))).toEqual({
      jobs_with_ai_calls: 1,
    });
    expect(await getJob(job.id)).toMatchObject({ ai_api_calls: 12, ai_input_tokens: 120, with_ai_calls_counted: true });
    expect(await change(() => addJobAiSpend(job.id, spend(3)))).toEqual({});
    expect((await getJob(job.id))?.ai_api_calls).toBe(15);
  });

  it('do not count a job for spend without an attempt, nor for a job that is gone', async () => {
    const job = await putNewJob(media());
    expect(await change(() => addJobAiSpend(job.id, spend(0)))).toEqual({});
    expect(await getJob(job.id)).toMatchObject({ ai_api_calls: 0, ai_input_tokens: 10 });
    expect(await change(async () => expect(await addJobAiSpend(randomUUID(), spend(1))).toBeNull())).toEqual({});
  });
});

describe('a job’s delete', () => {
  it('takes a cancelled job away with what it was counted in, once', async () => {
    const job = await putNewJob(media('video'));
    await addJobAiSpend(job.id, spend(1));
    expect(
      await change(async () => {
        expect(await deleteJobRows(job, { expectStatus: 'awaiting_confirmation' })).toBe(true);
        expect(await deleteJobRows(job, { expectStatus: 'awaiting_confirmation' })).toBe(false);
      }),
    ).toEqual({ jobs: -1, jobs__video: -1, jobs_with_ai_calls: -1 });
    expect(await getJob(job.id)).toBeNull();
  });

  it('takes nothing when the job is not in the state the cancel expects', async () => {
    const job = await putNewJob(media('photo', 'analyzing'));
    expect(
      await change(async () => {
        expect(await deleteJobRows(job, { expectStatus: 'awaiting_confirmation' })).toBe(false);
      }),
    ).toEqual({});
    expect(await getJob(job.id)).not.toBeNull();
  });

  it('takes a purged job away once, however often the purge is repeated or run at once', async () => {
    const job = await putNewJob(media('audio', 'complete'));
    await addJobAiSpend(job.id, spend(2));
    expect(await change(() => Promise.all([purgeJobRows(job.id), purgeJobRows(job.id), purgeJobRows(job.id)]))).toEqual(
      { jobs: -1, jobs__audio: -1, jobs_with_ai_calls: -1 },
    );
    expect(await change(() => purgeJobRows(job.id))).toEqual({});
  });
});

describe('the day-bucket migration', () => {
  it('counts the rows written before the totals once, two runs at once', async () => {
    const legacy = [media('video', 'complete'), media('photo', 'error'), media('photo', 'complete')];
    legacy[0].ai_api_calls = 4;
    // As rows were written before the day buckets and the totals: the single all-jobs partition, no flags.
    for (const job of legacy)
      await db().send(new PutCommand({ TableName: tableName(), Item: { ...jobRowOf(job), jobspk: 'JOBS' } }));
    let moved = 0;
    expect(
      await change(async () => {
        const reports = await Promise.all([migrateJobIndexToDays(), migrateJobIndexToDays()]);
        moved = reports.reduce((sum, report) => sum + report.moved, 0);
      }),
    ).toEqual({ jobs: 3, jobs__video: 1, jobs__photo: 2, jobs_with_ai_calls: 1 });
    expect(moved).toBe(3);
    expect(await change(() => migrateJobIndexToDays())).toEqual({});
    for (const job of legacy) expect(await getJob(job.id)).toMatchObject({ in_job_totals: true });
  });
});
