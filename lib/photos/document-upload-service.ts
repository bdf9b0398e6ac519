/**
 * The contents lists (PDFs) a photo upload starts with: their upload slots
 * and their confirm, which starts their read.
 *
 * Each PDF gets a presigned POST to its own key under the job, limited to its
 * declared size and to Content-Type application/pdf; its PdfDocument entry on
 * the job waits in awaiting_upload. A confirm HEAD-checks each named document
 * still waiting: arrived → queued, missing → skipped. The states are written
 * in one update of the job's document list, conditional on the list being
 * what was read and on the read not having started, so a concurrent confirm
 * can neither lose a state nor change a list the read already works from
 * (photo confirms write other fields of the row). Once every document is
 * settled the read starts, when one arrived; when none did, the job goes on
 * to grouping with the photos it has, the reason on the job. A document that
 * was never confirmed is settled by the watchdog once its upload link expired.
 */
import { presignedUploadForm } from '../blob/presigned-post';
import { headObject } from '../blob/objects';
import { settings } from '../config';
import { isConditionRace } from '../db/client';
import { NotFoundError } from '../errors';
import { getJob, updateJob } from '../jobs/job-store';
import type { Job, PdfDocument } from '../jobs/job-record-rules';
import { logger } from '../observability/logger';
import { startJob } from '../orchestrator/start';
import { failJob } from '../orchestrator/terminal';
import { PDF_IMPORT } from '../orchestrator/pipeline-catalog';
import { withRetry } from '../retry';
import { JOB_NOT_FOUND } from '../jobs/access-service';
import { encodeMetaFilename } from './rules';
import type { DocumentSlot, SkippedPhoto } from './schemas';
import {
  arrivedDocumentProblem,
  confirmedDocuments,
  documentReadStep,
  NO_DOCUMENT_ARRIVED,
  PDF_CONTENT_TYPE,
  skippedDocuments,
  takesDocuments,
} from './upload-rules';

/** One presigned POST per document awaiting its upload, in document order. */
export async function presignDocumentUploads(documents: PdfDocument[]): Promise<DocumentSlot[]> {
  const ttl = settings().PRESIGNED_URL_TTL_SECONDS;
  return Promise.all(
    documents
      .filter((d) => d.state === 'awaiting_upload')
      .map(async (d) => {
        const post = await presignedUploadForm(
          d.key,
          {
            maxBytes: d.size_bytes,
            // Fields become eq conditions of the signed policy.
            fields: {
              'Content-Type': PDF_CONTENT_TYPE,
              'x-amz-meta-original-filename': encodeMetaFilename(d.original_filename),
              'x-amz-meta-document': String(d.document),
            },
          },
          ttl,
        );
        return {
          document: d.document,
          original_filename: d.original_filename,
          url: post.url,
          fields: post.fields,
          max_bytes: d.size_bytes,
        };
      }),
  );
}

/** The document list changed (or the write raced a transaction) between the read and the conditional write. */
class DocumentsChanged extends Error {
  override readonly name = 'DocumentsChanged';
  constructor() {
    super("could not record the contents lists' states: the job kept changing");
  }
}

/** Passes of the read-HEAD-write loop before a confirm gives up on a job whose document list keeps changing. */
const WRITE_PASSES = 8;

/** Writes the states of the named documents still waiting; answers the job after it (or as it is when nothing was left to write). */
async function recordArrivals(job: Job, named: Set<number>): Promise<Job> {
  const problems = new Map<number, string | null>();
  let current = job;
  let first = true;
  await withRetry(
    async () => {
      if (!first) {
        const now = await getJob(job.id, true);
        if (!now) throw new NotFoundError(JOB_NOT_FOUND);
        current = now;
      }
      first = false;
      if (!takesDocuments(current)) return;
      const before = current.pdf_documents ?? [];
      const waiting = before.filter(
        (d) => d.state === 'awaiting_upload' && named.has(d.document) && !problems.has(d.document),
      );
      await Promise.all(
        waiting.map(async (d) => {
          const head = await headObject(d.key);
          problems.set(
            d.document,
            arrivedDocumentProblem(head && { size: head.size, metaDocument: head.metadata.document }, d.document),
          );
        }),
      );
      const after = confirmedDocuments(before, problems);
      if (after.every((d, i) => d === before[i])) return;
      const written = await updateJob(job.id, ['contents'], {
        set: { pdf_documents: after },
        expectStatus: ['importing_pdf'],
        condition: 'attribute_type(run_id, :null_type) AND pdf_documents = :documents_before',
        values: { ':null_type': 'NULL', ':documents_before': before },
      }).catch((err: unknown) => {
        if (isConditionRace(err)) return null;
        throw err;
      });
      if (!written) throw new DocumentsChanged();
      current = written;
    },
    {
      attempts: WRITE_PASSES,
      backoffMs: 50,
      maxBackoffMs: 1000,
      jitter: true,
      retryable: (err) => err instanceof DocumentsChanged,
    },
  );
  return current;
}

/**
 * POST /api/upload-photos/{id}/confirm, its `documents`: records which named
 * contents lists arrived, then starts the read once every document is settled
 * (or ends the wait when none arrived). The numbers are the job's (the
 * caller answers 400 for any other, before writing anything). Idempotent:
 * settled documents keep their state and a started read is not started
 * again. Answers the skipped documents.
 */
export async function confirmDocumentUploads(job: Job, numbers: number[]): Promise<SkippedPhoto[]> {
  const named = new Set(numbers);
  const current = await recordArrivals(job, named);
  const step = documentReadStep(current);
  // Both writes are conditional (a second start or end finds nothing to do); a photo
  // confirm's transaction holding the row is waited out.
  const onRace = { attempts: 4, backoffMs: 50, jitter: true, retryable: isConditionRace };
  if (step === 'start') {
    const started = await withRetry(() => startJob(current, PDF_IMPORT), onRace);
    if (started) logger.info('contents list read started', { job_id: job.id, run_id: started.run_id });
  } else if (step === 'none-arrived') {
    await withRetry(() => failJob(current, NO_DOCUMENT_ARRIVED), onRace);
  }
  return skippedDocuments(current, [...named]);
}
