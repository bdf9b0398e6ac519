/**
 * Which items an export holds and how each becomes a row: archived items are
 * always left out, approved_only keeps approved items only, and items come in
 * item-number order, grouped by room. The same columns serve the CSV and each
 * room sheet of the workbook.
 */
import type { InventoryItem } from '../inventory/item-record-rules';

/** The item fields an export reads. */
export type ExportItem = Pick<
  InventoryItem,
  | 'id'
  | 'room_id'
  | 'item_number'
  | 'name'
  | 'quantity'
  | 'brand'
  | 'model'
  | 'serial'
  | 'sku'
  | 'condition'
  | 'age'
  | 'estimated_price'
  | 'damage'
  | 'notes'
  | 'source_label'
  | 'room'
  | 'confidence'
  | 'reviewed'
  | 'approved'
  | 'is_archived'
>;

export function selectExportItems<T extends ExportItem>(items: T[], options: { approvedOnly: boolean }): T[] {
  return items
    .filter((item) => !item.is_archived && (!options.approvedOnly || item.approved))
    .sort((a, b) => a.item_number - b.item_number);
}

export type Cell = string | number | null;

interface Column {
  header: string;
  /** Width in characters on an Excel sheet. */
  width: number;
  value: (item: ExportItem, roomName: string) => Cell;
}

const yesNo = (flag: boolean) => (flag ? 'Yes' : 'No');

/** The export columns, in order. Prices and quantities stay numbers; Approved and Reviewed read Yes/No. */
export const EXPORT_COLUMNS: Column[] = [
  { header: 'Item #', width: 8, value: (i) => i.item_number },
  { header: 'Room', width: 18, value: (_, room) => room },
  { header: 'Name', width: 36, value: (i) => i.name },
  { header: 'Quantity', width: 10, value: (i) => i.quantity },
  { header: 'Brand', width: 16, value: (i) => i.brand },
  { header: 'Model', width: 16, value: (i) => i.model },
  { header: 'Serial', width: 16, value: (i) => i.serial },
  { header: 'SKU', width: 14, value: (i) => i.sku },
  { header: 'Condition', width: 12, value: (i) => i.condition },
  { header: 'Age', width: 10, value: (i) => i.age },
  { header: 'Estimated price', width: 15, value: (i) => i.estimated_price },
  { header: 'Damage', width: 24, value: (i) => i.damage },
  { header: 'Notes', width: 36, value: (i) => i.notes },
  // The contents list's own label ('Item 0018'), so each row can be matched to the vendor's line.
  { header: 'Source label', width: 18, value: (i) => i.source_label ?? null },
  { header: 'Approved', width: 10, value: (i) => yesNo(i.approved) },
  { header: 'Reviewed', width: 10, value: (i) => yesNo(i.reviewed) },
  { header: 'Confidence', width: 11, value: (i) => Math.round(i.confidence * 100) / 100 },
];

/** Where the item name sits in a row (the cell that links to the item's photo). */
export const NAME_COLUMN = EXPORT_COLUMNS.findIndex((c) => c.header === 'Name');

/** One item's cells, in column order, texts exactly as written (each file keeps them from being run as formulas). */
export function itemCells(item: ExportItem, roomName: string): Cell[] {
  return EXPORT_COLUMNS.map((column) => column.value(item, roomName));
}

/** Quantity times estimated price, or null when the item has no price. */
export function lineValue(item: Pick<ExportItem, 'quantity' | 'estimated_price'>): number | null {
  return item.estimated_price === null ? null : Math.round(item.quantity * item.estimated_price * 100) / 100;
}

export interface Totals {
  items: number;
  quantity: number;
  /** Sum of quantity × estimated price over the priced items. */
  value: number;
}

export function exportTotals(items: Pick<ExportItem, 'quantity' | 'estimated_price'>[]): Totals {
  let quantity = 0;
  let cents = 0;
  for (const item of items) {
    quantity += item.quantity;
    cents += Math.round((lineValue(item) ?? 0) * 100);
  }
  return { items: items.length, quantity, value: cents / 100 };
}

export interface RoomGroup<T> {
  roomId: string;
  name: string;
  items: T[];
}

/**
 * The items grouped by room: the export's rooms in their order (empty ones included), then any room
 * an item names that is not among them (an item moved elsewhere), under the item's room name.
 */
export function groupByRoom<T extends ExportItem>(rooms: { id: string; name: string }[], items: T[]): RoomGroup<T>[] {
  const groups = new Map<string, RoomGroup<T>>(rooms.map((r) => [r.id, { roomId: r.id, name: r.name, items: [] }]));
  for (const item of items) {
    let group = groups.get(item.room_id);
    if (!group) {
      group = { roomId: item.room_id, name: item.room ?? 'Unassigned', items: [] };
      groups.set(item.room_id, group);
    }
    group.items.push(item);
  }
  return [...groups.values()];
}

/** Everything a file is made from: the claim's header, the scope, and the selected items by room. */
export interface ExportContent<T extends ExportItem = ExportItem> {
  claim: {
    claim_number: string;
    insured_name: string | null;
    adjuster_name: string | null;
    loss_type: string | null;
  };
  /** What the export covers, in words ("Whole claim", "Room: Kitchen", "Job 1a2b3c4d in Kitchen"). */
  scopeLabel: string;
  approvedOnly: boolean;
  generatedAt: Date;
  rooms: RoomGroup<T>[];
}

/** The selected items of every room, in room order. */
export function contentItems<T extends ExportItem>(content: ExportContent<T>): T[] {
  return content.rooms.flatMap((r) => r.items);
}
