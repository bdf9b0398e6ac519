/**
 * What a video run keeps between its stages, keyed by run
 * (../run-record-store.ts): the plan fixed by the probe, the frames each
 * extraction unit wrote (with their sharpness and size), the analysis chunks
 * and one answer per chunk.
 */
import type { ByteRange } from '../../blob/range-rules';
import type { ExtractionUnit } from './extraction-rules';
import type { VideoItem } from './answer-schemas';
import type { TimedWord } from './chunk-rules';
import {
  chunkRecords,
  eachRunRecord,
  getRunRecord,
  listRunRecords,
  putRunRecord,
  runRecordKey,
} from '../run-record-store';

export interface VideoPlan {
  run_id: string;
  /** Seconds, as probed. */
  duration: number;
  /** Frames per second extracted (FRAME_EXTRACTION_FPS). */
  fps: number;
  long_edge: number;
  jpeg_quality: number;
  /** Long edge of the preview packed beside each frame, the copy the model is sent (VIDEO_FRAME_LONG_EDGE). */
  preview_long_edge: number;
  keyframes_only: boolean;
  /**
   * Whether extraction measures each frame's sharpness: only when frames will
   * share the chunks' time buckets (chunk-rules.ts framesShareBuckets).
   * Missing on plans written before it existed: measured.
   */
  measure_sharpness?: boolean;
  units: ExtractionUnit[];
}

/** Where a frame's JPEG and its preview are in the run's frame packs (./frame-packs.ts). */
export interface PackedFrame {
  pack: string;
  frame: ByteRange;
  preview: ByteRange;
}

/** One extracted frame, named by its time (lib/media/extraction-rules.ts frameName). */
export interface FrameRecord {
  name: string;
  packed: PackedFrame;
  time: number;
  /** Null when extraction did not measure it (see VideoPlan.measure_sharpness). */
  sharpness: number | null;
  width: number;
  height: number;
}

export interface PlannedChunk {
  index: number;
  start: number;
  end: number;
  /** The frames sent with the chunk's call, in time order. */
  frames: FrameRecord[];
  /** The narration words starting in the chunk. */
  words: TimedWord[];
}

/** A chunk's call: answered, failed (unbilled), or not made (nothing to look at or listen to). */
export interface ChunkResult {
  chunk_index: number;
  outcome: 'ok' | 'failed' | 'skipped';
  items: VideoItem[];
  error: string | null;
}

const PLAN = 'VIDEOPLAN';
const FRAMES = 'VIDEOFRAMES';

export const putVideoPlan = (jobId: string, plan: VideoPlan) =>
  putRunRecord(jobId, runRecordKey(PLAN, plan.run_id), 'VideoPlan', plan);

/** The run's plan, or null before its probe fixed one. */
export const findVideoPlan = (jobId: string, runId: string) =>
  getRunRecord<VideoPlan>(jobId, runRecordKey(PLAN, runId));

export async function getVideoPlan(jobId: string, runId: string): Promise<VideoPlan> {
  const plan = await findVideoPlan(jobId, runId);
  if (!plan) throw new Error(`no video plan for run ${runId}`);
  return plan;
}

/** A unit's frames; a unit run again replaces its own record (and its own frame objects). */
export const putUnitFrames = (jobId: string, runId: string, unit: number, frames: FrameRecord[]) =>
  putRunRecord(jobId, runRecordKey(FRAMES, runId, unit), 'VideoUnitFrames', { unit, frames });

/** One unit's frames, or null before the unit has finished. */
export async function getUnitFrames(jobId: string, runId: string, unit: number): Promise<FrameRecord[] | null> {
  const record = await getRunRecord<{ frames: FrameRecord[] }>(jobId, runRecordKey(FRAMES, runId, unit));
  return record?.frames ?? null;
}

/** The run's first `max` frames in time order: finished units read in order until there are enough. */
export async function firstFrames(jobId: string, runId: string, max: number): Promise<FrameRecord[]> {
  const out: FrameRecord[] = [];
  for await (const unit of eachRunRecord<{ frames: FrameRecord[] }>(jobId, FRAMES, runId)) {
    out.push(...unit.frames);
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

/** Every frame of the run, in time order. */
export async function listFrames(jobId: string, runId: string): Promise<FrameRecord[]> {
  const units = await listRunRecords<{ frames: FrameRecord[] }>(jobId, FRAMES, runId);
  return units.flatMap((u) => u.frames).sort((a, b) => a.time - b.time);
}

/** The run's chunks (every one, indexes 0..n-1) and one answer per chunk. */
export const {
  putChunks,
  chunkIndexes,
  getChunk,
  listChunks,
  putResult: putChunkResult,
  getResult: getChunkResult,
  listResults: listChunkResults,
} = chunkRecords<PlannedChunk, ChunkResult>('VIDEO', 'Video');
