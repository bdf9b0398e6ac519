/**
 * The pure rules of photo uploads (spec: Uploads > Photo upload rules; Limits;
 * States and transitions, upload-photos rows): which files a manifest may
 * list, the byte reservation against MAX_PHOTO_UPLOAD_MB, the orig numbers of
 * a batch, the POST's Content-Type and what the confirm step refuses. No I/O
 * here: lib/photos/upload-service.ts applies them.
 */
import type { Job } from '../jobs/job-store';
import { BMP_NOT_SUPPORTED, type ImageType } from '../media/sniff';
import { extensionOf } from '../text';

/** Extensions accepted as photos (the header is checked again once the bytes land). BMP is refused (lib/media/sniff.ts). */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'heic', 'heif', 'webp', 'gif', 'tif', 'tiff'] as const;

/** Spec Limits: single photo hard limit. */
const SINGLE_PHOTO_MAX_MB = 100;
export const MB = 1024 * 1024;
export const SINGLE_PHOTO_MAX_BYTES = SINGLE_PHOTO_MAX_MB * MB;

/** Photo job states that take more photos (appends and confirms). */
export const PHOTO_UPLOAD_STATUSES = ['awaiting_grouping', 'importing_pdf'] as const;

/** Files per manifest (one request); the browser batches larger selections (80 MB per request, up to 4 appends in parallel). */
export const MAX_FILES_PER_BATCH = 200;

const PDF_NOT_SUPPORTED =
  'PDF contents lists are not supported by this upload yet: PDF import is a separate capability that is not available here. Upload the photos on their own.';
const PDF_APPEND_REFUSED =
  'A PDF cannot be appended to a photo upload: PDF contents lists are only accepted when an upload starts, and PDF import is not available yet.';

export const EMPTY_FILE = 'The file is empty.';
export const NOT_ARRIVED = 'The upload did not arrive; send the file again.';
const NOT_AN_IMAGE = 'Not a readable image (the file header is not a supported photo format).';

export type FileKind = 'image' | 'pdf' | 'other';

/** Classifies a file by its extension (case-insensitive). */
export function classifyFile(filename: string): FileKind {
  const ext = extensionOf(filename);
  if ((IMAGE_EXTENSIONS as readonly string[]).includes(ext)) return 'image';
  if (ext === 'pdf') return 'pdf';
  return 'other';
}

/** Only a photo job in awaiting_grouping or importing_pdf takes more photos (409 otherwise; spec: States and transitions). */
export function takesPhotosProblem(job: Pick<Job, 'source_type' | 'status'>): string | null {
  if (job.source_type !== 'photo') return 'Photos can only be added to a photo upload job.';
  if (!(PHOTO_UPLOAD_STATUSES as readonly string[]).includes(job.status)) {
    return `Photos can only be added while the job is awaiting grouping or importing a PDF; this job is ${job.status}.`;
  }
  return null;
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
 * The Content-Type a photo's POST must carry: the type the browser declared
 * when it is an image type the service accepts, else a neutral binary type.
 * The policy holds the form to exactly this value, so no upload can store an
 * object S3 would serve as, say, text/html; what is served is the sniffed type
 * anyway (lib/photos/rules.ts servedContentType).
 */
const PHOTO_CONTENT_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/avif',
]);
const UNDECLARED_PHOTO_TYPE = 'application/octet-stream';

export function photoUploadContentType(declared: string | undefined): string {
  const type = (declared ?? '').trim().toLowerCase();
  return PHOTO_CONTENT_TYPES.has(type) ? type : UNDECLARED_PHOTO_TYPE;
}

/**
 * Why an uploaded object cannot become photo `index`, from its size and the
 * orig number its signed metadata carries (checked before its bytes are read),
 * or null.
 */
export function arrivedUploadProblem(
  upload: { size: number; metaIndex: string | undefined },
  index: number,
): string | null {
  if (upload.metaIndex !== undefined && upload.metaIndex !== String(index))
    return 'The upload does not belong to this photo number.';
  if (upload.size === 0) return EMPTY_FILE;
  if (upload.size > SINGLE_PHOTO_MAX_BYTES)
    return `Larger than the ${SINGLE_PHOTO_MAX_MB} MB limit for a single photo.`;
  return null;
}

/** Why the sniffed header bytes are not a photo the service takes, or null. */
export function sniffedTypeProblem(type: ImageType | null): string | null {
  if (!type) return NOT_AN_IMAGE;
  if (type === 'bmp') return BMP_NOT_SUPPORTED;
  return null;
}
