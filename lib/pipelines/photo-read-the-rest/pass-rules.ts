/**
 * The rules of a read-the-rest pass (spec: Output budget and truncation):
 * which cut-short groups can still be re-read, which calls the pass makes,
 * and what the job's list of cut-short groups is after it.
 */
import { settings } from '../../config';
import type { Job, TruncatedGroup } from '../../jobs/job-record-rules';
import type { PlannedGroup } from '../photo/plan-rules';

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

/** The pass's calls: the AI groups of the job that are wanted again, each with its pass number and the names found. */
export function rereadGroups(planned: PlannedGroup[], wanted: TruncatedGroup[]): PlannedGroup[] {
  const byIndex = new Map(wanted.map((g) => [g.group_index, g]));
  return planned.flatMap((g) => {
    const earlier = byIndex.get(g.group_index);
    return g.kind === 'ai' && earlier ? [{ ...g, pass: earlier.passes + 1, names_found: earlier.names }] : [];
  });
}

/**
 * The job's cut-short groups after a pass: groups re-read and answered leave
 * the list unless cut short again; failed ones keep their entry for another try.
 */
export function truncatedAfterPass(
  before: TruncatedGroup[],
  answered: Set<number>,
  cutShortAgain: TruncatedGroup[],
): TruncatedGroup[] {
  const kept = before.filter((g) => !answered.has(g.group_index));
  return [...kept, ...cutShortAgain].sort((a, b) => a.group_index - b.group_index);
}
