/**
 * The pure rules of photo uploads (spec: Uploads > Photo upload rules; Limits;
 * States and transitions, upload-photos rows): which files a manifest may
 * list, the byte reservation against MAX_PHOTO_UPLOAD_MB, the orig numbers of
 * a batch, the POST's Content-Type and what the confirm step refuses. No I/O
 * here: lib/photos/upload-service.ts applies them.
 *
 * An upload may start with contents lists (PDFs) among its photos: each gets
 * its own upload slot and a PdfDocument entry on the job, and the job starts
 * in importing_pdf. The rules of their slots, of their confirm and of when
 * their read starts are the second half of this file.
 */
import type { Job, PdfDocument } from '../jobs/job-record-rules';
import { BMP_NOT_SUPPORTED, type ImageType } from '../media/sniff';
import { extensionOf } from '../text';
import { documentKey } from './rules';

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

const PDF_APPEND_REFUSED =
  'A PDF cannot be appended to a photo upload: contents lists are accepted only when an upload starts.';

export const EMPTY_FILE = 'The file is empty.';
export const NOT_ARRIVED = 'The upload did not arrive; send the file again.';

/** PDF contents lists one upload may start with. */
export const MAX_PDFS_PER_UPLOAD = 20;
/**
 * One PDF contents list at most (512 MiB): its read has its own page, image
 * and byte limits. A reader that renders holds the file about 2.4 times over
 * at its peak (the bytes, pdf.js's copy and its parse; measured on a 316 MB
 * file), so this keeps a 2,048 MB worker clear of its memory limit.
 */
const SINGLE_PDF_MAX_MIB = 512;
export const SINGLE_PDF_MAX_BYTES = SINGLE_PDF_MAX_MIB * MB;
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
 * order: a PDF on append (400), a file that is neither a photo nor, when an
 * upload starts, a PDF (400), more than MAX_PDFS_PER_UPLOAD PDFs (400), a photo
 * over the 100 MB hard limit (413), a PDF over SINGLE_PDF_MAX_BYTES (413), the
 * photos over MAX_PHOTO_UPLOAD_MB (413). PDFs do not count against
 * MAX_PHOTO_UPLOAD_MB: what they hold is bounded by the import's own limits.
 */
export function manifestProblem(
  files: ManifestFile[],
  options: { capBytes: number; append: boolean },
): ManifestProblem | null {
  const { photos, pdfs } = manifestParts(files);
  if (options.append && pdfs.length > 0) return { status: 400, detail: `${PDF_APPEND_REFUSED} (${pdfs[0].filename})` };
  const other = files.find((f) => classifyFile(f.filename) === 'other');
  if (other) {
    const accepted = options.append
      ? IMAGE_EXTENSIONS.join(', ')
      : `photos (${IMAGE_EXTENSIONS.join(', ')}) and PDF contents lists (pdf)`;
    return { status: 400, detail: `${other.filename} is not a supported photo type. Accepted: ${accepted}.` };
  }
  const tooMany = pdfCountProblem(pdfs.length, 'upload');
  if (tooMany) return tooMany;
  const huge = photos.find((f) => f.size > SINGLE_PHOTO_MAX_BYTES);
  if (huge)
    return {
      status: 413,
      detail: `${huge.filename} is larger than the ${SINGLE_PHOTO_MAX_MB} MB limit for a single photo.`,
    };
  const hugePdf = hugePdfProblem(pdfs, 'upload');
  if (hugePdf) return hugePdf;
  if (batchBytes(photos) > options.capBytes) return { status: 413, detail: overCapDetail(options.capBytes) };
  return null;
}

/** 400 past MAX_PDFS_PER_UPLOAD contents lists in one request (a photo upload or a claim import), or null. */
export function pdfCountProblem(count: number, request: 'upload' | 'import'): ManifestProblem | null {
  if (count <= MAX_PDFS_PER_UPLOAD) return null;
  return {
    status: 400,
    detail: `At most ${MAX_PDFS_PER_UPLOAD} PDF contents lists per ${request}; this one lists ${count}. Start another ${request} for the rest.`,
  };
}

/** 413 for the first contents list over SINGLE_PDF_MAX_BYTES, or null. */
export function hugePdfProblem(pdfs: ManifestFile[], request: 'upload' | 'import'): ManifestProblem | null {
  const huge = pdfs.find((f) => f.size > SINGLE_PDF_MAX_BYTES);
  if (!huge) return null;
  return {
    status: 413,
    detail: `${huge.filename} is larger than the ${SINGLE_PDF_MAX_MIB} MiB limit for a PDF contents list. Nothing was uploaded; split the PDF and ${request} the parts.`,
  };
}

/** A manifest's photos and its PDF contents lists, each in manifest order (`position`: the file's place in the manifest). */
export function manifestParts<T extends ManifestFile>(files: T[]) {
  const photos: (T & { position: number })[] = [];
  const pdfs: (T & { position: number })[] = [];
  files.forEach((file, position) => {
    if (classifyFile(file.filename) === 'pdf') pdfs.push({ ...file, position });
    else photos.push({ ...file, position });
  });
  return { photos, pdfs };
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

// ---------------------------------------------------------------------------------------------------------------
// Contents lists (PDFs) of an upload

/** What a PDF's upload POST must carry as its Content-Type (held by the signed policy). */
export const PDF_CONTENT_TYPE = 'application/pdf';

/** A confirm that names a contents list after the upload's read started or ended (the read takes no more). */
const DOCUMENT_TOO_LATE =
  "Confirmed too late: this upload's contents lists were already being read. Start a new upload with this PDF.";

/** The one message a job gets when none of its contents lists arrived (the read ends before it starts). */
export const NO_DOCUMENT_ARRIVED = 'None of the contents lists arrived; the photos that did are ready for grouping.';

/** The loose photos of the browser's selection: what it declared, else the photos of this manifest. */
export function photoCountHint(declared: number | undefined, manifestPhotos: number): number {
  return declared ?? manifestPhotos;
}

/**
 * The PdfDocument entries of a starting upload's PDFs, numbered from 0 in
 * manifest order: each awaits its upload, except an empty file, which is
 * skipped at once (it gets no upload slot).
 */
export function newPdfDocuments(jobPrefix: string, pdfs: ManifestFile[]): PdfDocument[] {
  return pdfs.map((pdf, document) => ({
    document,
    original_filename: pdf.filename,
    key: documentKey(jobPrefix, document),
    size_bytes: pdf.size,
    state: pdf.size === 0 ? 'skipped' : 'awaiting_upload',
    pages: null,
    photos: 0,
    message: pdf.size === 0 ? EMPTY_FILE : null,
  }));
}

/** A new photo job waits for its contents lists' read when one of them is still to arrive. */
export function startingStatus(documents: PdfDocument[]): 'importing_pdf' | 'awaiting_grouping' {
  return documents.some((d) => d.state === 'awaiting_upload') ? 'importing_pdf' : 'awaiting_grouping';
}

/** 400 text for a confirm that names nothing, or null. */
export function confirmRequestProblem(body: { indices?: number[]; documents?: number[] }): string | null {
  return (body.indices?.length ?? 0) === 0 && (body.documents?.length ?? 0) === 0
    ? 'Name the photos (indices) or the contents lists (documents) that finished uploading.'
    : null;
}

/** 400 text naming contents list numbers the job does not have, or null. */
export function unknownDocumentsProblem(documents: PdfDocument[], numbers: number[]): string | null {
  const known = new Set(documents.map((d) => d.document));
  const unknown = [...new Set(numbers)].filter((n) => !known.has(n)).sort((a, b) => a - b);
  if (unknown.length === 0) return null;
  const has =
    documents.length === 0
      ? 'this upload has no contents lists'
      : `this upload's are numbered 0 to ${documents.length - 1}`;
  return `Unknown contents list number${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}: ${has}.`;
}

/**
 * Why an uploaded contents list cannot be read, from its bucket head (null:
 * nothing arrived) and the document number its signed metadata carries, or
 * null when it arrived.
 */
export function arrivedDocumentProblem(
  head: { size: number; metaDocument: string | undefined } | null,
  document: number,
): string | null {
  if (!head) return NOT_ARRIVED;
  if (head.metaDocument !== undefined && head.metaDocument !== String(document))
    return 'The upload does not belong to this contents list.';
  if (head.size === 0) return EMPTY_FILE;
  return null;
}

/**
 * The job's documents after a confirm: each named document still awaiting its
 * upload is queued (arrived: `problems` holds null for it) or skipped with the
 * reason; every other document is kept as it is, so a repeated confirm changes
 * nothing.
 */
export function confirmedDocuments(documents: PdfDocument[], problems: Map<number, string | null>): PdfDocument[] {
  return documents.map((d) => {
    if (d.state !== 'awaiting_upload' || !problems.has(d.document)) return d;
    const problem = problems.get(d.document) ?? null;
    return problem === null ? { ...d, state: 'queued', message: null } : { ...d, state: 'skipped', message: problem };
  });
}

/** Whether the job's documents may still change state through a confirm: the job waits for its read, unstarted. */
export function takesDocuments(job: Pick<Job, 'status' | 'run_id'>): boolean {
  return job.status === 'importing_pdf' && !job.run_id;
}

/**
 * What a confirm does next about the read: start it once every document is
 * settled and one arrived; end the wait (the job moves on to grouping) when
 * every document is settled and none arrived; wait while one is still to be
 * confirmed; nothing once the read started or the job moved on.
 */
export function documentReadStep(
  job: Pick<Job, 'status' | 'run_id' | 'pdf_documents'>,
): 'start' | 'none-arrived' | 'wait' | 'nothing' {
  if (!takesDocuments(job)) return 'nothing';
  const documents = job.pdf_documents ?? [];
  if (documents.some((d) => d.state === 'awaiting_upload')) return 'wait';
  return documents.some((d) => d.state === 'queued') ? 'start' : 'none-arrived';
}

/**
 * The named documents a confirm reports in skipped_photos (index null, the
 * PDF's own filename): those skipped (why), and those still awaiting their
 * upload once the job takes no more documents (too late).
 */
export function skippedDocuments(
  job: Pick<Job, 'status' | 'run_id' | 'pdf_documents'>,
  numbers: number[],
): { filename: string; reason: string; index: null }[] {
  const named = new Set(numbers);
  const open = takesDocuments(job);
  return (job.pdf_documents ?? []).flatMap((d) => {
    if (!named.has(d.document)) return [];
    if (d.state === 'skipped')
      return [{ filename: d.original_filename, reason: d.message ?? NOT_ARRIVED, index: null }];
    if (d.state === 'awaiting_upload' && !open)
      return [{ filename: d.original_filename, reason: DOCUMENT_TOO_LATE, index: null }];
    return [];
  });
}
