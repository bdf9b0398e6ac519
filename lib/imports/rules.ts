/**
 * ImportBatch rules (spec: Other records > ImportBatch; States > ImportBatch;
 * PDF import 10): what a claim-level contents-list import accepts, how each
 * file's read settles into the batch's counters, and the batch's status when
 * a run ends. Pure.
 */
import type { PdfDocument } from '../jobs/job-record-rules';
import {
  classifyFile,
  hugePdfProblem,
  type ManifestFile,
  type ManifestProblem,
  pdfCountProblem,
} from '../photos/upload-rules';

/**
 * A file of the batch: awaiting_upload and queued until its read ends, then
 * imported (photos were found and handed to room jobs), skipped (it never
 * arrived, or was empty) or failed (it could not be read, or held no photos).
 */
type BatchDocumentState = 'awaiting_upload' | 'queued' | 'imported' | 'skipped' | 'failed';

export interface BatchDocument {
  document: number;
  original_filename: string;
  /** Where the file is parked: the batch's folder in the bucket. */
  key: string;
  size_bytes: number;
  state: BatchDocumentState;
  pages: number | null;
  photos: number;
  message: string | null;
}

/** Statuses a batch shows: the first two while it runs (ours), the last three when a run ends (the spec's). */
export const IMPORT_BATCH_STATUSES = ['awaiting_upload', 'importing', 'complete', 'partial', 'failed'] as const;
export type ImportBatchStatus = (typeof IMPORT_BATCH_STATUSES)[number];

export interface BatchCounters {
  total: number;
  imported: number;
  skipped: number;
  failed: number;
}

export const NOTHING_TO_IMPORT = 'Nothing to import: every file listed is empty.';
export const NO_PHOTOS_FOUND = 'No photos were found in it.';

/**
 * Checks a claim-level import's manifest before anything is written: PDFs
 * only (400), at most MAX_PDFS_PER_UPLOAD of them (400), none over the
 * SINGLE_PDF_MAX_BYTES PDF limit (413), and at least one that is not empty (400).
 */
export function contentsListManifestProblem(files: ManifestFile[]): ManifestProblem | null {
  const other = files.find((f) => classifyFile(f.filename) !== 'pdf');
  if (other)
    return {
      status: 400,
      detail: `${other.filename} is not a PDF: a contents-list import takes PDF files only (upload photos to a room instead).`,
    };
  const limit = pdfCountProblem(files.length, 'import') ?? hugePdfProblem(files, 'import');
  if (limit) return limit;
  if (files.every((f) => f.size === 0)) return { status: 400, detail: NOTHING_TO_IMPORT };
  return null;
}

/** A batch file as the reader's document of the same number left it; `runError` settles one the run never finished. */
export function documentOutcome(
  doc: PdfDocument,
  runError: string | null,
): Pick<BatchDocument, 'state' | 'pages' | 'photos' | 'message'> {
  const { pages, photos } = doc;
  switch (doc.state) {
    case 'read':
      return photos > 0
        ? { state: 'imported', pages, photos, message: doc.message }
        : { state: 'failed', pages, photos, message: doc.message ?? NO_PHOTOS_FOUND };
    case 'failed':
      return { state: 'failed', pages, photos, message: doc.message };
    case 'skipped':
      return { state: 'skipped', pages, photos, message: doc.message };
    default:
      // Still waiting when the run ended: the run stopped before reading it.
      return { state: 'failed', pages, photos: 0, message: runError ?? 'The read stopped before this file.' };
  }
}

/** The batch's files after a run: those the run read take their outcome; the rest keep theirs. */
export function settledDocuments(
  batchDocuments: BatchDocument[],
  readDocuments: PdfDocument[],
  runError: string | null,
): BatchDocument[] {
  const read = new Map(readDocuments.map((d) => [d.document, d]));
  return batchDocuments.map((d) => {
    const doc = read.get(d.document);
    return doc ? { ...d, ...documentOutcome(doc, runError) } : d;
  });
}

/** The batch's files while its reader works: the reader's live document states, in the batch's words. */
export function liveDocuments(batchDocuments: BatchDocument[], readDocuments: PdfDocument[]): BatchDocument[] {
  const read = new Map(readDocuments.map((d) => [d.document, d]));
  return batchDocuments.map((d) => {
    const doc = read.get(d.document);
    if (!doc || doc.state === 'read' || doc.state === 'failed') return d;
    return { ...d, state: doc.state, message: doc.message };
  });
}

export function batchCounters(documents: BatchDocument[]): BatchCounters {
  const count = (state: BatchDocumentState) => documents.filter((d) => d.state === state).length;
  return { total: documents.length, imported: count('imported'), skipped: count('skipped'), failed: count('failed') };
}

/** When a run ends: failed with nothing imported, partial when some files failed, else complete. */
export function endedBatchStatus(counters: BatchCounters): 'complete' | 'partial' | 'failed' {
  if (counters.imported === 0) return 'failed';
  return counters.failed > 0 ? 'partial' : 'complete';
}

/** 409 text for a retry of a batch that is still running or has no failed file, or null. */
export function retryProblem(batch: { status: ImportBatchStatus; documents: BatchDocument[] }): string | null {
  if (batch.status !== 'partial' && batch.status !== 'failed')
    return 'Only an import that has finished with failed files can be retried.';
  if (!batch.documents.some((d) => d.state === 'failed'))
    return 'No file of this import failed: files that never arrived cannot be retried; import them again.';
  return null;
}

/** The files a retry reads again: the failed ones, queued afresh. */
export function filesToRetry(documents: BatchDocument[]): BatchDocument[] {
  return documents.filter((d) => d.state === 'failed');
}
