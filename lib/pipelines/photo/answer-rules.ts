/**
 * Reading the vision model's answer for a photo group: lenient parsing of
 * each item, and the item drafts a group's answer becomes.
 */
import { joinedSourceLabels } from '../../inventory/item-rules';
import type { ItemDraft } from '../../inventory/item-record-rules';
import { modelItem, type ModelItem } from './answer-schemas';

/**
 * Reads one raw item of an answer leniently (models put numbers in strings,
 * omit nullable fields or send quantity 0): null when it has no usable name.
 */
export function readModelItem(raw: unknown): ModelItem | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : typeof v === 'number' ? String(v) : null;
  const num = (v: unknown) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.replace(/[$,\s]/g, '')) : NaN;
    return Number.isFinite(n) ? n : null;
  };
  const name = str(r.name, 200);
  if (!name) return null;
  const quantity = num(r.quantity);
  const confidence = num(r.confidence);
  const price = num(r.estimated_price);
  const parsed = modelItem.safeParse({
    name,
    quantity: quantity !== null && quantity >= 1 ? Math.min(10_000, Math.round(quantity)) : 1,
    brand: str(r.brand, 120),
    model: str(r.model, 120),
    serial: str(r.serial, 120),
    sku: str(r.sku, 120),
    condition: str(r.condition, 200),
    age: str(r.age, 60),
    estimated_price: price !== null && price >= 0 ? price : null,
    damage: str(r.damage, 1000),
    notes: str(r.notes, 1000),
    confidence: confidence === null ? 0.5 : Math.min(1, Math.max(0, confidence)),
    evidence: str(r.evidence, 1000),
  });
  return parsed.success ? parsed.data : null;
}

/** The line a source note leaves in an item's notes (spec: Photo pipeline 8). */
export function sourceNoteLine(notes: string[]): string | null {
  return notes.length ? `From the source PDF: ${notes.join('; ')}` : null;
}

export function draftFromModel(
  item: ModelItem,
  group: {
    group_index: number;
    photos: { filename: string; key: string }[];
    notes: string[];
    labels?: string[];
    quantity: number | null;
  },
): ItemDraft {
  const notes = [item.notes, sourceNoteLine(group.notes)].filter(Boolean).join('\n') || null;
  return {
    name: item.name,
    // A user's quantity (a segment's) overrides the model's count.
    quantity: group.quantity ?? item.quantity,
    brand: item.brand,
    model: item.model,
    serial: item.serial,
    sku: item.sku,
    condition: item.condition,
    age: item.age,
    estimated_price: item.estimated_price,
    damage: item.damage,
    notes,
    confidence: item.confidence,
    evidence: item.evidence,
    source_group_index: group.group_index,
    source_label: joinedSourceLabels(group.labels ?? []),
    photos: group.photos,
  };
}

/** A merged group or segment always yields one item, even when the model found none. */
const UNIDENTIFIED_ITEM = 'Unidentified item';

/** The one item a merged group or segment gets when the model returned none. */
export function unidentifiedItem(): ModelItem {
  return {
    name: UNIDENTIFIED_ITEM,
    quantity: 1,
    brand: null,
    model: null,
    serial: null,
    sku: null,
    condition: null,
    age: null,
    estimated_price: null,
    damage: null,
    notes: null,
    confidence: 0,
    evidence: null,
  };
}
