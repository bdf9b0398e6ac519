/**
 * The audio pipeline's stages (see pipeline.ts): transcribe the recording,
 * cut the transcript into chunks, one text call per chunk asking for the
 * items the speaker names, then merge, order and save them (without photos).
 */
import { settings } from '../../config';
import { AiGatewayError } from '../../integrations/ai-call';
import { AiGatewayClient } from '../../integrations/ai-gateway';
import { salvageItems } from '../../integrations/structured-output';
import { passBatchPrefix } from '../../inventory/item-rules';
import { saveItemBatch } from '../../inventory/item-store';
import type { ItemDraft } from '../../inventory/item-record-rules';
import { recordAiCall } from '../../jobs/ai-request-service';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { getRoom } from '../../rooms/store';
import { autoApprove } from '../auto-approval';
import { probeRecording } from '../recording-probe';
import { readTranscript, transcribeRecording } from '../transcribe';
import { transcriptForJob } from '../transcript-rules';
import { mergeAcrossChunks } from '../video/dedup-rules';
import { chunkRanges } from '../video/chunk-rules';
import { clock } from '../video/prompt-rules';
import { analyzedSeconds, orderByVideoTime } from '../video/synthesis-rules';
import { readAudioItem } from './answer-rules';
import { AUDIO_ANSWER_JSON_SCHEMA, type AudioItem } from './answer-schemas';
import { AUDIO_CHUNK_SECONDS, type AudioChunk, audioChunks } from './chunk-rules';
import { audioSystemPrompt, audioUserText } from './prompt-rules';
import {
  type AudioChunkResult,
  audioChunkIndexes,
  getAudioChunk,
  getAudioResult,
  listAudioChunks,
  listAudioResults,
  putAudioChunks,
  putAudioResult,
} from './run-store';

const NOT_CONFIGURED =
  'Voice notes are read through speech-to-text, which is not configured in this deployment (TRANSCRIPTION_API_KEY). Nothing was charged.';
const NOTHING_HEARD = 'No words could be heard in this recording, so no items could be made. Nothing was charged.';
const ALL_AI_FAILED =
  'Every AI request for this recording failed, so no items could be made. Nothing was charged; please process it again.';
/** Output tokens a chunk's answer may use: two minutes of speech name far fewer items than this holds. */
const CHUNK_MAX_OUTPUT_TOKENS = 4000;

export async function transcribeAudio(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const { duration } = await probeRecording(job, 'recording');
  const outcome = await transcribeRecording(job, log);
  switch (outcome.kind) {
    case 'unconfigured':
      throw new PipelineFailure(NOT_CONFIGURED);
    case 'no_audio':
      throw new PipelineFailure('This file has no sound to transcribe. Nothing was charged.');
    case 'failed':
      throw new PipelineFailure(
        `The recording could not be transcribed (${outcome.reason}). Nothing was charged; please process it again.`,
      );
    case 'transcribed': {
      const words = outcome.transcript.segments.reduce((n, s) => n + s.words.length, 0);
      await log.info(`Transcript: ${words} word(s) in ${outcome.transcript.segments.length} segment(s)`);
      return { kind: 'next', set: { duration, transcript: transcriptForJob(outcome.transcript) } };
    }
  }
}

export async function planAudioChunks(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const transcript = await readTranscript(job);
  const chunks = audioChunks(transcript?.segments ?? [], job.duration ?? 0);
  if (!chunks.length) throw new PipelineFailure(NOTHING_HEARD);
  await putAudioChunks(job.id, job.run_id as string, chunks);
  await log.info(`${chunks.length} chunk(s) of speech to read`);
  return { kind: 'next' };
}

export async function startAudioAnalysis(ctx: StageContext): Promise<StageOutcome> {
  const indexes = await audioChunkIndexes(ctx.job.id, ctx.job.run_id as string);
  return { kind: 'fanout', units: indexes.length, concurrency: settings().OPENROUTER_CONCURRENCY };
}

/** One unit: the position-th chunk's call, its answer recorded once. */
export async function analyzeAudioChunk(ctx: StageContext, position: number): Promise<void> {
  const { job } = ctx;
  const runId = job.run_id as string;
  const index = (await audioChunkIndexes(job.id, runId))[position];
  if (index === undefined) throw new Error(`unit ${position} is outside the plan`);
  // Read together, as a video chunk's are: a unit's start lies between one call's answer and the next call.
  const [answered, chunk] = await Promise.all([
    getAudioResult(job.id, runId, index),
    getAudioChunk(job.id, runId, index),
  ]);
  if (answered) return;
  await putAudioResult(job.id, runId, await callAudioChunk(ctx, chunk));
}

async function callAudioChunk(
  { job, log }: StageContext,
  chunk: AudioChunk,
  client = AiGatewayClient.fromSettings(settings(), { recorder: recordAiCall }),
): Promise<AudioChunkResult> {
  const range = `${clock(chunk.start)}–${clock(chunk.end)}`;
  try {
    const answer = await client.complete({
      system: audioSystemPrompt(),
      text: audioUserText(chunk, job.original_filename),
      images: [],
      maxTokens: CHUNK_MAX_OUTPUT_TOKENS,
      responseFormat: AUDIO_ANSWER_JSON_SCHEMA,
      context: { jobId: job.id, teamId: job.team_id, purpose: 'audio-chunk', detail: { chunk_index: chunk.index } },
    });
    const items = salvageItems(answer.content)
      .items.map((raw) => readAudioItem(raw, chunk))
      .filter((item): item is AudioItem => item !== null);
    await log.info(`Chunk ${range}: ${items.length} item(s) named`);
    return { chunk_index: chunk.index, outcome: 'ok', items, error: null };
  } catch (err) {
    if (!(err instanceof AiGatewayError)) throw err;
    await log.warn(`Chunk ${range}: AI request failed after ${err.attempts} attempt(s): ${err.message}`);
    return { chunk_index: chunk.index, outcome: 'failed', items: [], error: err.message };
  }
}

function draftOf(item: AudioItem): ItemDraft {
  const where = `Named at ${clock(item.audio_time)} in the recording.`;
  return {
    name: item.name,
    quantity: item.quantity,
    brand: item.brand,
    condition: item.condition,
    age: item.age,
    estimated_price: item.estimated_price,
    notes: item.notes?.trim() ? `${item.notes.trim()}\n${where}` : where,
    confidence: item.confidence,
    evidence: item.evidence,
    source_group_index: null,
    photos: [],
  };
}

export async function synthesizeAudio(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const config = settings();
  const runId = job.run_id as string;
  const [chunks, results] = await Promise.all([listAudioChunks(job.id, runId), listAudioResults(job.id, runId)]);
  const ok = new Map(results.filter((r) => r.outcome === 'ok').map((r) => [r.chunk_index, r]));
  if (ok.size === 0) throw new PipelineFailure(ALL_AI_FAILED);

  const located = [...ok.values()].flatMap((r) =>
    r.items.map((item) => ({ item, chunk: r.chunk_index, time: item.audio_time })),
  );
  // Chunk indexes are places on the time line: boundary k lies between chunk k and chunk k + 1.
  const last = Math.max(...chunks.map((c) => c.index));
  const boundaries = Array.from({ length: last }, (_, k) => (k + 1) * AUDIO_CHUNK_SECONDS);
  const merged = mergeAcrossChunks(located, boundaries, config.VIDEO_DEDUP_WINDOW_SECONDS).map((l) => l.item);
  const ordered = orderByVideoTime(merged.map((item) => ({ ...item, video_time: item.audio_time })));
  const room = await getRoom(job.room_id);
  const saved = await saveItemBatch(job, room?.name ?? null, `${passBatchPrefix(1)}${runId}`, 1, ordered.map(draftOf));
  // Processing rules 4: auto-approval runs after synthesis when the team enabled it.
  await autoApprove(ctx, saved);
  const spoken = new Set(chunks.map((c) => c.index));
  const duration = job.duration ?? 0;
  const seconds = analyzedSeconds(
    duration,
    chunkRanges(duration, AUDIO_CHUNK_SECONDS),
    (index) => !spoken.has(index) || ok.has(index),
  );
  await log.info(
    `Saved ${saved.length} item(s) from ${located.length} named; ${ok.size}/${chunks.length} AI request(s) answered`,
  );
  return { kind: 'next', set: { items_found: saved.length, analyzed_seconds: seconds } };
}
