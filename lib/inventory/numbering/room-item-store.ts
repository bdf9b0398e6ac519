/** A room's items across all of its jobs, read from the room's item index (sorted by item number). */
import { roomIndexes } from '../../rooms/keys';
import { queryAll } from '../../db/query';
import type { InventoryItem } from '../item-record-rules';

/** The room's items by item number; archived ones only when asked for (filtered in the query, not after it). */
export async function listRoomItems(roomId: string, options: { archived: boolean }): Promise<InventoryItem[]> {
  return queryAll<InventoryItem>(roomIndexes.roomItems(roomId), {
    ScanIndexForward: true,
    ...(options.archived
      ? {}
      : {
          FilterExpression: 'attribute_not_exists(is_archived) OR is_archived = :false',
          ExpressionAttributeValues: { ':false': false },
        }),
  });
}
