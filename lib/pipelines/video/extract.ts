/**
 * The video pipeline's first two stages:
 *
 *  - probeVideo (stage `probe`): measures the upload (duration, picture size,
 *    frame rate, sound), decides keyframe-only decode, removes frames an
 *    earlier attempt left, and fixes the run's plan: the extraction units.
 *  - the `extract` stage's branches, side by side:
 *      frames     one unit per 2-minute stretch; each seeks into the upload
 *                 through a presigned GET and writes its frames and their
 *                 previews straight to the bucket, packed (./frame-packs.ts),
 *                 recording each frame's time, size and place, and its
 *                 sharpness when frames will compete for the chunks' time
 *                 buckets;
 *      transcribe the speech track transcribed (../transcribe.ts); without a
 *                 key, without sound, or when the provider keeps failing, the
 *                 run goes on visual-only.
 */
import { presignedToolRead } from '../../blob/client';
import { settings } from '../../config';
import type { Job } from '../../jobs/job-record-rules';
import { frameName, useKeyframeDecode } from '../../media/extraction-rules';
import { extractFrames, keyframeRate } from '../../media/frames';
import { frameSize, measureFrame } from '../../media/sharpness';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { PipelineFailure } from '../../orchestrator/terminal';
import { probeRecording } from '../recording-probe';
import { transcribeRecording } from '../transcribe';
import { transcriptForJob } from '../transcript-rules';
import { framesShareBuckets } from './chunk-rules';
import { extractionUnits } from './extraction-rules';
import { clearFrames, FramePackWriter } from './frame-packs';
import { clock } from './prompt-rules';
import { type FrameRecord, getVideoPlan, putUnitFrames, putVideoPlan } from './run-store';

/** A presigned GET outlives the slowest extraction unit (a worker lives at most 15 minutes). */
const READ_URL_SECONDS = 3600;

/** ffmpeg's JPEG quality scale for previews: close to what the model would get from a high-quality resize. */
const PREVIEW_JPEG_QUALITY = 3;

function mediaKeyOf(job: Job): string {
  if (!job.media_key) throw new PipelineFailure('This job has no uploaded video. Nothing was charged.');
  return job.media_key;
}

export async function probeVideo(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const config = settings();
  const minRatio = config.KEYFRAME_DECODE_MIN_RATIO;
  // The keyframe rate is read, and what an earlier attempt extracted cleared, while the upload is measured.
  const [{ probed, duration }, rate, removed] = await Promise.all([
    probeRecording(job, 'video'),
    minRatio > 0
      ? presignedToolRead(mediaKeyOf(job), READ_URL_SECONDS)
          .then((input) => keyframeRate(input))
          .catch(() => null)
      : null,
    clearFrames(job),
  ]);
  if (!probed.video) throw new PipelineFailure('This file has no video picture to look at. Nothing was charged.');
  if (removed) await log.info(`Removed ${removed} frame object(s) left by an earlier attempt`);
  const keyframesOnly = useKeyframeDecode(rate, config.FRAME_EXTRACTION_FPS, minRatio);

  const units = extractionUnits(duration, config.FRAME_EXTRACTION_FPS);
  const measureSharpness = framesShareBuckets({
    fps: config.FRAME_EXTRACTION_FPS,
    keyframesOnly,
    chunkSeconds: config.CHUNK_DURATION_SECONDS,
    limits: { framesPerMinute: config.FRAMES_PER_MINUTE, maxFramesPerCall: config.MAX_FRAMES_PER_CALL },
  });
  await putVideoPlan(job.id, {
    run_id: job.run_id as string,
    duration,
    fps: config.FRAME_EXTRACTION_FPS,
    long_edge: config.FRAME_LONG_EDGE_PX,
    jpeg_quality: config.FRAME_JPEG_QUALITY,
    preview_long_edge: config.VIDEO_FRAME_LONG_EDGE,
    keyframes_only: keyframesOnly,
    measure_sharpness: measureSharpness,
    units,
  });
  const { width, height, fps } = probed.video;
  await log.info(
    `Video ${width ?? '?'}x${height ?? '?'} at ${fps ?? '?'} fps, ${duration.toFixed(1)} s${probed.hasAudio ? ' with sound' : ', no sound'}; ` +
      `${units.length} extraction unit(s), ${keyframesOnly ? `keyframes only (${rate?.toFixed(2)} per second)` : 'every frame decoded'}`,
  );
  return {
    kind: 'next',
    set: { duration, media_info: { width, height, fps, has_audio: probed.hasAudio } },
  };
}

/** The frames branch: one unit per extraction unit of the plan. */
export async function planFrameUnits(ctx: StageContext): Promise<StageOutcome> {
  const plan = await getVideoPlan(ctx.job.id, ctx.job.run_id as string);
  return { kind: 'fanout', units: plan.units.length, concurrency: settings().FRAME_EXTRACTION_CONCURRENCY };
}

/** One extraction unit: its stretch of the video, frames written to the bucket and recorded. */
export async function extractFrameUnit(ctx: StageContext, index: number): Promise<void> {
  const { job, log } = ctx;
  const runId = job.run_id as string;
  const plan = await getVideoPlan(job.id, runId);
  const unit = plan.units[index];
  if (!unit) throw new Error(`extraction unit ${index} is outside the plan`);
  const packs = new FramePackWriter(job, index);
  const beatMs = settings().FRAME_EXTRACTION_HEARTBEAT_SECONDS * 1000;
  const frames: FrameRecord[] = [];
  // Sharpness only decides between frames sharing a time bucket; decoding every frame again for it costs CPU.
  const measure = plan.measure_sharpness === false ? frameSize : measureFrame;
  let lastBeat = Date.now();
  await extractFrames({
    input: await presignedToolRead(mediaKeyOf(job), READ_URL_SECONDS),
    startSeconds: unit.start,
    endSeconds: unit.end,
    fps: plan.fps,
    longEdge: plan.long_edge,
    jpegQuality: plan.jpeg_quality,
    keyframesOnly: plan.keyframes_only,
    preview: { longEdge: plan.preview_long_edge, jpegQuality: PREVIEW_JPEG_QUALITY },
    onFrame: async (frame) => {
      const preview = frame.preview as Buffer;
      const [measured, packed] = await Promise.all([measure(frame.jpeg, preview), packs.add(frame.jpeg, preview)]);
      frames.push({ name: frameName(frame.timeSeconds), packed, time: frame.timeSeconds, ...measured });
      if (Date.now() - lastBeat >= beatMs) {
        lastBeat = Date.now();
        await ctx.heartbeat();
        await log.info(
          `Extracting frames: part ${index + 1} of ${plan.units.length} at ${clock(frame.timeSeconds)}, ${frames.length} frame(s) so far`,
        );
      }
    },
  });
  // The packs are written before the record that points into them.
  await packs.close();
  await putUnitFrames(job.id, runId, index, frames);
  await log.info(
    `Frames ${clock(unit.start)}–${clock(unit.end)}: ${frames.length} written (part ${index + 1} of ${plan.units.length})`,
  );
}

/** The transcript branch. Visual-only when there is no transcript to be had. */
export async function transcribeVideo(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const outcome = await transcribeRecording(job, log);
  switch (outcome.kind) {
    case 'unconfigured':
      await log.warn('Speech-to-text is not configured (TRANSCRIPTION_API_KEY): the video is read visual-only');
      return { kind: 'next', set: { transcript: null } };
    case 'no_audio':
      await log.info('The video has no sound: it is read visual-only');
      return { kind: 'next', set: { transcript: null } };
    case 'failed':
      await log.warn(`Transcription failed (${outcome.reason}): the video is read visual-only`);
      return { kind: 'next', set: { transcript: null } };
    case 'transcribed': {
      const words = outcome.transcript.segments.reduce((n, s) => n + s.words.length, 0);
      await log.info(`Transcript: ${words} word(s) in ${outcome.transcript.segments.length} segment(s)`);
      return { kind: 'next', set: { transcript: transcriptForJob(outcome.transcript) } };
    }
  }
}
