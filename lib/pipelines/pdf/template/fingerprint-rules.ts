/**
 * A vendor's layout, recognised from what it prints on every page: the
 * running header and footer, column titles, the page-number line. Those lines
 * with their digits masked, plus the page size and the producing software,
 * make the fingerprint a learned recipe is filed under.
 *
 * Learned recipes are shared by every team, and a header often prints the
 * insured's name or the claim number, so what is kept of a layout (the
 * signature) is one hash per masked line, never the line's text. Two imports
 * of one layout share most of those hashes; the lines naming the claim differ
 * and simply do not count.
 */
import { createHash } from 'node:crypto';

/** Fewer repeating lines than this say too little about a layout to file a recipe under. */
export const MIN_SIGNATURE_LINES = 2;

/** A document under this many pages shows nothing repeating. */
const MIN_FINGERPRINT_PAGES = 2;

/** A line repeats when it is on more than this share of the pages. */
const REPEAT_SHARE = 0.5;

/** Two signatures match with at least this many shared lines ... */
const MIN_SHARED_LINES = 3;

/** ... that are at least this share of the smaller signature. */
const MIN_SIGNATURE_OVERLAP = 0.6;

/** What a stored template and a new document are compared on. */
export interface LayoutSignature {
  /** Page size in whole points. */
  pageWidth: number;
  pageHeight: number;
  /** SHA-256 (hex) of each masked repeating line, sorted. */
  signature: string[];
}

export interface DocumentFingerprint extends LayoutSignature {
  /** SHA-256 (hex) of the masked repeating lines, the page size and the producer. */
  hash: string;
  /** False when the document is too short or repeats too little to file a recipe under. */
  cacheable: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** 'Page 3 of 10' → 'Page # of #': every run of digits is one '#', spaces collapsed. */
export function maskDigits(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * The masked lines on more than half of the pages (each page counted once per
 * line), sorted. A line without a letter (a bare page number, a date) says
 * nothing about the layout and is left out.
 */
export function repeatingLines(pages: readonly (readonly string[])[]): string[] {
  const counts = new Map<string, number>();
  for (const lines of pages) {
    for (const line of new Set(lines.map(maskDigits))) {
      if (/\p{L}/u.test(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  }
  return [...counts]
    .filter(([, count]) => count > pages.length * REPEAT_SHARE)
    .map(([line]) => line)
    .sort();
}

/**
 * The fingerprint of a document's inventory pages (`pages`: each page's text
 * lines, in any order). The page size is rounded to whole points; the
 * producer (the PDF's Producer entry, null when absent) has its digits masked
 * too, so a vendor's software update does not change the layout's hash.
 */
export function documentFingerprint(input: {
  pages: readonly (readonly string[])[];
  pageWidth: number;
  pageHeight: number;
  producer: string | null;
}): DocumentFingerprint {
  const lines = repeatingLines(input.pages);
  const pageWidth = Math.round(input.pageWidth);
  const pageHeight = Math.round(input.pageHeight);
  const producer = maskDigits(input.producer ?? '');
  return {
    hash: sha256(JSON.stringify({ lines, pageWidth, pageHeight, producer })),
    pageWidth,
    pageHeight,
    signature: [...new Set(lines.map((line) => sha256(`pdf-layout-line\u0000${line}`)))].sort(),
    cacheable: input.pages.length >= MIN_FINGERPRINT_PAGES && lines.length >= MIN_SIGNATURE_LINES,
  };
}

/** Shared lines over the smaller signature (0 when either is empty). */
function overlap(a: readonly string[], b: readonly string[]): { shared: number; share: number } {
  const other = new Set(b);
  const shared = new Set(a.filter((line) => other.has(line))).size;
  const smaller = Math.min(new Set(a).size, other.size);
  return { shared, share: smaller ? shared / smaller : 0 };
}

/**
 * True when a stored layout and a new document are one layout: the same page
 * size, at least MIN_SHARED_LINES shared lines, and those lines at least
 * MIN_SIGNATURE_OVERLAP of the smaller signature.
 */
export function signaturesMatch(stored: LayoutSignature, candidate: LayoutSignature): boolean {
  if (stored.pageWidth !== candidate.pageWidth || stored.pageHeight !== candidate.pageHeight) return false;
  const { shared, share } = overlap(stored.signature, candidate.signature);
  return shared >= MIN_SHARED_LINES && share >= MIN_SIGNATURE_OVERLAP;
}

/** The stored layout that matches the candidate with the largest overlap (the first of equals), or null. */
export function closestSignature<T extends LayoutSignature>(
  stored: readonly T[],
  candidate: LayoutSignature,
): T | null {
  let best: { template: T; share: number } | null = null;
  for (const template of stored) {
    if (!signaturesMatch(template, candidate)) continue;
    const { share } = overlap(template.signature, candidate.signature);
    if (!best || share > best.share) best = { template, share };
  }
  return best ? best.template : null;
}
