/**
 * A video run's frames planted as extraction leaves them (packed, one unit,
 * one frame a second from 0), for tests of what reads them.
 */
import type { Job } from '../../lib/jobs/job-record-rules';
import { FramePackWriter } from '../../lib/pipelines/video/frame-packs';
import { type FrameRecord, putUnitFrames, putVideoPlan } from '../../lib/pipelines/video/run-store';
import { setFields } from './aws';

export const frameNameAt = (second: number) => `frame_${String(second).padStart(6, '0')}.000.jpg`;

/** The images appended to unit 0's packs, frame i at i seconds; the writer is left open for the caller to close. */
export async function packFrames(
  job: Job,
  images: { jpeg: Buffer; preview: Buffer }[],
  limits?: { frames: number; bytes: number },
): Promise<{ frames: FrameRecord[]; writer: FramePackWriter }> {
  const writer = new FramePackWriter(job, 0, limits);
  const frames: FrameRecord[] = [];
  for (const [i, { jpeg, preview }] of images.entries())
    frames.push({
      name: frameNameAt(i),
      time: i,
      sharpness: null,
      width: 4,
      height: 3,
      packed: await writer.add(jpeg, preview),
    });
  return { frames, writer };
}

/** Makes `runId` the job's current run, with one extraction unit over `duration` seconds holding `frames`. */
export async function recordOneUnitRun(jobId: string, runId: string, duration: number, frames: FrameRecord[]) {
  await putVideoPlan(jobId, {
    run_id: runId,
    duration,
    fps: 1,
    long_edge: 1600,
    jpeg_quality: 4,
    preview_long_edge: 768,
    keyframes_only: false,
    units: [{ index: 0, start: 0, end: duration, duration, firstFrame: 0, frameCount: Math.ceil(duration) }],
  });
  await putUnitFrames(jobId, runId, 0, frames);
  await setFields(`JOB#${jobId}`, 'JOB', { run_id: runId });
}
