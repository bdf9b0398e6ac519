/**
 * Whether a contents list was read well enough. A poor read is reported to
 * support with the document (the user keeps whatever was found either way),
 * so a vendor layout the import handles badly gets looked at.
 */
import { plural } from '../../../text';

export interface ExtractionSummary {
  /** What the read raised, when it stopped on an error. */
  error?: string;
  /** Photos found. */
  photos: number;
  /** Pages the read went through. */
  pagesRead: number;
  /** Photos that are a whole rendered page (page_image kept the page). */
  wholePageImages: number;
  /** True when the document has a text layer (text was found on its pages). */
  hasTextLayer: boolean;
  /** Photos with neither a label nor a description. */
  unlabeledPhotos: number;
  /** Photos left out because their image could not be read (damaged). */
  skipped?: readonly { page: number }[];
}

/** What the user and support are told of photos left out as damaged; null when none was. */
export function leftOutPhotos(skipped: readonly { page: number }[]): string | null {
  if (skipped.length === 0) return null;
  const pages = [...new Set(skipped.map((s) => s.page))].sort((a, b) => a - b);
  const were = skipped.length === 1 ? 'was' : 'were';
  return `${plural(skipped.length, 'photo')} could not be read and ${were} left out (${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')}).`;
}

/** More than this share of photos with neither label nor description is a poor read. */
const UNLABELED_SHARE = 0.8;

/** Longest error text quoted in a reason. */
const MAX_ERROR_CHARS = 500;

/**
 * Why the read needs a look, or null when it went well. In order: the read
 * raised; photos were left out because their images could not be read (the
 * read raised on them); no photo was found; every photo is a whole page
 * although the document has text to read a layout from; more than
 * UNLABELED_SHARE of the photos carry neither a label nor a description.
 */
export function assessExtraction(summary: ExtractionSummary): { reason: string } | null {
  if (summary.error !== undefined) {
    const error = summary.error.replace(/\s+/g, ' ').trim() || 'unknown error';
    const quoted = error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
    return {
      reason: `The read stopped on an error after ${plural(summary.pagesRead, 'page')} and ${plural(summary.photos, 'photo')}: ${quoted}`,
    };
  }
  const leftOut = leftOutPhotos(summary.skipped ?? []);
  if (leftOut) return { reason: leftOut };
  if (summary.photos === 0) {
    return { reason: `No photos were found in ${plural(summary.pagesRead, 'page')} read.` };
  }
  if (summary.hasTextLayer && summary.wholePageImages >= summary.photos) {
    return {
      reason: `Every page was imported as a whole-page image (${plural(summary.wholePageImages, 'page')}) although the document has a text layer: the recipe found no photos in its layout.`,
    };
  }
  if (summary.unlabeledPhotos > summary.photos * UNLABELED_SHARE) {
    return {
      reason: `Most photos (${summary.unlabeledPhotos} of ${summary.photos}) have neither a label nor a description.`,
    };
  }
  return null;
}

/** True when a PDF of `bytes` may ride along in the report (MAX_EMAIL_ATTACHMENT_MB, in MiB). */
export function attachmentAllowed(bytes: number, maxMb: number): boolean {
  return bytes <= maxMb * 1024 * 1024;
}
