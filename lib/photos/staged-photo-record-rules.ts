/** The shape of a StagedPhoto record (spec: Resources > StagedPhoto). Reads and writes are in staged-photo-store.ts. */

/** A user-drawn box: fractions (0..1) of the upright photo's width and height. */
export interface SegmentBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface StagedPhoto {
  id: string;
  job_id: string;
  /** The orig number: orig_{index}.jpg. */
  index: number;
  /** Synthetic stored name, e.g. orig_0001.jpg. */
  filename: string;
  /** Object key of the upright JPEG. */
  key: string;
  /** Object key the browser uploaded the original to (deleted once re-encoded). A segment has no upload: its own key. */
  incoming_key: string;
  /**
   * The original is someone else's object, used where it lies: a homeowner's upload a submit staged without
   * copying it (lib/insured/submit-round-service.ts). It is the link's file, so it is never deleted with the photo.
   */
  original_kept?: boolean;
  /** The real name behind the synthetic one. */
  original_filename: string;
  /** 'YYYY-MM-DDTHH:MM:SS': EXIF date once re-encoded, the browser's date until then (or when EXIF has none). */
  captured_at: string | null;
  group_index: number;
  /** A crop of another photo made by the segment endpoint (spec: Photo pipeline 7). */
  is_segment: boolean;
  /** Segments: the index of the photo they were cut from. */
  segment_of: number | null;
  /** Segments: the box they were cut from. */
  crop: SegmentBox | null;
  /** The photo has segments, so it no longer forms its own group (not the user's `deleted`). */
  hidden_by_segments: boolean;
  manual_name: string | null;
  quantity: number | null;
  /** Soft delete. */
  deleted: boolean;
  /** Set when the bytes could not be decoded; such a photo is deleted and has no JPEG, so it must never be restored. */
  unreadable_reason: string | null;
  /** True once the upright JPEG is at `key`. */
  normalized: boolean;
  width: number | null;
  height: number | null;
  /** Bytes of the upload until re-encoded, then of the stored JPEG. */
  size_bytes: number;
  source_description: string | null;
  source_item_key: string | null;
  /** PDF-sourced: the item's label as the contents list prints it ('Item 0018'); null when it prints none. */
  source_label: string | null;
  source_room: string | null;
  created_at: string;
  updated_at: string;
}
