/** Item records for unit tests of the item rules: a plain, unapproved item unless told otherwise. */
import { buildItem } from '../../lib/inventory/item-rules';
import type { InventoryItem } from '../../lib/inventory/item-record-rules';

let seq = 0;

/** A new item record (numbered in creation order, ids uuid-shaped) with `over` applied. */
export function itemRecord(over: Partial<InventoryItem> = {}): InventoryItem {
  seq += 1;
  const made = buildItem(
    { name: 'Sofa', quantity: 1 },
    {
      id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
      job: { id: 'job', room_id: 'room', claim_id: 'claim', team_id: 'team' },
      roomName: 'Living room',
      itemNumber: seq,
      now: new Date('2024-01-01T00:00:00.000Z'),
    },
    { confidence: 0.9, evidence: null, reviewed: false, created_pass: 1, source_group_index: 0, photo_path: null },
  );
  return { ...made, ...over };
}
