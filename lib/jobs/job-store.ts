/**
 * ProcessingJob records (spec: Resources > ProcessingJob; States and
 * transitions). Every status change is a conditional write on the expected
 * current status, so a retried or duplicated request can never move a job
 * backwards or past a state it is not in.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys, type RowKey } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionCancellation, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { jobIndexes, jobKeys } from './keys';
import { type RowUpdate, rowUpdateInput, setClauses, updateRowReturningNew } from '../db/update';
import { queryAll } from '../db/query';
import type { Job, JobSlice, SliceFields } from './job-record-rules';
import { isRunning, type JobStatus } from './job-rules';
import { isTotalledJob, type JobTotalsFlags, totalsOf } from './job-totals-rules';
import { totalsChange, writeWithTotals } from './job-totals-store';
import { recordJobCreated } from '../stats/service';

/** Index attributes a job row carries; `active*` only while the engine may run it (the watchdog's sparse index). */
function jobIndexAttributes(
  job: Pick<
    Job,
    'id' | 'room_id' | 'team_id' | 'created_at' | 'status' | 'heartbeat_at' | 'updated_at' | 'reads_batch_id'
  >,
) {
  // A contents-list import's reader belongs to no room and is not one of the team's jobs: its batch shows it.
  if (job.reads_batch_id) return {};
  return {
    gsi1pk: jobIndexes.roomJobs(job.room_id).pk,
    gsi1sk: `${job.created_at}#${job.id}`,
    gsi2pk: jobIndexes.teamJobs(job.team_id).pk,
    gsi2sk: `${job.created_at}#${job.id}`,
    // The admin lists' day bucket, from created_at: every write of the row carries it (lib/admin/job-page-rules.ts).
    jobspk: jobIndexes.jobsOfDay(job.created_at.slice(0, 10)).pk,
    jobssk: `${job.created_at}#${job.id}`,
  };
}

/** A new job's row as stored, with its index attributes. */
export function jobRowOf(job: Job) {
  return {
    ...jobKeys.job(job.id),
    entity: 'Job',
    ...jobIndexAttributes(job),
    ...(isRunning(job.status) ? activeIndex(job.id, job.updated_at) : {}),
    ...job,
  };
}

/**
 * Puts a new job; fails with a condition error when one with its id exists. A
 * media job is added to the job totals in the same transaction (its row says
 * so: in_job_totals), so a repeated put never counts it twice.
 */
export async function putNewJob(job: Job): Promise<Job> {
  const put = { TableName: tableName(), Item: jobRowOf(job), ConditionExpression: 'attribute_not_exists(pk)' };
  if (isTotalledJob(job)) {
    await writeWithTotals([
      { Put: { ...put, Item: { ...put.Item, in_job_totals: true } } },
      totalsChange(job.id, totalsOf({ ...job, in_job_totals: true })),
    ]);
  } else {
    await db().send(new PutCommand(put));
  }
  // Only media jobs count: a contents-list reader or a capture runner is listed nowhere.
  if (isTotalledJob(job)) await recordJobCreated(job);
  return job;
}

/** Puts the job unless one with its id exists (a repeated request); returns the stored job either way. */
export async function putJobOnce(job: Job): Promise<Job> {
  try {
    return await putNewJob(job);
  } catch (err) {
    if (!isConditionalCheckFailed(err) && !isConditionCancellation(err)) throw err;
    const existing = await getJob(job.id);
    if (!existing) throw err;
    return existing;
  }
}

function activeIndex(jobId: string, at: string) {
  return { activepk: 'ACTIVE', activesk: `${at}#${jobId}` };
}

export async function getJob(id: string, consistent = true): Promise<Job | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: jobKeys.job(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as Job) : null;
}

/** The team's most recent jobs, newest first. */
export async function listTeamJobs(teamId: string, limit: number): Promise<Job[]> {
  const index = jobIndexes.teamJobs(teamId);
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.index,
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': index.pk },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (Items ?? []).map((i) => withoutKeys(i) as unknown as Job);
}

export async function listRoomJobs(roomId: string): Promise<Job[]> {
  return queryAll<Job>(jobIndexes.roomJobs(roomId), { ScanIndexForward: false });
}

/** Keys of the table's indexes a job row may be put on or taken off (beside its fields). */
type IndexKey = 'activepk' | 'activesk' | 'archpk' | 'archsk';

/** One conditional update of a job by a writer of the slices `S` (job-record-rules.ts): it sets only their fields. */
export interface JobUpdate<S extends JobSlice = JobSlice> {
  /** Fields of its slices, nested paths of them (such as 'stage_timings.extract'), or index keys. */
  set?: Partial<SliceFields<S>> & { [path: `${string}.${string}`]: unknown } & Partial<Record<IndexKey, unknown>>;
  /** Atomic increments. */
  add?: Partial<Record<keyof SliceFields<S>, number>>;
  /** The job must be in one of these statuses for the write to happen. */
  expectStatus?: readonly JobStatus[];
  /** Extra condition, e.g. 'billing_refunded = :false'; values go in `values`, name placeholders in `names`. */
  condition?: string;
  values?: Record<string, unknown>;
  names?: Record<string, string>;
}

/**
 * One conditional update of a job; returns the job after it, or null when the
 * condition did not hold (wrong status, already done, gone). Keeps the
 * watchdog's sparse index in step with the status.
 */
export async function updateJob<S extends JobSlice>(
  jobId: string,
  slices: readonly S[],
  update: JobUpdate<NoInfer<S>>,
  now = new Date(),
): Promise<Job | null> {
  const row = await updateRowReturningNew(jobUpdateInput(jobId, slices, update, now));
  return row && (withoutKeys(row) as unknown as Job);
}

/** The conditional UpdateItem input of a job update, also usable as one item of a transaction. */
export function jobUpdateInput<S extends JobSlice>(
  jobId: string,
  _slices: readonly S[],
  update: JobUpdate<NoInfer<S>>,
  now = new Date(),
) {
  // The watchdog's sparse index lists jobs in the processing states.
  return rowUpdateInput(jobKeys.job(jobId), update as RowUpdate, now, {
    pk: jobIndexes.activeJobs().pk,
    id: jobId,
    listed: isRunning,
  });
}

/** A job's rows: the job, its staged photos and run records (its partition), its live log and archive, its fan-out units, its AI request records. */
export async function jobRowKeys(jobId: string): Promise<RowKey[]> {
  const partitions = await Promise.all(
    [`JOB#${jobId}`, `JOBLOG#${jobId}`, `JOBLOGARCHIVE#${jobId}`, `JOBUNIT#${jobId}`, `AIREQ#${jobId}`].map(
      partitionKeys,
    ),
  );
  return partitions.flat();
}

/** The job with the flags of the totals it is counted in. */
const getCountedJob = (jobId: string) => getJob(jobId) as Promise<(Job & JobTotalsFlags) | null>;

type RowGuard = { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };

/** The condition that the row's totals flags are still as read (they are only ever set, never cleared). */
function flagsAsRead(row: JobTotalsFlags): string {
  const state = (name: keyof JobTotalsFlags) =>
    row[name] ? `attribute_exists(${name})` : `attribute_not_exists(${name})`;
  return `${state('in_job_totals')} AND ${state('with_ai_calls_counted')}`;
}

/**
 * Deletes a job's own row when `guard` holds (any time when none), taking it
 * out of the job totals in the same transaction; false when the guard did not
 * hold or the row is gone. The row is read first for what it counts in; a
 * first AI call that marked it meanwhile makes the write try again.
 */
async function deleteJobRow(jobId: string, guard?: RowGuard): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await getCountedJob(jobId);
    if (!row) return false;
    const del = {
      TableName: tableName(),
      Key: jobKeys.job(jobId),
      ConditionExpression: ['attribute_exists(pk)', flagsAsRead(row), guard ? `(${guard.expression})` : '']
        .filter(Boolean)
        .join(' AND '),
      ...(guard?.names ? { ExpressionAttributeNames: guard.names } : {}),
      ...(guard?.values ? { ExpressionAttributeValues: guard.values } : {}),
    };
    const counted = totalsOf(row);
    try {
      if (counted.jobs) await writeWithTotals([{ Delete: del }, totalsChange(jobId, counted, -1)]);
      else await db().send(new DeleteCommand(del));
      return true;
    } catch (err) {
      if (!isConditionalCheckFailed(err) && !isConditionCancellation(err)) throw err;
      // The guard, or flags set since the read: read again, and stop if the flags were not what changed.
      const now = await getCountedJob(jobId);
      if (!now || (now.in_job_totals === row.in_job_totals && now.with_ai_calls_counted === row.with_ai_calls_counted))
        return false;
    }
  }
  return false;
}

/**
 * Deletes a job and everything keyed to it. The job row goes first, in a
 * write conditional on its status (and on `guard.condition`, e.g. a cancel's
 * billingClosed), so a job that started or was charged meanwhile is kept;
 * returns false then.
 */
export async function deleteJobRows(
  job: Pick<Job, 'id'>,
  guard: { expectStatus: JobStatus; condition?: { condition: string; values: Record<string, unknown> } },
): Promise<boolean> {
  const deleted = await deleteJobRow(job.id, {
    expression: ['#status = :status', guard.condition ? `(${guard.condition.condition})` : '']
      .filter(Boolean)
      .join(' AND '),
    names: { '#status': 'status' },
    values: { ':status': guard.expectStatus, ...(guard.condition?.values ?? {}) },
  });
  if (!deleted) return false;
  await deleteKeys(await jobRowKeys(job.id));
  return true;
}

/**
 * Deletes a job and everything keyed to it whatever its state (a purged room
 * or claim), the job row first and out of the totals with it. Safe to repeat:
 * a job already gone is not taken from the totals again.
 */
export async function purgeJobRows(jobId: string): Promise<void> {
  await deleteJobRow(jobId);
  await deleteKeys(await jobRowKeys(jobId));
}

/**
 * Adds an AI call's spend to its job; returns the job after it (null: no such
 * job). A media job's first call (calls > 0) also counts it in
 * jobs_with_ai_calls, in one transaction with its with_ai_calls_counted flag;
 * a later call finds the flag set and adds its spend alone.
 */
export async function addJobAiSpend(
  jobId: string,
  add: Pick<Job, 'ai_api_calls' | 'ai_input_tokens' | 'ai_output_tokens' | 'ai_cost_usd'>,
): Promise<Job | null> {
  if (add.ai_api_calls > 0 && !settledAiCount.has(jobId)) {
    const first = jobUpdateInput(jobId, ['ai'], {
      add,
      set: { with_ai_calls_counted: true },
      condition: 'attribute_exists(in_job_totals) AND attribute_not_exists(with_ai_calls_counted)',
    });
    try {
      await writeWithTotals([{ Update: first }, totalsChange(jobId, { jobs_with_ai_calls: 1 })]);
      rememberSettled(jobId);
      return getJob(jobId);
    } catch (err) {
      // Counted already, not a media job, or gone: the spend alone, below.
      if (!isConditionCancellation(err)) throw err;
      rememberSettled(jobId);
    }
  }
  return updateJob(jobId, ['ai'], { add });
}

/**
 * Jobs this process has seen counted among the jobs with AI calls (or that
 * never will be: not a media job, or gone), so the many later calls of a job
 * skip the transaction that would fail on its flag. A job's calls are made by
 * its workers one after another, often in the same process.
 */
const settledAiCount = new Set<string>();
const SETTLED_REMEMBERED = 10_000;
function rememberSettled(jobId: string) {
  if (settledAiCount.size >= SETTLED_REMEMBERED) settledAiCount.clear();
  settledAiCount.add(jobId);
}

/**
 * Counts a media job written before the job totals (its row has no
 * in_job_totals) and sets `set` on its row, in one transaction conditional on
 * the row being uncounted, its AI calls as read and `guard`: two runs at once
 * count it once. Answers false when there was nothing to do (counted already,
 * not a media job, gone, or the guard did not hold).
 */
export async function countJobInTotals(jobId: string, set: Record<string, string>, guard: RowGuard): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await getCountedJob(jobId);
    if (!row || row.in_job_totals || !isTotalledJob(row)) return false;
    const calls = Number(row.ai_api_calls ?? 0);
    const flags: JobTotalsFlags = { in_job_totals: true, ...(calls > 0 ? { with_ai_calls_counted: true } : {}) };
    const fields = setClauses({ ...set, ...flags });
    try {
      await writeWithTotals([
        {
          Update: {
            TableName: tableName(),
            Key: jobKeys.job(jobId),
            UpdateExpression: `SET ${fields.expression}`,
            ConditionExpression: `attribute_not_exists(in_job_totals) AND ${
              calls > 0 ? '#calls = :calls' : '(attribute_not_exists(#calls) OR #calls = :calls)'
            } AND (${guard.expression})`,
            ExpressionAttributeNames: { ...fields.names, ...guard.names, '#calls': 'ai_api_calls' },
            ExpressionAttributeValues: { ...fields.values, ...guard.values, ':calls': calls },
          },
        },
        totalsChange(jobId, totalsOf({ ...row, ...flags })),
      ]);
      return true;
    } catch (err) {
      if (!isConditionCancellation(err)) throw err;
      // Counted meanwhile, the guard, or a new AI call: only the last is worth another try.
      const now = await getCountedJob(jobId);
      if (!now || now.in_job_totals || Number(now.ai_api_calls ?? 0) === calls) return false;
    }
  }
  return false;
}
