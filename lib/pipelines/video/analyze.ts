/**
 * The video pipeline's middle stages:
 *
 *  - planChunks (stage `chunk`): the run's frames and transcript cut into
 *    chunks of CHUNK_DURATION_SECONDS; per chunk, the frames its call sends
 *    (the sharpest per time bucket; frames sharing a bucket that extraction
 *    did not measure are measured here) and the narration words it covers.
 *  - the `analyze` stage: one unit per chunk, OPENROUTER_CONCURRENCY in
 *    flight; a unit sends its frames' previews (VIDEO_FRAME_LONG_EDGE, made
 *    by the extraction, read from its packs in one request) and narration
 *    to the vision model and records the answer once. A gateway failure is
 *    recorded as a failed chunk (unbilled), never thrown.
 */
import pLimit from 'p-limit';
import { settings } from '../../config';
import { AiGatewayError } from '../../integrations/ai-call';
import { AiGatewayClient } from '../../integrations/ai-gateway';
import { salvageItems } from '../../integrations/structured-output';
import { recordAiCall } from '../../jobs/ai-request-service';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { sharpness } from '../../media/sharpness';
import { readTranscript } from '../transcribe';
import { readVideoItem } from './answer-rules';
import { VIDEO_ANSWER_JSON_SCHEMA, type VideoItem } from './answer-schemas';
import { chunkRanges, framesByChunk, selectFrames, sliceTranscript, unmeasuredRivals } from './chunk-rules';
import { readFrameImages } from './frame-packs';
import { chunkUserText, clock, frameLabel, videoSystemPrompt } from './prompt-rules';
import {
  type ChunkResult,
  chunkIndexes,
  type FrameRecord,
  getChunk,
  getChunkResult,
  getVideoPlan,
  listFrames,
  type PlannedChunk,
  putChunkResult,
  putChunks,
} from './run-store';

/**
 * Output tokens a chunk's answer may use: some 40 items with every field
 * filled, more than a 30-second stretch of a walkthrough shows.
 */
const CHUNK_MAX_OUTPUT_TOKENS = 6000;
/** Bucket reads in flight while the chunk stage measures frames, and the previews each reads. */
const PREVIEW_READS_IN_FLIGHT = 8;
const PREVIEWS_PER_READ = 30;

export async function planChunks(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const config = settings();
  const runId = job.run_id as string;
  const plan = await getVideoPlan(job.id, runId);
  const frames = await listFrames(job.id, runId);
  // The row's transcript is this run's (its branch set it, null when there is none): only then is the bucket's copy current.
  const transcript = job.transcript ? await readTranscript(job) : null;
  if (frames.length === 0 && !transcript?.segments.length)
    throw new PipelineFailure(
      'No frames could be read from this video, so no items could be made. Nothing was charged.',
    );

  const ranges = chunkRanges(plan.duration, config.CHUNK_DURATION_SECONDS);
  const byChunk = framesByChunk(ranges, frames);
  const limits = { framesPerMinute: config.FRAMES_PER_MINUTE, maxFramesPerCall: config.MAX_FRAMES_PER_CALL };
  const measured = await measureRivals(
    job,
    ranges.flatMap((range, i) => unmeasuredRivals(range, byChunk[i], limits)),
  );
  if (measured) await log.info(`Measured the sharpness of ${measured} frame(s) sharing a time bucket`);
  const segments = transcript?.segments ?? [];
  const chunks: PlannedChunk[] = ranges.map((range, i) => ({
    ...range,
    frames: selectFrames(range, byChunk[i], limits),
    words: sliceTranscript(segments, range, i === ranges.length - 1).words.map(({ word, start, end }) => ({
      word,
      start,
      end,
    })),
  }));
  await putChunks(job.id, runId, chunks);
  const sent = chunks.reduce((n, c) => n + c.frames.length, 0);
  await log.info(
    `${frames.length} frame(s) in ${chunks.length} chunk(s) of ${config.CHUNK_DURATION_SECONDS} s; ${sent} frame(s) selected for analysis`,
  );
  return { kind: 'next', set: { total_frames: frames.length } };
}

/** Measures, in place, the sharpness of frames extraction left unmeasured, from their previews. */
async function measureRivals(job: StageContext['job'], frames: FrameRecord[]): Promise<number> {
  const limit = pLimit(PREVIEW_READS_IN_FLIGHT);
  const batches = Array.from({ length: Math.ceil(frames.length / PREVIEWS_PER_READ) }, (_, i) =>
    frames.slice(i * PREVIEWS_PER_READ, (i + 1) * PREVIEWS_PER_READ),
  );
  await Promise.all(
    batches.map((batch) =>
      limit(async () => {
        const previews = await readFrameImages(job, batch, 'preview');
        for (const [i, frame] of batch.entries()) frame.sharpness = await sharpness(previews[i]);
      }),
    ),
  );
  return frames.length;
}

export async function startChunkAnalysis(ctx: StageContext): Promise<StageOutcome> {
  const indexes = await chunkIndexes(ctx.job.id, ctx.job.run_id as string);
  return { kind: 'fanout', units: indexes.length, concurrency: settings().OPENROUTER_CONCURRENCY };
}

/** Whether a chunk has anything for the model: frames to look at or words to read. */
export const needsCall = (chunk: Pick<PlannedChunk, 'frames' | 'words'>) =>
  chunk.frames.length > 0 || chunk.words.length > 0;

/** One unit: the index-th chunk's call, its answer recorded once. */
export async function analyzeChunk(ctx: StageContext, index: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  // Read together: a unit's start is on the path between one call's answer and the next call.
  const [answered, chunk] = await Promise.all([getChunkResult(job.id, runId, index), getChunk(job.id, runId, index)]);
  if (answered) return;
  await putChunkResult(job.id, runId, await callChunk(ctx, chunk));
}

async function callChunk(
  { job, log }: StageContext,
  chunk: PlannedChunk,
  client = AiGatewayClient.fromSettings(settings(), { recorder: recordAiCall }),
): Promise<ChunkResult> {
  const base = { chunk_index: chunk.index };
  if (!needsCall(chunk)) return { ...base, outcome: 'skipped', items: [], error: null };
  // The previews extraction packed at VIDEO_FRAME_LONG_EDGE are what the model is sent, as they are.
  const previews = await readFrameImages(job, chunk.frames, 'preview');
  const images = chunk.frames.map((frame, i) => ({ label: frameLabel(frame), jpeg: previews[i] }));
  const range = `${clock(chunk.start)}–${clock(chunk.end)}`;
  try {
    const answer = await client.complete({
      system: videoSystemPrompt(),
      text: chunkUserText({ chunk, frames: chunk.frames, words: chunk.words, recording: job.original_filename }),
      images,
      maxTokens: CHUNK_MAX_OUTPUT_TOKENS,
      responseFormat: VIDEO_ANSWER_JSON_SCHEMA,
      context: { jobId: job.id, teamId: job.team_id, purpose: 'video-chunk', detail: { chunk_index: chunk.index } },
    });
    const items = salvageItems(answer.content)
      .items.map((raw) => readVideoItem(raw, { chunk, frames: chunk.frames }))
      .filter((item): item is VideoItem => item !== null);
    await log.info(`Chunk ${range}: ${items.length} item(s) from ${chunk.frames.length} frame(s)`);
    return { ...base, outcome: 'ok', items, error: null };
  } catch (err) {
    if (!(err instanceof AiGatewayError)) throw err;
    await log.warn(`Chunk ${range}: AI request failed after ${err.attempts} attempt(s): ${err.message}`);
    return { ...base, outcome: 'failed', items: [], error: err.message };
  }
}
