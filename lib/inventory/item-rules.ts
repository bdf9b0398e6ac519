/** Item rules (spec: Processing rules 2 and 3). Pure: no I/O. */
import { createHash } from 'node:crypto';

/** Confidence below this flags an item for review (Processing rules 2). */
export const REVIEW_CONFIDENCE = 0.6;

/** A stable uuid-shaped id from its parts: the same inputs always give the same id. */
export function derivedId(...parts: (string | number)[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Batch keys of a pipeline pass start with this, so a pass's batches can be found again. */
export const passBatchPrefix = (pass: number) => `pass${pass}#`;

/**
 * The labels a contents list printed for an item's photos, as one text:
 * each label once (spaces collapsed, case ignored), in order, joined by '; '.
 * Null when none was printed.
 */
export function joinedSourceLabels(labels: readonly (string | null | undefined)[]): string | null {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const label of labels) {
    const text = label?.replace(/\s+/g, ' ').trim();
    if (!text || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    out.push(text);
  }
  return out.length ? out.join('; ') : null;
}

/** The fields a pipeline or a person gives a new item (the edit fields). */
export interface NewItemFields {
  name: string;
  quantity: number;
  brand?: string | null;
  model?: string | null;
  serial?: string | null;
  sku?: string | null;
  condition?: string | null;
  age?: string | null;
  estimated_price?: number | null;
  damage?: string | null;
  notes?: string | null;
}

/** Where a new item goes: its id, job, the job's room name and its number. */
export interface NewItemPlace {
  id: string;
  job: { id: string; room_id: string; claim_id: string; team_id: string };
  roomName: string | null;
  itemNumber: number;
  now: Date;
}

/** Where a new item came from: the model's confidence and evidence, or a person. */
export interface NewItemOrigin {
  confidence: number;
  evidence: string | null;
  reviewed: boolean;
  /** The pass that made it (0 for a person). */
  created_pass: number;
  source_group_index: number | null;
  /** The label(s) a contents list printed for its photos; none when absent. */
  source_label?: string | null;
  photo_path: string | null;
  /** The room name; the job's room when absent. */
  room?: string | null;
}

/**
 * A new item record, neither approved nor archived nor sent. Confidence is
 * clamped to 0..1 and below 0.6 flags it for review. (Its type is the
 * InventoryItem record of item-store.ts, which builds its items with this:
 * that module checks the shape, so this one need not import it.)
 */
export function buildItem(fields: NewItemFields, at: NewItemPlace, origin: NewItemOrigin) {
  const confidence = Math.min(1, Math.max(0, origin.confidence));
  const now = at.now.toISOString();
  return {
    id: at.id,
    job_id: at.job.id,
    room_id: at.job.room_id,
    claim_id: at.job.claim_id,
    team_id: at.job.team_id,
    item_number: at.itemNumber,
    name: fields.name,
    quantity: fields.quantity,
    brand: fields.brand ?? null,
    model: fields.model ?? null,
    serial: fields.serial ?? null,
    sku: fields.sku ?? null,
    condition: fields.condition ?? null,
    age: fields.age ?? null,
    estimated_price: fields.estimated_price ?? null,
    damage: fields.damage ?? null,
    notes: fields.notes ?? null,
    room: origin.room === undefined ? at.roomName : origin.room,
    confidence,
    evidence: origin.evidence,
    needs_review: confidence < REVIEW_CONFIDENCE,
    reviewed: origin.reviewed,
    approved: false,
    is_archived: false,
    archived_at: null,
    claims_platform_submitted_at: null,
    estimation_sent_at: null,
    photo_path: origin.photo_path,
    created_pass: origin.created_pass,
    source_group_index: origin.source_group_index,
    source_label: origin.source_label ?? null,
    created_at: now,
    updated_at: now,
    rev: 0,
  };
}
