/**
 * The pure naming rules of staged photos (spec: Uploads > Photo upload rules;
 * Capability URLs): the stored names and bucket keys of a job's photos, the
 * index a name carries, the original filename as object metadata and the type
 * a photo is served with. No I/O here.
 */
import { blobKeys } from '../blob/keys';
import type { ImageType } from '../media/sniff';

/** Staged photo indices are stored zero-padded to 6 digits (photoKeys.stagedPhoto in lib/photos/keys.ts). */
export const MAX_PHOTO_INDEX = 999_999;

/** The synthetic name of a staged photo: orig_0000.jpg, orig_0001.jpg ... orig_12345.jpg (4 digits at least). */
export function origFilename(index: number): string {
  return `orig_${String(index).padStart(4, '0')}.jpg`;
}

/** The stored name of a segment: seg_0012.jpg (4 digits at least, like orig_####.jpg). */
export function segmentFilename(index: number): string {
  return `seg_${String(index).padStart(4, '0')}.jpg`;
}

/**
 * Pictures a pipeline cuts for its items (the video pipeline's close-ups,
 * context views and frames) are stored with the job's photos under names
 * with this prefix. They have no staged-photo row: the capability route
 * serves them straight from the bucket.
 */
export const PIPELINE_PICTURE_PREFIX = 'vid_';

export const isPipelinePicture = (filename: string) => filename.startsWith(PIPELINE_PICTURE_PREFIX);

/**
 * The index a stored photo name carries: orig_0001.jpg → 1. Staged photo
 * names are <word>_<index>[...]: the capability route finds the row with one
 * read instead of scanning the job.
 */
export function indexFromFilename(filename: string): number | null {
  const m = /^[A-Za-z]+_(\d{1,6})(?:[._-]|$)/.exec(filename);
  return m ? Number(m[1]) : null;
}

/** Where a job's photos live in the media bucket (under the job prefix, so purges take them too). */
export function photoObjectKeys(jobPrefix: string, index: number) {
  const filename = origFilename(index);
  return {
    filename,
    /** The upright JPEG the service serves. */
    key: `${jobPrefix}photos/${filename}`,
    /** Where the browser POSTs the original bytes. */
    incomingKey: `${jobPrefix}incoming/${String(index).padStart(6, '0')}`,
  };
}

/**
 * The object key behind a served photo URL path (`/api/photos/<job_id>/<filename>`, what an
 * item's photo_path holds) when that job is one of the given team's claim: every job photo is
 * `<job prefix>photos/<filename>`. Null for any other path. A key built for the wrong claim (a
 * photo moved in from another claim) names no object, so a reader that finds nothing there falls
 * back to the photo rows.
 */
export function photoKeyOfPath(path: string | null, teamId: string, claimId: string): string | null {
  const m = /^\/api\/photos\/([0-9a-f-]{36})\/([A-Za-z0-9._%-]+)$/.exec(path ?? '');
  if (!m) return null;
  let filename: string;
  try {
    filename = decodeURIComponent(m[2]);
  } catch {
    return null;
  }
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(filename)) return null;
  return `${blobKeys.jobPrefix(teamId, claimId, m[1])}photos/${filename}`;
}

/**
 * The object metadata value for an original filename: S3 metadata travels in
 * HTTP headers, so it is percent-encoded (UTF-8 names survive) and capped.
 */
export function encodeMetaFilename(name: string): string {
  return encodeURIComponent(name.slice(0, 255));
}

export function decodeMetaFilename(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const IMAGE_MEDIA_TYPES: Record<Exclude<ImageType, 'bmp'>, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  heic: 'image/heic',
};

/**
 * The Content-Type an original upload is served with: what its header bytes
 * are (`sniffed`), never what the browser declared (a stored text/html would
 * otherwise be rendered by the browser). Null when the bytes are not an image
 * the service serves.
 */
export function servedContentType(sniffed: ImageType | null): string | null {
  return sniffed && sniffed !== 'bmp' ? IMAGE_MEDIA_TYPES[sniffed] : null;
}

/** The stored name of a photo taken out of a contents list (PDF): pdf_0042.jpg (4 digits at least). */
export function pdfFilename(index: number): string {
  return `pdf_${String(index).padStart(4, '0')}.jpg`;
}

/** Where contents list `n` of a photo job is uploaded (under the job prefix, so purges take it too). */
export function documentKey(jobPrefix: string, n: number): string {
  return `${jobPrefix}documents/${n}.pdf`;
}
