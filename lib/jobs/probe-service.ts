/**
 * The probe worker's use case (spec: States, "video/audio upload complete →
 * duration probed for pricing"): measure an uploaded job's media with ffprobe
 * (lib/media/probe.ts) straight from the bucket and store its duration.
 */
import { presignedToolRead } from '../blob/client';
import { ProbeError, type ProbeResult, probeMedia } from '../media/probe';
import { logger } from '../observability/logger';
import { getJob, updateJob } from './job-store';
import { JobLog } from './log-store';

/** Deliveries of one probe message before a failure is recorded on the job instead of retried. */
const PROBE_MAX_ATTEMPTS = 3;
const URL_TTL_SECONDS = 600;

function describe(result: ProbeResult): string {
  const parts: string[] = [];
  if (result.video) {
    const size =
      result.video.width && result.video.height ? `${result.video.width}x${result.video.height}` : 'unknown size';
    parts.push(`video ${size}${result.video.fps ? ` at ${result.video.fps} fps` : ''}`);
  }
  if (result.hasAudio) parts.push('audio');
  return parts.join(', ') || 'no audio or video streams';
}

/**
 * The probe worker's job: measure an uploaded job's media and store its
 * duration (seconds). A file ffprobe reads but cannot make sense of is
 * recorded on the job log at once (another try would not change it). Other
 * failures (network, timeout, S3, no ffprobe) are retried through the queue
 * until PROBE_MAX_ATTEMPTS deliveries, then recorded and dropped; where the
 * delivery count is not known the queue's redrive policy dead-letters the
 * message instead. Nothing loops forever; the quote then shows no duration.
 */
export async function measureJobDuration(jobId: string, attempt = 1): Promise<void> {
  const job = await getJob(jobId);
  if (!job) {
    logger.info('probe skipped: job is gone', { job_id: jobId });
    return;
  }
  if (!job.media_key || job.duration !== null) return;
  const log = new JobLog(jobId);
  let result: ProbeResult;
  try {
    result = await probeMedia(await presignedToolRead(job.media_key, URL_TTL_SECONDS));
  } catch (err) {
    const reason = err instanceof ProbeError ? err.message : String(err);
    const transient = !(err instanceof ProbeError) || err.transient;
    if (transient && attempt < PROBE_MAX_ATTEMPTS) {
      await log.warn(`Could not measure the file yet (attempt ${attempt} of ${PROBE_MAX_ATTEMPTS}): ${reason}`);
      throw err;
    }
    await log.error(`Could not measure the duration of ${job.original_filename ?? 'the file'}: ${reason}`);
    return;
  }
  if (result.duration === null) {
    await log.warn(`The file states no duration (${describe(result)})`);
    return;
  }
  await updateJob(jobId, ['recording'], { set: { duration: result.duration } });
  await log.info(`Measured duration ${result.duration.toFixed(1)} s (${describe(result)})`);
}
