/** The shapes of the homeowner's draft rows (spec: Other records > Insured draft rows): files and typed rows. Reads and writes are in draft-store.ts. */
import type { DraftFileKind } from './draft-rules';

export type DraftFileStatus = 'pending' | 'open' | 'completing' | 'ready' | 'aborted' | 'expired';

export interface DraftFile {
  id: string;
  link_id: string;
  kind: DraftFileKind;
  /** The room of a room's file; null for a typed row's photo. */
  room_id: string | null;
  /** The typed row a photo belongs to (never sent to the AI); null for a room's file. */
  item_id: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  /** The homeowner's note on a room's photo: the source note the AI reads. */
  note: string | null;
  key: string;
  /**
   * pending: a photo whose presigned POST was issued; open, completing: a
   * chunked upload on its way; ready: its bytes are in the bucket; aborted,
   * expired: a chunked upload that never completed.
   */
  status: DraftFileStatus;
  s3_upload_id: string | null;
  chunk_size: number | null;
  part_count: number | null;
  /** The submit that took it (1, 2, ...), or null while it is the homeowner's. */
  round: number | null;
  /** The job it went to at submit. */
  job_id: string | null;
  thumb_key: string | null;
  created_at: string;
  updated_at: string;
}

/** A row the homeowner typed; it becomes an item at submit. */
export interface DraftItem {
  id: string;
  link_id: string;
  room_id: string;
  name: string;
  quantity: number;
  brand: string | null;
  model: string | null;
  age: string | null;
  estimated_price: number | null;
  notes: string | null;
  round: number | null;
  /** The job it went to at submit (its items are the round's rows of its room, in the order they were typed). */
  job_id: string | null;
  created_at: string;
  updated_at: string;
}
