/**
 * The grouping endpoints of a photo job before the AI runs (spec: Jobs:
 * PUT /api/jobs/{id}/staged-photos/regroup, /delete, /restore, /segment,
 * /clear-segments, /details; Photo pipeline (live path) 2, 6, 7). The rules
 * are in ./grouping-rules.ts; this reads the job's photos, checks the request against
 * them (400 and nothing written), writes the changed rows in transactions
 * conditional on the job still being groupable (409 once it is not), writes
 * activity and answers the job's full staged-photo list.
 */
import pLimit from 'p-limit';
import type { Identity } from '../auth/identity-rules';
import { recordActivity } from '../activity/service';
import { deleteObject } from '../blob/objects';
import { settings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { getJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import { dispatch } from '../queue/dispatch';
import { getRoom } from '../rooms/store';
import { JOB_NOT_FOUND, loadJobForTeam } from '../jobs/access-service';
import { plural } from '../text';
import {
  clearSegmentsProblem,
  detailsGroup,
  GROUPING_STATUSES,
  groupingBlocked,
  manualName,
  planSegments,
  regroupChanges,
  regroupProblem,
  restoreProblem,
  segmentBoxCount,
  segmentItemsProblem,
  segmentsOf,
  segmentTargetProblem,
  unknownIdsProblem,
} from './grouping-rules';
import { raisePhotoNextIndex, takePhotoIndices } from './photo-job-store';
import { photoWriteLocked, type StagedPhotoWrite, writeStagedPhotos } from './photo-write-store';
import type { SegmentCropMessage } from './queue-schemas';
import { MAX_PHOTO_INDEX } from './rules';
import type { GroupDetailsInput, SegmentInput } from './schemas';
import { listStagedPhotos, newSegmentPhoto } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';
import { stagedPhotoView } from './view';

/** The job (team-scoped: 404 for another team's) and its photos, or 409 when they can no longer be grouped. */
async function groupableJob(identity: Identity, jobId: string): Promise<{ job: Job; photos: StagedPhoto[] }> {
  const job = await loadJobForTeam(identity, jobId);
  const blocked = groupingBlocked(job);
  if (blocked) throw new ConflictError(blocked);
  return { job, photos: await listStagedPhotos(job.id) };
}

/** Runs fn over items, at most 8 bucket or queue calls in flight. */
function eachLimited<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const limit = pLimit(8);
  return Promise.all(items.map((item) => limit(() => fn(item))));
}

function check(problem: string | null): void {
  if (problem) throw new InvalidRequestError(problem);
}

const PHOTOS_BUSY = "Another change to this job's photos is still being saved; try again in a moment.";

/** Writes an edit's rows all or nothing (./photo-write-store.ts), or answers 409 and has written nothing. */
async function commit(job: Job, writes: StagedPhotoWrite[]): Promise<void> {
  const outcome = await writeStagedPhotos(job.id, writes, GROUPING_STATUSES);
  if (outcome === 'written') return;
  if (outcome === 'job-state') {
    const now = await getJob(job.id, true);
    if (!now) throw new NotFoundError(JOB_NOT_FOUND);
    if (photoWriteLocked(now)) throw new ConflictError(groupingBlocked(now) ?? PHOTOS_BUSY);
    throw new ConflictError(groupingBlocked(now) ?? 'The job changed while the photos were being saved; try again.');
  }
  throw new ConflictError('The photos changed while this was being saved; reload them and try again.');
}

async function record(identity: Identity, job: Job, action_type: string, action_label: string): Promise<void> {
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type,
    action_label,
    target: (await getRoom(job.room_id))?.name ?? 'Photo upload',
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
}

async function stagedList(job: Job) {
  return (await listStagedPhotos(job.id)).map(stagedPhotoView);
}

const byIds = (photos: StagedPhoto[], ids: string[]) => {
  const wanted = new Set(ids);
  return photos.filter((p) => wanted.has(p.id));
};

/** PUT .../staged-photos/regroup: every listed group becomes one group; other whole photos go back to their own. */
export async function regroupStagedPhotos(identity: Identity, jobId: string, body: { groups: string[][] }) {
  const { job, photos } = await groupableJob(identity, jobId);
  check(regroupProblem(photos, body.groups, settings().MAX_PHOTOS_PER_ITEM));
  const changes = regroupChanges(photos, body.groups);
  if (changes.length) {
    await commit(
      job,
      changes.map((c) => ({ update: { index: c.index, set: { group_index: c.group_index } } })),
    );
    const merged = body.groups.filter((g) => g.length > 1);
    await record(
      identity,
      job,
      'regroup_photos',
      merged.length ? `Grouped photos into ${plural(merged.length, 'item')}` : 'Ungrouped photos',
    );
  }
  return stagedList(job);
}

/** PUT .../staged-photos/delete and /restore: the soft-delete flag. */
export async function setStagedPhotosDeleted(
  identity: Identity,
  jobId: string,
  body: { ids: string[] },
  deleted: boolean,
) {
  const { job, photos } = await groupableJob(identity, jobId);
  check(unknownIdsProblem(photos, body.ids));
  const targets = byIds(photos, body.ids);
  if (!deleted) check(restoreProblem(targets));
  const changed = targets.filter((p) => p.deleted !== deleted);
  if (changed.length) {
    await commit(
      job,
      changed.map((p) => ({ update: { index: p.index, set: { deleted } } })),
    );
    await record(
      identity,
      job,
      deleted ? 'delete_photos' : 'restore_photos',
      `${deleted ? 'Deleted' : 'Restored'} ${plural(changed.length, 'photo')}`,
    );
  }
  return stagedList(job);
}

/**
 * The job's next free photo numbers: `count` of them, taken with one atomic
 * ADD on photo_next_index while the job is groupable. A counter behind the
 * photos that exist (a job written before the counter) is first moved past them.
 */
async function allocateIndices(job: Job, photos: StagedPhoto[], count: number): Promise<number[]> {
  const floor = photos.reduce((next, p) => Math.max(next, p.index + 1), 0);
  if ((job.photo_next_index ?? 0) < floor) await raisePhotoNextIndex(job.id, floor);
  const after = await takePhotoIndices(job.id, count, GROUPING_STATUSES, MAX_PHOTO_INDEX);
  if (!after) {
    const now = await getJob(job.id, true);
    if (!now) throw new NotFoundError(JOB_NOT_FOUND);
    throw new ConflictError(
      groupingBlocked(now) ??
        `This job has used every photo number up to ${MAX_PHOTO_INDEX}; start a new upload for more.`,
    );
  }
  return Array.from({ length: count }, (_, i) => after.photo_next_index - count + i);
}

/**
 * PUT .../staged-photos/segment: replaces the photo's segments with one row
 * per drawn box (one group per item) and hides the photo; the crops are made
 * by the photos worker.
 */
export async function segmentStagedPhoto(identity: Identity, jobId: string, body: SegmentInput) {
  const { job, photos } = await groupableJob(identity, jobId);
  const original = photos.find((p) => p.id === body.photo_id);
  check(segmentTargetProblem(original, body.photo_id));
  check(segmentItemsProblem(body.items, settings().MAX_PHOTOS_PER_ITEM));
  const photo = original!;
  const previous = segmentsOf(photos, photo.index);
  const indices = await allocateIndices(job, photos, segmentBoxCount(body.items));
  const rows = planSegments(body.items, indices[0]).map((s) => newSegmentPhoto(photo, s));
  await commit(job, [
    ...rows.map((row) => ({ put: row })),
    { update: { index: photo.index, set: { hidden_by_segments: true } } },
    ...previous.map((p) => ({ delete: { index: p.index } })),
  ]);
  await eachLimited(previous, (p) => deleteObject(p.key));
  // The rows are written first: a crop message that is lost is made on demand by the pipeline (ensureSegmentCropped).
  await eachLimited(rows, (row) =>
    dispatch('photos', { kind: 'segment', job_id: job.id, index: row.index } satisfies SegmentCropMessage),
  );
  const items = body.items.length;
  await record(identity, job, 'segment_photo', `Marked ${plural(items, 'item')} on ${photo.original_filename}`);
  return stagedList(job);
}

/** PUT .../staged-photos/clear-segments: the photo's crops go; the whole photo is back in its group. */
export async function clearStagedPhotoSegments(identity: Identity, jobId: string, body: { photo_id: string }) {
  const { job, photos } = await groupableJob(identity, jobId);
  const photo = photos.find((p) => p.id === body.photo_id);
  check(clearSegmentsProblem(photo, body.photo_id, photos));
  const segments = segmentsOf(photos, photo!.index);
  await commit(job, [
    ...segments.map((p) => ({ delete: { index: p.index } })),
    { update: { index: photo!.index, set: { hidden_by_segments: false } } },
  ]);
  await eachLimited(segments, (p) => deleteObject(p.key));
  await record(identity, job, 'clear_segments', `Cleared the marked items on ${photo!.original_filename}`);
  return stagedList(job);
}

/**
 * PUT .../staged-photos/details: name and quantity of one whole group. A
 * non-empty name makes the item user-described (no AI call); an empty one
 * hands it back to the AI.
 */
export async function setGroupDetails(identity: Identity, jobId: string, body: GroupDetailsInput) {
  const { job, photos } = await groupableJob(identity, jobId);
  const group = detailsGroup(photos, body.ids);
  if ('problem' in group) throw new InvalidRequestError(group.problem);
  const name = manualName(body.name);
  const members = photos.filter((p) => p.group_index === group.group_index);
  await commit(
    job,
    members.map((p) => ({ update: { index: p.index, set: { manual_name: name, quantity: body.quantity } } })),
  );
  await record(
    identity,
    job,
    'describe_photo_group',
    name
      ? `Named a group of ${plural(members.length, 'photo')} "${name}"`
      : `Handed a group of ${plural(members.length, 'photo')} back to the AI`,
  );
  return stagedList(job);
}
