/**
 * ProcessingJob records (spec: Resources > ProcessingJob; States and
 * transitions). Every status change is a conditional write on the expected
 * current status, so a retried or duplicated request can never move a job
 * backwards or past a state it is not in.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys, type RowKey } from '../db/batch';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { setClauses } from '../db/update';
import { queryAll } from '../db/query';
import type { Job } from './job-record-rules';
import { isRunning, type JobStatus } from './job-rules';
import { recordJobCreated } from '../stats/service';

export type { BranchRun, Job, OwedRefund, PdfDocument, TruncatedGroup } from './job-record-rules';
export { newJobRecord } from './job-record-rules';

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
    gsi1pk: indexes.roomJobs(job.room_id).pk,
    gsi1sk: `${job.created_at}#${job.id}`,
    gsi2pk: indexes.teamJobs(job.team_id).pk,
    gsi2sk: `${job.created_at}#${job.id}`,
    // The admin lists' day bucket, from created_at: every write of the row carries it (lib/admin/job-page-rules.ts).
    jobspk: indexes.jobsOfDay(job.created_at.slice(0, 10)).pk,
    jobssk: `${job.created_at}#${job.id}`,
  };
}

/** A new job's row as stored, with its index attributes. */
export function jobRowOf(job: Job) {
  return {
    ...keys.job(job.id),
    entity: 'Job',
    ...jobIndexAttributes(job),
    ...(isRunning(job.status) ? activeIndex(job.id, job.updated_at) : {}),
    ...job,
  };
}

export async function putNewJob(job: Job): Promise<Job> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: jobRowOf(job), ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  // Only media jobs count: a contents-list reader or a capture runner is listed nowhere.
  if (!job.reads_batch_id) await recordJobCreated(job);
  return job;
}

/** Puts the job unless one with its id exists (a repeated request); returns the stored job either way. */
export async function putJobOnce(job: Job): Promise<Job> {
  try {
    return await putNewJob(job);
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
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
    new GetCommand({ TableName: tableName(), Key: keys.job(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as Job) : null;
}

/** The team's most recent jobs, newest first. */
export async function listTeamJobs(teamId: string, limit: number): Promise<Job[]> {
  const index = indexes.teamJobs(teamId);
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
  return queryAll<Job>(indexes.roomJobs(roomId), { ScanIndexForward: false });
}

export interface JobUpdate {
  /** Top-level fields, or nested paths such as 'stage_timings.extract'. */
  set?: Partial<Job> & Record<string, unknown>;
  /** Atomic increments. */
  add?: Partial<Record<keyof Job, number>>;
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
export async function updateJob(jobId: string, update: JobUpdate, now = new Date()): Promise<Job | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({ ...jobUpdateInput(jobId, update, now), ReturnValues: 'ALL_NEW' }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Job;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** The conditional UpdateItem input of a job update, also usable as one item of a transaction. */
export function jobUpdateInput(jobId: string, update: JobUpdate, now = new Date()) {
  const at = now.toISOString();
  const set = setClauses({ ...(update.set ?? {}), updated_at: at });
  const names: Record<string, string> = { ...set.names, ...(update.names ?? {}) };
  const values: Record<string, unknown> = { ...set.values, ...(update.values ?? {}) };
  const sets = [set.expression];
  const removes: string[] = [];
  const adds: string[] = [];
  for (const [k, v] of Object.entries(update.add ?? {})) {
    names[`#${k}`] = k;
    values[`:add_${k}`] = v;
    adds.push(`#${k} :add_${k}`);
  }
  const status = update.set?.status;
  if (status) {
    if (isRunning(status)) {
      Object.assign(values, { ':activepk': 'ACTIVE', ':activesk': `${at}#${jobId}` });
      sets.push('activepk = :activepk', 'activesk = :activesk');
    } else {
      removes.push('activepk', 'activesk');
    }
  } else if (update.set?.heartbeat_at) {
    // A heartbeat moves the job along the watchdog's index. A sparse index only
    // lists rows that have both activepk and activesk, so outside processing
    // states this sort key alone lists nothing.
    values[':activesk'] = `${update.set.heartbeat_at}#${jobId}`;
    sets.push('activesk = :activesk');
  }
  const conditions = ['attribute_exists(pk)'];
  if (update.expectStatus) {
    const statusValues = update.expectStatus.map((s, n) => {
      values[`:es${n}`] = s;
      return `:es${n}`;
    });
    names['#status'] = 'status';
    conditions.push(`#status IN (${statusValues.join(', ')})`);
  }
  if (update.condition) conditions.push(`(${update.condition})`);
  const expression = [
    `SET ${sets.join(', ')}`,
    adds.length ? `ADD ${adds.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    TableName: tableName(),
    Key: keys.job(jobId),
    UpdateExpression: expression,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
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

/**
 * Deletes a job and everything keyed to it. The job row goes first, in a
 * write conditional on its status, so a job that started meanwhile is kept;
 * returns false then.
 */
export async function deleteJobRows(job: Pick<Job, 'id'>, guard: { expectStatus: JobStatus }): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.job(job.id),
        ConditionExpression:
          '#status = :status AND (attribute_not_exists(billing_charged) OR billing_charged = :false)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': guard.expectStatus, ':false': false },
      }),
    );
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
  await deleteKeys(await jobRowKeys(job.id));
  return true;
}
