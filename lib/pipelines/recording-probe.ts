/**
 * The first step of the video and audio pipelines: the upload measured with
 * ffprobe through a presigned GET. A file ffprobe read and could not make
 * sense of, or one without a length, fails the job with a message for the
 * user (a retry would not read it better); anything else (network, storage)
 * throws as is.
 */
import { presignedToolRead } from '../blob/client';
import type { Job } from '../jobs/job-record-rules';
import { ProbeError, type ProbeResult, probeMedia } from '../media/probe';
import { PipelineFailure } from '../orchestrator/terminal';

/** A presigned GET outlives the slowest reader of a long upload (a worker lives at most 15 minutes). */
const READ_URL_SECONDS = 3600;

export interface ProbedRecording {
  /** The presigned GET the probe read, for the steps that read the upload next. */
  input: string;
  probed: ProbeResult;
  /** Seconds: the probe's, else what the upload-time probe stored. */
  duration: number;
}

/** `what` names the upload in messages: 'video' or 'recording'. */
export async function probeRecording(job: Job, what: 'video' | 'recording'): Promise<ProbedRecording> {
  if (!job.media_key) throw new PipelineFailure(`This job has no uploaded ${what}. Nothing was charged.`);
  const input = await presignedToolRead(job.media_key, READ_URL_SECONDS);
  let probed: ProbeResult;
  try {
    probed = await probeMedia(input);
  } catch (err) {
    if (err instanceof ProbeError && !err.transient)
      throw new PipelineFailure(`The ${what} could not be read (${err.message}). Nothing was charged.`);
    throw err;
  }
  const duration = probed.duration ?? job.duration;
  if (!duration || duration <= 0)
    throw new PipelineFailure(`The ${what} states no length, so it cannot be read. Nothing was charged.`);
  return { input, probed, duration };
}
