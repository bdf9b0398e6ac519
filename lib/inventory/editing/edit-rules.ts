/**
 * Item editing rules (spec: Inventory; States > Other lifecycles; Settings >
 * auto-approval): what an edit, archive, approval or bulk patch writes, what
 * it records for its undo, and how the activity feed names it. Pure: no I/O.
 */
import type { AutoApproveRules } from '../../settings/automation-schemas';
import { shouldAutoApprove } from './auto-approval-rules';
import type { ItemPatchInput } from './edit-schemas';
import type { InventoryItem } from '../item-record-rules';

export const ITEM_SUBMITTED_NOT_ARCHIVABLE = 'This item has been submitted and cannot be archived.';

/** The fields a person edits (PUT and bulk). */
const EDITABLE_FIELDS = [
  'name',
  'quantity',
  'brand',
  'model',
  'serial',
  'sku',
  'condition',
  'age',
  'damage',
  'notes',
  'room',
  'estimated_price',
] as const;

/** Every field an undo may put back: the editable ones and the review and archive state. */
const RESTORABLE_FIELDS: readonly string[] = [
  ...EDITABLE_FIELDS,
  'reviewed',
  'approved',
  'needs_review',
  'is_archived',
  'archived_at',
];

type EditableField = (typeof EDITABLE_FIELDS)[number];
export type ItemEdit = Partial<Pick<InventoryItem, EditableField>>;

/** Values an undo writes back, keyed by field. */
export type ItemValues = Partial<Record<keyof InventoryItem, unknown>>;

/** A planned write to one item: the new values and the values they replace. */
export interface ItemChange {
  fields: ItemValues;
  before: ItemValues;
}

/** The body of PUT or of a bulk patch as item fields (`title` is the name). */
export function itemEditOf(body: ItemPatchInput): ItemEdit {
  const { title, ...rest } = body;
  const edit: ItemEdit = {};
  for (const field of EDITABLE_FIELDS) if (rest[field] !== undefined) Object.assign(edit, { [field]: rest[field] });
  if (title !== undefined) edit.name = title;
  return edit;
}

/** The change `values` make to `item`: only the fields whose value differs; null when nothing would change. */
function changeOf(item: InventoryItem, values: ItemValues): ItemChange | null {
  const changed = Object.keys(values).filter(
    (f) => values[f as keyof InventoryItem] !== (item[f as keyof InventoryItem] ?? null),
  ) as (keyof InventoryItem)[];
  if (!changed.length) return null;
  return {
    fields: Object.fromEntries(changed.map((f) => [f, values[f]])),
    before: Object.fromEntries(changed.map((f) => [f, item[f] ?? null])),
  };
}

/** An edit marks the item reviewed. Null when the item already carries every value. */
export function editChangeOf(item: InventoryItem, edit: ItemEdit): ItemChange | null {
  return changeOf(item, { ...edit, reviewed: true });
}

/** The activity label of an edit: which fields it changed. */
export function editLabelOf(change: ItemChange): string {
  const fields = Object.keys(change.fields).filter((f) => f !== 'reviewed');
  return fields.length ? `Edited item (${fields.join(', ')})` : 'Marked item reviewed';
}

/** Why an item cannot be archived, or null. */
export function archiveProblemOf(item: Pick<InventoryItem, 'claims_platform_submitted_at'>): string | null {
  return item.claims_platform_submitted_at ? ITEM_SUBMITTED_NOT_ARCHIVABLE : null;
}

/** Archive (at `archivedAt`) or unarchive; null when the item is already in that state. */
export function archiveChangeOf(item: InventoryItem, archived: boolean, archivedAt: string): ItemChange | null {
  if (Boolean(item.is_archived) === archived) return null;
  return changeOf(item, { is_archived: archived, archived_at: archived ? archivedAt : null });
}

/** Approve or unapprove, flag or clear the flag; null when nothing changes. */
export function approvalChangeOf(
  item: InventoryItem,
  wanted: { approved?: boolean; needs_review?: boolean },
): ItemChange | null {
  const values: ItemValues = {};
  if (wanted.approved !== undefined) values.approved = wanted.approved;
  if (wanted.needs_review !== undefined) values.needs_review = wanted.needs_review;
  return changeOf(item, values);
}

/** How the feed names an approval change. */
export function approvalLabelOf(change: ItemChange): string {
  const parts: string[] = [];
  if ('approved' in change.fields) parts.push(change.fields.approved ? 'Approved item' : 'Unapproved item');
  if ('needs_review' in change.fields)
    parts.push(change.fields.needs_review ? 'flagged it for review' : 'cleared its review flag');
  const label = parts.join(', ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** How the feed names one item: 'Item #<number> <name>'. */
export const itemTargetOf = (item: Pick<InventoryItem, 'item_number' | 'name'>) =>
  `Item #${item.item_number} ${item.name}`;

const TARGET_NUMBERS_SHOWN = 10;

/** How the feed names several items: 'Items #1, #2, #5' (the first ten, then how many more). */
export function itemsTargetOf(items: Pick<InventoryItem, 'item_number'>[]): string {
  const numbers = items.map((i) => i.item_number).sort((a, b) => a - b);
  const shown = numbers.slice(0, TARGET_NUMBERS_SHOWN).map((n) => `#${n}`);
  const more = numbers.length - shown.length;
  return `Items ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * A bulk patch: submitted items are skipped, items already carrying every
 * value need no write (they count as updated), the rest get a change.
 */
export function bulkPlanOf(items: InventoryItem[], edit: ItemEdit) {
  const skipped: string[] = [];
  const unchanged: string[] = [];
  const changes: { item: InventoryItem; change: ItemChange }[] = [];
  for (const item of items) {
    if (item.claims_platform_submitted_at) {
      skipped.push(item.id);
      continue;
    }
    const change = editChangeOf(item, edit);
    if (change) changes.push({ item, change });
    else unchanged.push(item.id);
  }
  return { skipped, unchanged, changes };
}

/** The largest undo snapshot stored with one activity entry (an entry must stay well under 400 KB). */
export const MAX_SNAPSHOT_BYTES = 300_000;

/** Whether the befores of a multi-item action fit in one activity entry. */
export function snapshotFits(befores: { id: string; before: ItemValues }[]): boolean {
  return Buffer.byteLength(JSON.stringify(befores)) <= MAX_SNAPSHOT_BYTES;
}

/** The job's items the team's rules approve now: unapproved, not archived, passing the rules. */
export function autoApprovalPicksOf(items: InventoryItem[], rules: AutoApproveRules | null): InventoryItem[] {
  return items.filter((item) => !item.is_archived && shouldAutoApprove(item, rules));
}

/** An item's revision (a row never written since it was made has none: 0). */
export const revisionOf = (item: Pick<InventoryItem, 'rev'>) => item.rev ?? 0;

/** The undo record of a one-item action: the values before it and the revision it left the item at. */
export interface ItemSnapshot {
  before: ItemValues;
  rev: number;
}

function beforeOf(value: unknown): ItemValues | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  // Only fields an action may write are put back, whatever else the record holds.
  return Object.fromEntries(Object.entries(value).filter(([k]) => RESTORABLE_FIELDS.includes(k))) as ItemValues;
}

/** Reads a one-item undo record; null when it is not one. */
export function itemSnapshotOf(snapshot: Record<string, unknown> | null): ItemSnapshot | null {
  const before = beforeOf(snapshot?.before);
  const rev = snapshot?.rev;
  if (!before || typeof rev !== 'number') return null;
  return { before, rev };
}

/** Reads a multi-item undo record ({items: [{id, before, rev}]}); null when it is not one. */
export function itemsSnapshotOf(snapshot: Record<string, unknown> | null): (ItemSnapshot & { id: string })[] | null {
  const items = snapshot?.items;
  if (!Array.isArray(items) || !items.length) return null;
  const parsed = items.map((entry) => {
    const one = itemSnapshotOf(entry);
    const id = (entry as { id?: unknown } | null)?.id;
    return one && typeof id === 'string' ? { id, ...one } : null;
  });
  return parsed.every((p) => p !== null) ? (parsed as (ItemSnapshot & { id: string })[]) : null;
}
