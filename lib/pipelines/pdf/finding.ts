/**
 * One photo an executor found in a contents list, before its bytes are
 * taken out of the document: where it is, and what the document says about
 * it. The grouping rules (group/grouping-rules.ts) then give it a group.
 */
import type { PdfBox } from '../../pdf/layout';

type FindingSource =
  /** An embedded image, taken out as it is stored (JPEG bytes kept). */
  | { kind: 'embedded'; imageId: string }
  /** A region of the rendered page (page_image: a box the AI marked). */
  | { kind: 'region'; box: PdfBox }
  /** The whole rendered page (page_image when the AI could not be asked). */
  | { kind: 'page' };

export interface PdfPhotoFinding {
  /** 1-based page number. */
  page: number;
  source: FindingSource;
  /** The item's label as printed (card_grid: on or under the photo; header_runs: the heading). */
  label: string | null;
  /** The caption: the photo's description lines joined with spaces, the leading 'N x' kept. */
  description: string | null;
  /** From a leading 'N x' on the caption; null when there is none. */
  quantity: number | null;
  /** The room the document files it under (room_pattern group 1), as printed. */
  room: string | null;
  /** A printed date, normalized to YYYY-MM-DDTHH:MM:SS. */
  capturedAt: string | null;
}
