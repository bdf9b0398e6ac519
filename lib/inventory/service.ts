/** Inventory lists (spec: Inventory GET /api/inventory/{job_id}; Rooms GET /api/rooms/{room_id}/inventory). */
import type { Identity } from '../auth/identity-rules';
import { loadJobForTeam } from '../jobs/access-service';
import { loadRoomForTeam } from '../rooms/access-service';
import { listItemPhotos, listJobItems } from './item-store';
import type { InventoryItem } from './item-record-rules';
import { listRoomItems } from './numbering/room-item-store';
import { itemView } from './view';

/** Photo partitions read at once: each item's photos are one Query. */
const PHOTO_READS_IN_FLIGHT = 16;

/** The items as the API shows them, each with its photos, in the order given. */
async function listItemsWithPhotos(items: InventoryItem[]): Promise<ReturnType<typeof itemView>[]> {
  const views: ReturnType<typeof itemView>[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PHOTO_READS_IN_FLIGHT, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        views[i] = itemView(items[i], await listItemPhotos(items[i].id));
      }
    }),
  );
  return views;
}

/** GET /api/inventory/{job_id}: the job's items with their photos, by item number; archived items only when asked for. */
export async function listInventory(identity: Identity, jobId: string, options: { archived: boolean }) {
  const job = await loadJobForTeam(identity, jobId);
  return listItemsWithPhotos((await listJobItems(job.id)).filter((item) => options.archived || !item.is_archived));
}

/** GET /api/rooms/{room_id}/inventory: the room's items across its jobs, by item number; archived only when asked for. */
export async function listRoomInventory(identity: Identity, roomId: string, options: { archived: boolean }) {
  const room = await loadRoomForTeam(identity, roomId);
  return listItemsWithPhotos(await listRoomItems(room.id, options));
}
