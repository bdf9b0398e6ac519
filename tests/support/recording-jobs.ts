/**
 * Video and audio jobs for the engine-stage integration suites: a recording
 * put straight into the stage's bucket under a fresh team, claim and room,
 * the job started on its pipeline, and a wait for its end. Also short
 * recordings, and a job of a test team's room as the Process click finds it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { blobKeys } from '../../lib/blob/keys';
import { putNewClaim } from '../../lib/claims/store';
import type { SourceType } from '../../lib/jobs/job-rules';
import { getJob, putNewJob } from '../../lib/jobs/job-store';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import { readLiveLog } from '../../lib/jobs/log-store';
import { startJob } from '../../lib/orchestrator/engine';
import { pipelineRefForSource } from '../../lib/orchestrator/pipeline-catalog';
import { putNewRoom } from '../../lib/rooms/store';
import { eventually } from './api';
import { bucket, s3 } from './aws';
import { makeToneBursts } from './fake-speech';
import { makeWalkthrough } from './walkthrough';

/** A job awaiting confirmation on a fresh claim and room, its recording already in the stage's bucket. */
export async function uploadedJob(sourceType: SourceType, bytes: Buffer, extension: string): Promise<Job> {
  const teamId = randomUUID();
  const userId = randomUUID();
  const claim = await putNewClaim(teamId, userId, { claim_number: `IT-${randomUUID().slice(0, 8)}` });
  const room = await putNewRoom(claim, 'Living room');
  const id = randomUUID();
  const filename = `${sourceType}-${id.slice(0, 8)}.${extension}`;
  const mediaKey = `${blobKeys.jobPrefix(teamId, claim.id, id)}media/${filename}`;
  await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: mediaKey, Body: bytes }));
  const job = newJobRecord({
    id,
    room,
    userId,
    sourceType,
    status: 'awaiting_confirmation',
    mediaKey,
    originalFilename: filename,
    fileSizeBytes: bytes.length,
  });
  return putNewJob(job);
}

/**
 * A video or audio job in `room`, as an upload leaves it for the Process click
 * when billing is on: its recording in the bucket, its duration measured,
 * awaiting_confirmation. Written straight to the stores: no upload route or
 * probe runs.
 */
export async function recordingAtConfirmation(
  room: { id: string; claim_id: string; team_id: string },
  userId: string,
  recording: { sourceType: 'video' | 'audio'; bytes: Buffer; filename: string; seconds: number },
): Promise<Job> {
  const id = randomUUID();
  const mediaKey = `${blobKeys.jobPrefix(room.team_id, room.claim_id, id)}media/${recording.filename}`;
  await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: mediaKey, Body: recording.bytes }));
  const job = newJobRecord({
    id,
    room,
    userId,
    sourceType: recording.sourceType,
    status: 'awaiting_confirmation',
    mediaKey,
    originalFilename: recording.filename,
    fileSizeBytes: recording.bytes.length,
  });
  return putNewJob({ ...job, duration: recording.seconds });
}

/**
 * Two recordings `seconds` long, made in `dir`: a silent video clip (read
 * visual-only, no transcription) with one red box the gateway's vision mode
 * names, and a voice note of one burst of sound (one word to the fake
 * speech-to-text provider, one item to the gateway).
 */
export function shortRecordings(dir: string, seconds: number): { video: Buffer; audio: Buffer } {
  const video = makeWalkthrough(join(dir, 'clip.mp4'), {
    seconds,
    width: 320,
    height: 180,
    objects: [{ colour: 'red', from: 0, to: seconds, box: { x: 0.3, y: 0.3, width: 0.3, height: 0.4 } }],
    changingGrain: false,
  });
  return { video: readFileSync(video), audio: makeToneBursts(join(dir, 'note.m4a'), [[0.5, 1]], seconds) };
}

/** Starts the job on its source's pipeline (it must move to pending). */
export async function startRecordingJob(job: Job): Promise<Job> {
  const ref = pipelineRefForSource(job.source_type);
  if (!ref) throw new Error(`no pipeline for ${job.source_type}`);
  const started = await startJob(job, ref);
  if (started?.status !== 'pending') throw new Error(`job ${job.id} did not start (${started?.status})`);
  return started;
}

/** The job once it is complete or in error. */
export const finishedJob = (jobId: string, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const job = await getJob(jobId);
      return job && (job.status === 'complete' || job.status === 'error') ? job : null;
    },
    timeoutMs,
    200,
  );

export const logMessages = async (jobId: string) => (await readLiveLog(jobId)).map((l) => l.message);
