/**
 * Per-room counts for room lists (spec: Room — video, photo, audio, items,
 * submitted; item counts exclude archived items).
 */
import { jobIndexes } from '../jobs/keys';
import { roomIndexes } from './keys';
import { queryAll } from '../db/query';

/** The claims platform "submitted" marker on an item. */
const ITEM_SUBMITTED_FIELD = 'claims_platform_submitted_at';

export interface RoomCounts {
  video: number;
  photo: number;
  audio: number;
  items: number;
  submitted: number;
  unsubmitted: number;
}

export async function roomCounts(roomId: string): Promise<RoomCounts> {
  const [jobs, items] = await Promise.all([
    queryAll<{ source_type: string }>(jobIndexes.roomJobs(roomId), { ProjectionExpression: 'source_type' }),
    queryAll<{ is_archived?: boolean; [ITEM_SUBMITTED_FIELD]?: string | null }>(roomIndexes.roomItems(roomId), {
      ProjectionExpression: `is_archived, ${ITEM_SUBMITTED_FIELD}`,
    }),
  ]);
  const active = items.filter((i) => !i.is_archived);
  const submitted = active.filter((i) => Boolean(i[ITEM_SUBMITTED_FIELD])).length;
  return {
    video: jobs.filter((j) => j.source_type === 'video').length,
    photo: jobs.filter((j) => j.source_type === 'photo').length,
    audio: jobs.filter((j) => j.source_type === 'audio').length,
    items: active.length,
    submitted,
    unsubmitted: active.length - submitted,
  };
}

/** Whether any item in the room (archived or not) has been submitted: such a room cannot be archived. */
export async function roomHasSubmittedItem(roomId: string): Promise<boolean> {
  const submitted = await queryAll(roomIndexes.roomItems(roomId), {
    FilterExpression: `attribute_exists(${ITEM_SUBMITTED_FIELD}) AND ${ITEM_SUBMITTED_FIELD} <> :null`,
    ExpressionAttributeValues: { ':null': null },
    ProjectionExpression: 'id',
  });
  return submitted.length > 0;
}

/** Live item counts per job of a room, archived items excluded (current_item_count). */
export async function roomItemCountByJob(roomId: string): Promise<Map<string, number>> {
  const items = await queryAll<{ job_id: string; is_archived?: boolean }>(roomIndexes.roomItems(roomId), {
    ProjectionExpression: 'job_id, is_archived',
  });
  const counts = new Map<string, number>();
  for (const item of items) if (!item.is_archived) counts.set(item.job_id, (counts.get(item.job_id) ?? 0) + 1);
  return counts;
}
