/**
 * The records a video or audio run keeps between its stages (its plan, the
 * frames each extraction unit wrote, the analysis chunks, one answer per
 * chunk), in the job's partition under a sort key that starts with the
 * record kind and the run id. Keyed by run, so a restarted run never reads
 * what an interrupted one left behind, and nothing needs cleaning: the purge
 * of a job removes its whole partition.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { putRows } from '../db/batch';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { partitionRows, queryPartition } from '../db/query';

/** A record's place: `<KIND>#<run_id>` plus, for one of many, `#<position>` zero-padded so records list in order. */
export function runRecordKey(kind: string, runId: string, position?: number): string {
  return position === undefined ? `${kind}#${runId}` : `${kind}#${runId}#${String(position).padStart(6, '0')}`;
}

const rowKey = (jobId: string, sk: string) => ({ pk: `JOB#${jobId}`, sk });

/** Writes (or replaces) one record. */
export async function putRunRecord(jobId: string, sk: string, entity: string, value: object): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...rowKey(jobId, sk), entity, ...value } }));
}

/** Writes a record only when there is none yet: a repeated unit keeps the first answer. */
async function putRunRecordOnce(jobId: string, sk: string, entity: string, value: object): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...rowKey(jobId, sk), entity, ...value },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return false;
  }
}

/** Writes many records (batched, unprocessed rows retried). */
async function putRunRecords(jobId: string, entity: string, records: { sk: string; value: object }[]) {
  await putRows(records.map((r) => ({ ...rowKey(jobId, r.sk), entity, ...r.value })));
}

export async function getRunRecord<T>(jobId: string, sk: string): Promise<T | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: rowKey(jobId, sk), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as T) : null;
}

/** The records of one kind of a run in position order, read one at a time: a caller that stops early reads no more. */
export async function* eachRunRecord<T>(jobId: string, kind: string, runId: string): AsyncGenerator<T> {
  const rows = partitionRows(`JOB#${jobId}`, {
    skPrefix: `${runRecordKey(kind, runId)}#`,
    consistent: true,
    pageSize: 1,
  });
  for await (const row of rows) yield withoutKeys(row) as T;
}

/** Every record of one kind of a run (`runRecordKey(kind, runId)` plus a position), in position order. */
export function listRunRecords<T>(jobId: string, kind: string, runId: string): Promise<T[]> {
  return queryPartition<T>(`JOB#${jobId}`, `${runRecordKey(kind, runId)}#`, { consistent: true });
}

/**
 * The records of a run analysed chunk by chunk (video and audio): its chunks,
 * then the list of their indexes (written last, so a reader that finds the
 * list finds every chunk), and one answer per chunk, written once. `kind`
 * prefixes the sort keys (VIDEO → VIDEOCHUNK#…, VIDEOCHUNKS#…, VIDEORESULT#…),
 * `entity` names the rows (Video → VideoChunk, VideoChunkList, VideoChunkResult).
 */
export function chunkRecords<C extends { index: number }, R extends { chunk_index: number }>(
  kind: string,
  entity: string,
) {
  const chunks = `${kind}CHUNK`;
  const list = `${kind}CHUNKS`;
  const results = `${kind}RESULT`;
  return {
    async putChunks(jobId: string, runId: string, planned: C[]): Promise<void> {
      await putRunRecords(
        jobId,
        `${entity}Chunk`,
        planned.map((chunk) => ({ sk: runRecordKey(chunks, runId, chunk.index), value: chunk })),
      );
      await putRunRecord(jobId, runRecordKey(list, runId), `${entity}ChunkList`, {
        indexes: planned.map((c) => c.index),
      });
    },
    /** The chunks' indexes in order: fan-out unit i analyses the chunk at position i. */
    async chunkIndexes(jobId: string, runId: string): Promise<number[]> {
      const record = await getRunRecord<{ indexes: number[] }>(jobId, runRecordKey(list, runId));
      if (!record) throw new Error(`no chunks for run ${runId}`);
      return record.indexes;
    },
    async getChunk(jobId: string, runId: string, index: number): Promise<C> {
      const chunk = await getRunRecord<C>(jobId, runRecordKey(chunks, runId, index));
      if (!chunk) throw new Error(`chunk ${index} is outside the run's plan`);
      return chunk;
    },
    listChunks: (jobId: string, runId: string) => listRunRecords<C>(jobId, chunks, runId),
    putResult: (jobId: string, runId: string, result: R) =>
      putRunRecordOnce(jobId, runRecordKey(results, runId, result.chunk_index), `${entity}ChunkResult`, result),
    getResult: (jobId: string, runId: string, index: number) =>
      getRunRecord<R>(jobId, runRecordKey(results, runId, index)),
    listResults: (jobId: string, runId: string) => listRunRecords<R>(jobId, results, runId),
  };
}
