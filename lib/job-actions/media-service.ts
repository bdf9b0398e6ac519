/**
 * Byte streams of a job behind capability URLs (spec: Capability URLs): the
 * uuid in the path is the credential, names are traversal-checked, and the
 * answer is a 302 to a short-lived presigned GET so S3 serves Range requests.
 */
import { isSafeFileName, presignedGet, type ServedAs } from '../blob/client';
import { readObjectHead } from '../blob/objects';
import { baseUrl, settings } from '../config';
import { NotFoundError, UnavailableError } from '../errors';
import { HttpResponse } from '../http/response';
import type { Identity } from '../auth/identity-rules';
import { loadJobForTeam } from '../jobs/access-service';
import { frameNames, frameObjectKey } from '../pipelines/video/frame-packs';
import { RECORDING_SNIFF_BYTES, recordingContentType } from '../uploads/sniff-rules';
import { isJobObjectKey } from '../jobs/job-object-rules';
import { getJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';

/**
 * How the recording is served: played inline as the type its first bytes show; bytes that are no recording
 * (whatever they were stored as) only as a download.
 */
async function servedRecording(job: Job, key: string, kind: 'video' | 'audio'): Promise<ServedAs> {
  const head = await readObjectHead(key, RECORDING_SNIFF_BYTES);
  const contentType = head ? recordingContentType(head, kind) : null;
  if (contentType) return { contentType, disposition: 'inline' };
  return { contentType: 'application/octet-stream', disposition: { attachment: job.original_filename ?? kind } };
}

/** GET /api/jobs/{id}/video and /audio. */
export async function redirectToJobMedia(jobId: string, kind: 'video' | 'audio'): Promise<HttpResponse> {
  const job = await getJob(jobId, false);
  if (!job || job.source_type !== kind || !job.media_key || !isJobObjectKey(job, job.media_key))
    throw new NotFoundError(`No ${kind} for this job`);
  return HttpResponse.redirect(await presignedGet(job.media_key, await servedRecording(job, job.media_key, kind)));
}

/** GET /api/jobs/{id}/frames: the extracted frames' capability URLs. */
export async function listJobFrames(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  const names = job.source_type === 'video' ? await frameNames(job) : [];
  return { job_id: job.id, frames: names.map((name) => ({ name, url: `/api/jobs/${job.id}/frames/${name}` })) };
}

/** GET /api/jobs/{id}/frames/{name}. */
export async function redirectToFrame(jobId: string, name: string): Promise<HttpResponse> {
  if (!isSafeFileName(name)) throw new NotFoundError('No such frame');
  const job = await getJob(jobId, false);
  const key = job?.source_type === 'video' ? await frameObjectKey(job, name) : null;
  if (!key) throw new NotFoundError('No such frame');
  // Frames are JPEGs the extraction wrote.
  return HttpResponse.redirect(await presignedGet(key, { contentType: 'image/jpeg', disposition: 'inline' }));
}

/**
 * GET /api/jobs/{id}/stream on the HTTP API: HTTP APIs cannot stream, so this
 * redirects (307; EventSource follows it) to the streaming function.
 */
export async function redirectToStream(jobId: string): Promise<HttpResponse> {
  const base = baseUrl(settings().STREAM_BASE_URL);
  if (!base) throw new UnavailableError('Live job events are not configured (STREAM_BASE_URL).');
  if (!(await getJob(jobId, false))) throw new NotFoundError('Job not found');
  return new HttpResponse(307, undefined, {
    location: `${base}/api/jobs/${jobId}/stream`,
    'cache-control': 'no-store',
  });
}
