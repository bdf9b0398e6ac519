/**
 * GET /api/admin/media (spec: Admin): the media of every team, newest first,
 * filtered by type, team and text. Each job comes with its capability URLs
 * (no header needed: the job's uuid is the credential), a thumbnail, at most
 * MEDIA_PHOTOS_PER_JOB photos (photo_count holds the total) and whether its
 * file is still in the bucket.
 */
import { headObject } from '../blob/objects';
import type { Job } from '../jobs/job-record-rules';
import { listStagedPhotos } from '../photos/staged-photo-store';
import { frameNames } from '../pipelines/video/frame-packs';
import { countMatchingJobs } from './job-count-service';
import { listJobPage, listMatchingJobs } from './job-list-service';
import { MEDIA_PHOTOS_PER_JOB } from './rules';
import { adminJobView, type Names } from './view';

/** A video's frames (in time order) or a photo job's live photos. */
async function jobPictures(job: Job) {
  if (job.source_type === 'video') {
    const names = await frameNames(job, MEDIA_PHOTOS_PER_JOB);
    return {
      photos: names.map((name) => ({ name, url: `/api/jobs/${job.id}/frames/${name}` })),
      photo_count: Math.max(job.total_frames, names.length),
      firstKey: job.media_key,
    };
  }
  if (job.source_type === 'photo') {
    const live = (await listStagedPhotos(job.id)).filter((photo) => !photo.deleted);
    return {
      photos: live
        .slice(0, MEDIA_PHOTOS_PER_JOB)
        .map((photo) => ({ name: photo.filename, url: `/api/photos/${job.id}/${photo.filename}` })),
      photo_count: live.length,
      firstKey: live[0]?.normalized ? live[0].key : (live[0]?.incoming_key ?? null),
    };
  }
  return { photos: [], photo_count: 0, firstKey: job.media_key };
}

async function mediaView(job: Job, names: Names) {
  const { photos, photo_count, firstKey } = await jobPictures(job);
  return {
    ...adminJobView(job, names),
    media_url: job.source_type === 'photo' || !job.media_key ? null : `/api/jobs/${job.id}/${job.source_type}`,
    thumbnail_url: photos[0]?.url ?? null,
    photos,
    photo_count,
    file_exists: firstKey ? (await headObject(firstKey)) !== null : false,
  };
}

export async function listMedia(filter: {
  type?: string;
  team_id?: string;
  q?: string;
  limit: number;
  offset?: number;
  cursor?: string;
}) {
  const [{ matched, next_cursor }, total] = await Promise.all([
    listMatchingJobs(filter, filter),
    countMatchingJobs(filter),
  ]);
  const { jobs, names } = await listJobPage(matched);
  return {
    total,
    limit: filter.limit,
    offset: filter.offset ?? 0,
    next_cursor,
    items: await Promise.all(jobs.map((job) => mediaView(job, names))),
  };
}
