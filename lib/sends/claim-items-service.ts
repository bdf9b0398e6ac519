/**
 * What a send reads of a claim: its active items (not archived, in rooms not
 * archived) with their photo rows, room by room in item-number order.
 */
import { type InventoryItem, type ItemPhoto, listItemPhotos } from '../inventory/item-store';
import { listRoomItems } from '../inventory/room-item-store';
import { listClaimRooms } from '../rooms/store';

/** Photo rows are read this many items at a time. */
const PHOTO_READS_AT_ONCE = 25;

export async function listActiveClaimItems(claimId: string): Promise<InventoryItem[]> {
  const rooms = await listClaimRooms(claimId, false);
  const perRoom = await Promise.all(rooms.map((room) => listRoomItems(room.id, { archived: false })));
  return perRoom.flat().filter((item) => !item.is_archived);
}

/** Each item's photo rows, by item id. */
export async function loadItemPhotos(items: Pick<InventoryItem, 'id'>[]): Promise<Map<string, ItemPhoto[]>> {
  const photos = new Map<string, ItemPhoto[]>();
  for (let start = 0; start < items.length; start += PHOTO_READS_AT_ONCE) {
    const slice = items.slice(start, start + PHOTO_READS_AT_ONCE);
    const rows = await Promise.all(slice.map((item) => listItemPhotos(item.id)));
    for (const [i, item] of slice.entries()) photos.set(item.id, rows[i]);
  }
  return photos;
}
