/**
 * The pure rules of photo uploads (spec: Uploads > Photo upload rules; Limits;
 * States and transitions, upload-photos rows). No I/O here, so every rule is
 * unit-tested on its own (tests/unit/photo-uploads.test.ts).
 */

/** Extensions accepted as photos (the header is checked again once the bytes land). BMP is refused (lib/media/sniff.ts). */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'heic', 'heif', 'webp', 'gif', 'tif', 'tiff'] as const;

/** Spec Limits: single photo hard limit. */
export const SINGLE_PHOTO_MAX_MB = 100;
export const MB = 1024 * 1024;
export const SINGLE_PHOTO_MAX_BYTES = SINGLE_PHOTO_MAX_MB * MB;

/** Photo job states that take more photos (appends and confirms). */
export const PHOTO_UPLOAD_STATUSES = ['awaiting_grouping', 'importing_pdf'] as const;

/** Staged photo indices are stored zero-padded to 6 digits (lib/db/keys.ts stagedPhoto). */
export const MAX_PHOTO_INDEX = 999_999;

/** Files per manifest (one request); the browser batches larger selections (80 MB per request, up to 4 appends in parallel). */
export const MAX_FILES_PER_BATCH = 200;

export const PDF_NOT_SUPPORTED =
  'PDF contents lists are not supported by this upload yet: PDF import is a separate capability that is not available here. Upload the photos on their own.';
export const PDF_APPEND_REFUSED =
  'A PDF cannot be appended to a photo upload: PDF contents lists are only accepted when an upload starts, and PDF import is not available yet.';

export type FileKind = 'image' | 'pdf' | 'other';

export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot === -1
    ? ''
    : base
        .slice(dot + 1)
        .trim()
        .toLowerCase();
}

/** Classifies a file by its extension (case-insensitive). */
export function classifyFile(filename: string): FileKind {
  const ext = extensionOf(filename);
  if ((IMAGE_EXTENSIONS as readonly string[]).includes(ext)) return 'image';
  if (ext === 'pdf') return 'pdf';
  return 'other';
}

/** The synthetic name of a staged photo: orig_0000.jpg, orig_0001.jpg ... orig_12345.jpg (4 digits at least). */
export function origFilename(index: number): string {
  return `orig_${String(index).padStart(4, '0')}.jpg`;
}

/** MAX_PHOTO_UPLOAD_MB in bytes. */
export function photoCapBytes(maxPhotoUploadMb: number): number {
  return Math.floor(maxPhotoUploadMb * MB);
}

/**
 * Whether a batch fits the job's running total: reserved + batch <= cap.
 * `reserved` is what earlier batches of the job reserved.
 */
export function fitsReservation(reserved: number, batchBytes: number, capBytes: number): boolean {
  return reserved + batchBytes <= capBytes;
}

/**
 * The value the job's photo_bytes_reserved may have at most for a batch of
 * `batchBytes` to fit (the condition of the atomic ADD). Negative when the
 * batch alone is over the cap: then no job can take it.
 */
export function reservationCeiling(batchBytes: number, capBytes: number): number {
  return capBytes - batchBytes;
}

/**
 * The orig numbers of a batch of `count` files: start_index + i when the
 * client gives start_index, otherwise the range the job's counter handed out
 * (the counter after an atomic ADD of `count` is `counterAfter`).
 */
export function batchIndices(count: number, from: { startIndex: number } | { counterAfter: number }): number[] {
  const first = 'startIndex' in from ? from.startIndex : from.counterAfter - count;
  return Array.from({ length: count }, (_, i) => first + i);
}

/** The job's photo_next_index after a batch: never moves backwards. */
export function nextIndexAfter(current: number, indices: number[]): number {
  return indices.reduce((next, i) => Math.max(next, i + 1), current);
}

export interface ManifestFile {
  filename: string;
  size: number;
}

export type ManifestProblem = { status: 400 | 413; detail: string };

/**
 * Checks a manifest before anything is written. First problem wins, in this
 * order: a PDF (400, or the append wording), a non-image extension (400), a
 * file over the 100 MB hard limit (413), the batch over MAX_PHOTO_UPLOAD_MB (413).
 */
export function manifestProblem(
  files: ManifestFile[],
  options: { capBytes: number; append: boolean },
): ManifestProblem | null {
  const pdf = files.find((f) => classifyFile(f.filename) === 'pdf');
  if (pdf)
    return { status: 400, detail: `${options.append ? PDF_APPEND_REFUSED : PDF_NOT_SUPPORTED} (${pdf.filename})` };
  const other = files.find((f) => classifyFile(f.filename) === 'other');
  if (other) {
    return {
      status: 400,
      detail: `${other.filename} is not a supported photo type. Accepted: ${IMAGE_EXTENSIONS.join(', ')}.`,
    };
  }
  const huge = files.find((f) => f.size > SINGLE_PHOTO_MAX_BYTES);
  if (huge)
    return {
      status: 413,
      detail: `${huge.filename} is larger than the ${SINGLE_PHOTO_MAX_MB} MB limit for a single photo.`,
    };
  const total = batchBytes(files);
  if (total > options.capBytes) return { status: 413, detail: overCapDetail(options.capBytes) };
  return null;
}

export function overCapDetail(capBytes: number): string {
  return `This upload would take the job past its ${Math.round(capBytes / MB)} MB photo limit (MAX_PHOTO_UPLOAD_MB). Nothing was uploaded; start a new upload for the remaining photos.`;
}

export function batchBytes(files: ManifestFile[]): number {
  return files.reduce((sum, f) => sum + f.size, 0);
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
