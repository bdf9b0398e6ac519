/**
 * What the PDF reader (./reader.ts) tells the import about a page, in PDF
 * points with the origin at the page's top-left corner (y grows downwards),
 * so "above" means a smaller y. The import's rules (lib/pipelines/pdf) work
 * on these shapes only and never touch the document.
 */

/** One run of text as the document draws it (a word or a few words; never split here). */
export interface PdfText {
  str: string;
  /** Left edge. */
  x: number;
  /** Top edge of the text's box (baseline minus the font's height). */
  y: number;
  width: number;
  height: number;
}

/** One drawing of an embedded image on the page. */
export interface PdfImagePlacement {
  /**
   * The image's identity in the document (its object number, e.g. "12 0 R"):
   * the same logo drawn on every page has the same id on every page.
   */
  id: string;
  /** The box it is drawn in, in points (top-left origin). */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The image's own pixel size. */
  pixelWidth: number;
  pixelHeight: number;
  /** True when the image is stored as a JPEG (DCT), whose bytes can be kept as they are. */
  jpeg: boolean;
  /**
   * Where the photo's JPEG lies in the document's own bytes, when its stored
   * bytes are the photo as they are (a DCT image in RGB or grey): the import
   * reads just these bytes instead of opening the document again. Null for
   * any other image (and absent on layouts recorded before it existed).
   */
  jpegRange?: { offset: number; length: number } | null;
  /**
   * SHA-256 (base64url) of the image's stream as stored (not decoded): the
   * same picture embedded anew on every page has the same hash under
   * different ids. Absent on layouts recorded before it existed.
   */
  contentHash?: string;
  /** Length of the image's stream as stored, in bytes (absent on layouts recorded before it existed). */
  storedBytes?: number;
}

export interface PdfPageLayout {
  /** 1-based page number. */
  page: number;
  /** Page size in points (after the page's rotation). */
  width: number;
  height: number;
  texts: PdfText[];
  images: PdfImagePlacement[];
}

/** Why a file could not be read as a PDF at all. */
export type PdfUnreadableKind = 'not_pdf' | 'corrupt' | 'encrypted' | 'empty' | 'too_large';

/** A rectangle on a page, in points (top-left origin). */
export interface PdfBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
