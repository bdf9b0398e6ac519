/**
 * The example pipeline's records, in one partition per job: the source text,
 * the run's chunks, one count per chunk and the total. Chunks and counts are
 * keyed by run, so a restarted run never reads what an interrupted run wrote;
 * the total is not, so clearPartialResults removes it.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../../../lib/db/client';
import { queryPartition } from '../../../lib/db/query';
import type { Job } from '../../../lib/jobs/job-record-rules';

type Run = Pick<Job, 'id' | 'run_id'>;

const pk = (jobId: string) => `EXAMPLE#${jobId}`;
const countPrefix = (job: Run) => `COUNT#${job.run_id}#`;

async function getRow(jobId: string, sk: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: { pk: pk(jobId), sk }, ConsistentRead: true }),
  );
  return Item;
}

/** The text to count (what an upload would have stored before the job is processed). */
export async function putSource(jobId: string, text: string): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { pk: pk(jobId), sk: 'SOURCE', text } }));
}

export async function getSource(jobId: string): Promise<string | null> {
  return ((await getRow(jobId, 'SOURCE'))?.text as string | undefined) ?? null;
}

export async function putChunks(job: Run, chunks: string[]): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { pk: pk(job.id), sk: `CHUNKS#${job.run_id}`, chunks } }),
  );
}

export async function getChunks(job: Run): Promise<string[]> {
  const row = await getRow(job.id, `CHUNKS#${job.run_id}`);
  if (!row) throw new Error(`no chunks for run ${job.run_id}`);
  return row.chunks as string[];
}

/** Records a chunk's count once: a unit that runs again keeps the first. */
export async function putCount(job: Run, index: number, words: number): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { pk: pk(job.id), sk: `${countPrefix(job)}${String(index).padStart(6, '0')}`, words },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** The counts recorded by the run's units (a unit that gave up recorded none). */
export async function listCounts(job: Run): Promise<number[]> {
  const rows = await queryPartition<{ words: number }>(pk(job.id), countPrefix(job), { consistent: true });
  return rows.map((r) => r.words);
}

export async function putTotal(jobId: string, words: number): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { pk: pk(jobId), sk: 'TOTAL', words } }));
}

export async function getTotal(jobId: string): Promise<number | null> {
  return ((await getRow(jobId, 'TOTAL'))?.words as number | undefined) ?? null;
}

export async function deleteTotal(jobId: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: pk(jobId), sk: 'TOTAL' } }));
}
