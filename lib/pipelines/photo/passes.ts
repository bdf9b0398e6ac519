/** Which cut-short groups read the rest can still re-read (spec: Output budget and truncation). */
import { settings } from '../../config';
import type { Job, TruncatedGroup } from '../../jobs/job';

/** Recorded groups that still have a pass left: the ceiling is PHOTO_MAX_PASSES, counting the first call. */
export function groupsWithPassLeft(
  job: Pick<Job, 'photo_truncated_groups'>,
  maxPasses = settings().PHOTO_MAX_PASSES,
): TruncatedGroup[] {
  return (job.photo_truncated_groups ?? []).filter((g) => g.passes < maxPasses);
}

/** Groups still cut short at the ceiling: too dense, to be segmented. */
export function tooDenseGroups(
  job: Pick<Job, 'photo_truncated_groups'>,
  maxPasses = settings().PHOTO_MAX_PASSES,
): number[] {
  return (job.photo_truncated_groups ?? []).filter((g) => g.passes >= maxPasses).map((g) => g.group_index);
}
