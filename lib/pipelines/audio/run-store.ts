/**
 * What an audio run keeps between its stages, keyed by run
 * (../run-record-store.ts): the transcript's chunks and one answer per chunk.
 */
import type { AudioItem } from './answer-schemas';
import type { AudioChunk } from './chunk-rules';
import { chunkRecords } from '../run-record-store';

export interface AudioChunkResult {
  chunk_index: number;
  outcome: 'ok' | 'failed';
  items: AudioItem[];
  error: string | null;
}

/** The run's chunks (only those with words; their indexes are places on the time line) and one answer per chunk. */
export const {
  putChunks: putAudioChunks,
  chunkIndexes: audioChunkIndexes,
  getChunk: getAudioChunk,
  listChunks: listAudioChunks,
  putResult: putAudioResult,
  getResult: getAudioResult,
  listResults: listAudioResults,
} = chunkRecords<AudioChunk, AudioChunkResult>('AUDIO', 'Audio');
