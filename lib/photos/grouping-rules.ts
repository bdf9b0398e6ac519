/**
 * The pure rules of grouping staged photos before the AI runs (spec: Photo
 * pipeline (live path) 2, 6, 7; Jobs: staged-photos regroup, delete, restore,
 * segment, clear-segments, details; Limits: MAX_PHOTOS_PER_ITEM and the
 * photo credit per group that reaches the AI). No I/O here:
 * lib/photos/grouping-service.ts reads the rows, asks these rules and writes.
 * Every check answers the problem as a sentence for a 400, or null.
 */
import type { Job } from '../jobs/job-record-rules';
import { plural } from '../text';
import type { SegmentBox, StagedPhoto } from './staged-photo-record-rules';

/** A job whose photos can still be (re)grouped: it can still be (re)processed. */
export const GROUPING_STATUSES = ['awaiting_grouping', 'error'] as const;

/** Longest manual name (segment items and group details). */
export const MAX_MANUAL_NAME_LENGTH = 200;

/** Items one segment request may draw on a photo. */
export const MAX_SEGMENT_ITEMS = 50;

type Photo = Pick<StagedPhoto, 'id' | 'index' | 'group_index' | 'is_segment' | 'deleted' | 'hidden_by_segments'>;

/** Why the job's photos cannot be regrouped now (409), or null. */
export function groupingBlocked(job: Pick<Job, 'source_type' | 'status'>): string | null {
  if (job.source_type !== 'photo') return 'Only a photo job has staged photos to group.';
  if (!(GROUPING_STATUSES as readonly string[]).includes(job.status)) {
    return `Photos can only be grouped, deleted, restored, segmented or described while the job is awaiting grouping or has failed; this job is ${job.status}.`;
  }
  return null;
}

/** A photo that takes part in its group: not deleted by the user and not replaced by its segments. */
export function isVisiblePhoto(photo: Pick<StagedPhoto, 'deleted' | 'hidden_by_segments'>): boolean {
  return !photo.deleted && !photo.hidden_by_segments;
}

/** The manual name as stored: trimmed, and blank means none (the AI names the item). */
export function manualName(name: string | null | undefined): string | null {
  const trimmed = (name ?? '').trim();
  return trimmed ? trimmed : null;
}

const list = (ids: string[]) => ids.join(', ');

/** Ids that name no photo of this job, in the order given (each once). */
export function unknownIds(photos: Pick<StagedPhoto, 'id'>[], ids: string[]): string[] {
  const known = new Set(photos.map((p) => p.id));
  return [...new Set(ids.filter((id) => !known.has(id)))];
}

export function unknownIdsProblem(photos: Pick<StagedPhoto, 'id'>[], ids: string[]): string | null {
  const unknown = unknownIds(photos, ids);
  return unknown.length ? `Not photos of this job: ${list(unknown)}.` : null;
}

// ---------------------------------------------------------------------------------------------
// Regroup
// ---------------------------------------------------------------------------------------------

/**
 * Checks a regroup request: no empty group, no id twice, every id a photo of
 * this job and not a manual segment (regroup leaves segments alone), at most
 * `maxPerItem` photos in a group. A deleted photo may be listed (it stays deleted).
 */
export function regroupProblem(photos: Photo[], groups: string[][], maxPerItem: number): string | null {
  const empty = groups.findIndex((g) => g.length === 0);
  if (empty !== -1) return `Group ${empty + 1} is empty; every group needs at least one photo.`;
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of groups.flat()) (seen.has(id) ? twice : seen).add(id);
  if (twice.size) return `Each photo can be in one group only; listed more than once: ${list([...twice])}.`;
  const unknown = unknownIdsProblem(photos, groups.flat());
  if (unknown) return unknown;
  const byId = new Map(photos.map((p) => [p.id, p]));
  const segments = groups.flat().filter((id) => byId.get(id)!.is_segment);
  if (segments.length) {
    return `Manual segments keep their own groups and cannot be regrouped (clear the segments or edit their details instead): ${list(segments)}.`;
  }
  const over = groups.findIndex((g) => g.length > maxPerItem);
  if (over !== -1) {
    return `Group ${over + 1} has ${groups[over].length} photos; a group can have at most ${maxPerItem} (MAX_PHOTOS_PER_ITEM).`;
  }
  return null;
}

/**
 * The group_index of every photo after a (valid) regroup: each listed group
 * becomes one group, numbered by its smallest photo index (unique, as photo
 * indices are); every other photo that is not a segment goes back to its own
 * group. Segments keep theirs. Only the photos whose group changes are returned.
 */
export function regroupChanges(photos: Photo[], groups: string[][]): { index: number; group_index: number }[] {
  const byId = new Map(photos.map((p) => [p.id, p]));
  const assigned = new Map<number, number>();
  for (const group of groups) {
    const indices = group.map((id) => byId.get(id)!.index);
    const groupIndex = Math.min(...indices);
    for (const index of indices) assigned.set(index, groupIndex);
  }
  return photos
    .filter((p) => !p.is_segment)
    .map((p) => ({ index: p.index, group_index: assigned.get(p.index) ?? p.index, before: p.group_index }))
    .filter((p) => p.group_index !== p.before)
    .map(({ index, group_index }) => ({ index, group_index }));
}

// ---------------------------------------------------------------------------------------------
// Delete and restore
// ---------------------------------------------------------------------------------------------

/** A photo that could not be read has no JPEG: it can never be restored. */
export function restoreProblem(
  photos: Pick<StagedPhoto, 'id' | 'original_filename' | 'unreadable_reason'>[],
): string | null {
  const unreadable = photos.filter((p) => p.unreadable_reason);
  if (!unreadable.length) return null;
  return `Photos that could not be read cannot be restored: ${list(unreadable.map((p) => `${p.id} (${p.original_filename}: ${p.unreadable_reason})`))}.`;
}

// ---------------------------------------------------------------------------------------------
// Segments
// ---------------------------------------------------------------------------------------------

export interface SegmentItem {
  name: string;
  quantity?: number;
  boxes: SegmentBox[];
}

/** Slack for fractions that add up to 1 in floating point (0.1 + 0.9). */
const EDGE_EPSILON = 1e-9;

/** A box must lie inside the photo (fractions 0..1) and have a positive width and height. */
export function boxProblem(box: SegmentBox): string | null {
  const { x, y, width, height } = box;
  if (![x, y, width, height].every(Number.isFinite)) return 'x, y, width and height must be numbers';
  if (width <= 0 || height <= 0) return 'width and height must be greater than 0';
  if (x < 0 || y < 0 || x > 1 || y > 1) return 'x and y must be fractions of the photo between 0 and 1';
  if (x + width > 1 + EDGE_EPSILON || y + height > 1 + EDGE_EPSILON)
    return 'the box must lie inside the photo (x + width and y + height at most 1)';
  return null;
}

/** Checks a segment request's items (their count and names are the body schema's): 1..maxPerItem boxes each, every box inside the photo with a positive size. */
export function segmentItemsProblem(items: SegmentItem[], maxPerItem: number): string | null {
  for (const [i, item] of items.entries()) {
    if (item.boxes.length === 0) return `Item ${i + 1} has no box; draw at least one.`;
    if (item.boxes.length > maxPerItem) {
      return `Item ${i + 1} has ${item.boxes.length} boxes; an item can have at most ${maxPerItem} (MAX_PHOTOS_PER_ITEM).`;
    }
    for (const [b, box] of item.boxes.entries()) {
      const problem = boxProblem(box);
      if (problem) return `Item ${i + 1}, box ${b + 1}: ${problem}.`;
    }
  }
  return null;
}

/** The photo a segment request is drawn on must be a whole photo of this job that is not deleted. */
export function segmentTargetProblem(
  photo: Pick<StagedPhoto, 'id' | 'is_segment' | 'deleted' | 'unreadable_reason'> | undefined,
  photoId: string,
): string | null {
  if (!photo) return `Not a photo of this job: ${photoId}.`;
  if (photo.is_segment) return `Photo ${photoId} is itself a segment; draw the boxes on the whole photo.`;
  if (photo.unreadable_reason) return `Photo ${photoId} could not be read, so it cannot be segmented.`;
  if (photo.deleted) return `Photo ${photoId} is deleted; restore it before segmenting it.`;
  return null;
}

export interface PlannedSegment {
  index: number;
  group_index: number;
  box: SegmentBox;
  manual_name: string | null;
  quantity: number;
}

/**
 * The new segment rows for `items`, numbered from `firstIndex` in order (items,
 * then their boxes). All boxes of one item share one group, numbered by the
 * item's smallest new index: a multi-box item is one group, one known item.
 */
export function planSegments(items: SegmentItem[], firstIndex: number): PlannedSegment[] {
  const out: PlannedSegment[] = [];
  let next = firstIndex;
  for (const item of items) {
    const groupIndex = next;
    for (const box of item.boxes) {
      out.push({
        index: next++,
        group_index: groupIndex,
        box: { x: box.x, y: box.y, width: box.width, height: box.height },
        manual_name: manualName(item.name),
        quantity: item.quantity ?? 1,
      });
    }
  }
  return out;
}

export const segmentBoxCount = (items: SegmentItem[]) => items.reduce((n, item) => n + item.boxes.length, 0);

/** The segment rows cut from a photo. */
export function segmentsOf<P extends Pick<StagedPhoto, 'is_segment' | 'segment_of'>>(
  photos: P[],
  originalIndex: number,
): P[] {
  return photos.filter((p) => p.is_segment && p.segment_of === originalIndex);
}

export function clearSegmentsProblem(
  photo: Pick<StagedPhoto, 'id' | 'index' | 'is_segment'> | undefined,
  photoId: string,
  photos: Pick<StagedPhoto, 'is_segment' | 'segment_of'>[],
): string | null {
  if (!photo) return `Not a photo of this job: ${photoId}.`;
  if (photo.is_segment) return `Photo ${photoId} is itself a segment; clear the segments of the photo it was cut from.`;
  if (segmentsOf(photos, photo.index).length === 0) return `Photo ${photoId} has no segments to clear.`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Group details
// ---------------------------------------------------------------------------------------------

/**
 * Details are set on one whole group: every id a photo of this job, all in
 * the same group, and every photo that takes part in that group listed.
 * Answers the group's index or the problem.
 */
export function detailsGroup(photos: Photo[], ids: string[]): { group_index: number } | { problem: string } {
  const unknown = unknownIdsProblem(photos, ids);
  if (unknown) return { problem: unknown };
  const byId = new Map(photos.map((p) => [p.id, p]));
  const groups = [...new Set(ids.map((id) => byId.get(id)!.group_index))];
  if (groups.length > 1)
    return { problem: `The photos must all be in one group; these are in ${plural(groups.length, 'group')}.` };
  const listed = new Set(ids);
  const missing = photos
    .filter((p) => p.group_index === groups[0] && isVisiblePhoto(p) && !listed.has(p.id))
    .map((p) => p.id);
  if (missing.length) return { problem: `List the whole group; missing from it: ${list(missing)}.` };
  return { group_index: groups[0] };
}

// ---------------------------------------------------------------------------------------------
// AI requests
// ---------------------------------------------------------------------------------------------

/**
 * The groups that reach the AI, in index order (one photo AI request, one
 * credit each). A group reaches the AI unless every photo in it is deleted or
 * hidden by its segments, or the group is user-described (a non-empty manual
 * name; a named segment skips the AI, a blank-named one does not).
 */
export function aiGroups(
  photos: Pick<StagedPhoto, 'group_index' | 'deleted' | 'hidden_by_segments' | 'manual_name'>[],
): number[] {
  const groups = new Map<number, { visible: boolean; described: boolean }>();
  for (const photo of photos) {
    const group = groups.get(photo.group_index) ?? { visible: false, described: false };
    const visible = isVisiblePhoto(photo);
    if (visible) group.visible = true;
    if (visible && photo.manual_name?.trim()) group.described = true;
    groups.set(photo.group_index, group);
  }
  return [...groups.entries()]
    .filter(([, g]) => g.visible && !g.described)
    .map(([index]) => index)
    .sort((a, b) => a - b);
}
