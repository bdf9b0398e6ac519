/**
 * What an audio run keeps between its stages, keyed by run
 * (../run-record-store.ts): the transcript's chunks and one answer per chunk.
 */
import type { AudioItem } from './answer-schemas';
import type { AudioChunk } from './chunk-rules';
import {
  getRunRecord,
  listRunRecords,
  putRunRecord,
  putRunRecordOnce,
  putRunRecords,
  runRecordKey,
} from '../run-record-store';

export interface AudioChunkResult {
  chunk_index: number;
  outcome: 'ok' | 'failed';
  items: AudioItem[];
  error: string | null;
}

const CHUNKS = 'AUDIOCHUNK';
const CHUNK_LIST = 'AUDIOCHUNKS';
const RESULTS = 'AUDIORESULT';

/**
 * The run's chunks (only those with words; their indexes are places on the
 * time line), then the list of those indexes, written last.
 */
export async function putAudioChunks(jobId: string, runId: string, chunks: AudioChunk[]): Promise<void> {
  await putRunRecords(
    jobId,
    'AudioChunk',
    chunks.map((chunk) => ({ sk: runRecordKey(CHUNKS, runId, chunk.index), value: chunk })),
  );
  await putRunRecord(jobId, runRecordKey(CHUNK_LIST, runId), 'AudioChunkList', {
    indexes: chunks.map((c) => c.index),
  });
}

/** Fan-out unit i analyses the chunk at position i of this list. */
export async function audioChunkIndexes(jobId: string, runId: string): Promise<number[]> {
  const record = await getRunRecord<{ indexes: number[] }>(jobId, runRecordKey(CHUNK_LIST, runId));
  if (!record) throw new Error(`no chunks for run ${runId}`);
  return record.indexes;
}

export async function getAudioChunk(jobId: string, runId: string, index: number): Promise<AudioChunk> {
  const chunk = await getRunRecord<AudioChunk>(jobId, runRecordKey(CHUNKS, runId, index));
  if (!chunk) throw new Error(`chunk ${index} is outside the run's plan`);
  return chunk;
}

export const listAudioChunks = (jobId: string, runId: string) => listRunRecords<AudioChunk>(jobId, CHUNKS, runId);

export const putAudioResult = (jobId: string, runId: string, result: AudioChunkResult) =>
  putRunRecordOnce(jobId, runRecordKey(RESULTS, runId, result.chunk_index), 'AudioChunkResult', result);

export const getAudioResult = (jobId: string, runId: string, index: number) =>
  getRunRecord<AudioChunkResult>(jobId, runRecordKey(RESULTS, runId, index));

export const listAudioResults = (jobId: string, runId: string) =>
  listRunRecords<AudioChunkResult>(jobId, RESULTS, runId);
