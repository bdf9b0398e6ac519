/** The shapes of InventoryItem and ItemPhoto records (spec: Resources > InventoryItem, ItemPhoto) and of an item a pipeline wants saved. Reads and writes are in item-store.ts. */
import type { NewItemFields } from './item-rules';

export interface InventoryItem {
  id: string;
  job_id: string;
  room_id: string;
  claim_id: string;
  team_id: string;
  item_number: number;
  name: string;
  quantity: number;
  brand: string | null;
  model: string | null;
  serial: string | null;
  sku: string | null;
  condition: string | null;
  age: string | null;
  estimated_price: number | null;
  damage: string | null;
  notes: string | null;
  /** The room name the item was found in (the job's room). */
  room: string | null;
  confidence: number;
  evidence: string | null;
  needs_review: boolean;
  reviewed: boolean;
  approved: boolean;
  is_archived: boolean;
  archived_at: string | null;
  claims_platform_submitted_at: string | null;
  estimation_sent_at: string | null;
  /** Path of the primary photo (copied from the primary ItemPhoto). */
  photo_path: string | null;
  /** Which processing pass made it (1 = the first run, 2.. = read-the-rest passes); 0 for manual items. */
  created_pass: number;
  /** The staged-photo group it came from. */
  source_group_index: number | null;
  /** The label(s) the contents list printed for its photos ('Item 0018'), null when none (absent on older rows). */
  source_label?: string | null;
  created_at: string;
  updated_at: string;
  /** Revision, bumped by every write (absent on rows never edited: 0). */
  rev?: number;
}

export interface ItemPhoto {
  id: string;
  item_id: string;
  /** The stored photo's file name within its job (served by GET /api/photos/{job_id}/{filename}). */
  filename: string;
  job_id: string;
  /** Object key of the JPEG. */
  key: string;
  is_primary: boolean;
  ordering: number;
}

/** An item a pipeline wants saved: everything but identity, numbering and flags. */
export interface ItemDraft extends NewItemFields {
  confidence: number;
  evidence?: string | null;
  source_group_index: number | null;
  /** The label(s) a contents list printed for the photos it was made from. */
  source_label?: string | null;
  /** Photos in order; the first is primary. */
  photos: { filename: string; key: string }[];
}
