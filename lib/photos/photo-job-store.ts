/**
 * The photo counters on a photo job's row: photo_bytes_reserved (the running
 * total held against MAX_PHOTO_UPLOAD_MB) and photo_next_index (the next free
 * photo number). Each change is one conditional update of the job, so
 * parallel appends and segment requests can neither overshoot the cap nor
 * hand out a number twice. Each answers the job after it, or null when the
 * condition did not hold.
 */
import { updateJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import type { JobStatus } from '../jobs/job-rules';

/**
 * Adds a batch's bytes to photo_bytes_reserved and, with `count`, takes that
 * many numbers from photo_next_index, only while the job is a photo job in one
 * of `jobStatuses` and its reservation is at most `ceiling` before the add.
 */
export function reservePhotoBatch(
  jobId: string,
  batch: { bytes: number; count: number | null; ceiling: number },
  jobStatuses: readonly JobStatus[],
): Promise<Job | null> {
  return updateJob(jobId, ['photo'], {
    add: { photo_bytes_reserved: batch.bytes, ...(batch.count !== null ? { photo_next_index: batch.count } : {}) },
    expectStatus: jobStatuses,
    condition:
      'source_type = :photo AND (attribute_not_exists(photo_bytes_reserved) OR photo_bytes_reserved <= :ceiling)',
    values: { ':photo': 'photo', ':ceiling': batch.ceiling },
  });
}

/** Moves photo_next_index up to `next`; never moves it back (null when it is already there or past it). */
export function raisePhotoNextIndex(jobId: string, next: number): Promise<Job | null> {
  return updateJob(jobId, ['photo'], {
    set: { photo_next_index: next },
    condition: 'attribute_not_exists(photo_next_index) OR photo_next_index < :next',
    values: { ':next': next },
  });
}

/**
 * Takes `count` numbers from photo_next_index, only while the job is in one of
 * `jobStatuses` and the last number taken stays at or below `maxIndex`.
 */
export function takePhotoIndices(
  jobId: string,
  count: number,
  jobStatuses: readonly JobStatus[],
  maxIndex: number,
): Promise<Job | null> {
  return updateJob(jobId, ['photo'], {
    add: { photo_next_index: count },
    expectStatus: jobStatuses,
    condition: 'photo_next_index <= :ceiling',
    values: { ':ceiling': maxIndex + 1 - count },
  });
}
