/**
 * What a send reads of a claim: its active items (not archived, in rooms not
 * archived) with their photo rows, room by room in item-number order.
 */
import pLimit from 'p-limit';
import { listItemPhotos } from '../inventory/item-store';
import type { InventoryItem, ItemPhoto } from '../inventory/item-record-rules';
import { listRoomItems } from '../inventory/numbering/room-item-store';
import { listClaimRooms } from '../rooms/store';

/** Photo rows read at once. */
const PHOTO_READS_AT_ONCE = 25;

export async function listActiveClaimItems(claimId: string): Promise<InventoryItem[]> {
  const rooms = await listClaimRooms(claimId, false);
  const perRoom = await Promise.all(rooms.map((room) => listRoomItems(room.id, { archived: false })));
  return perRoom.flat();
}

/** Each item's photo rows, by item id. */
export async function loadItemPhotos(items: Pick<InventoryItem, 'id'>[]): Promise<Map<string, ItemPhoto[]>> {
  const limit = pLimit(PHOTO_READS_AT_ONCE);
  const rows = await Promise.all(items.map((item) => limit(() => listItemPhotos(item.id))));
  return new Map(items.map((item, i) => [item.id, rows[i]]));
}
