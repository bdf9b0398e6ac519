/**
 * How many photo AI requests a job makes (spec: Limits, Photo: one credit per
 * group that reaches the AI). A group reaches the AI unless every photo in it
 * is deleted or hidden by its segments, or the group is user-described (a
 * non-empty manual name; a named segment skips the AI, a blank-named one does not).
 */
import { isVisiblePhoto } from './grouping';
import { listStagedPhotos, type StagedPhoto } from './staged-photo';

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

export async function countPhotoAiRequests(jobId: string): Promise<number> {
  return aiGroups(await listStagedPhotos(jobId)).length;
}
