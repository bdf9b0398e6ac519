/**
 * Claim-level contents-list imports (spec: PDF import 10; Claims >
 * import-contents-list; ImportBatch). The PDFs are parked under the batch's
 * folder in the bucket, each through its own presigned POST (a request body
 * cannot carry them: API Gateway takes 10 MB), and an ImportBatch is answered
 * at once. A reader job (no room, listed nowhere) reads them on the PDF
 * import pipeline like a room-level upload's; its last stage hands the photos
 * to one awaiting_grouping photo job per room and records the run on the
 * batch (lib/pipelines/pdf/split/room-split.ts). A run that stopped early is settled
 * here from its reader when the batch is next read. A retry reads only the
 * failed files again, with a new reader.
 */
import { randomUUID } from 'node:crypto';
import { recordActivity } from '../activity/service';
import { retryCaptureImport, settleCaptureBatch } from './capture/import-service';
import type { Identity } from '../auth/identity-rules';
import { blobKeys } from '../blob/keys';
import { ConflictError, InvalidRequestError, TooLargeError } from '../errors';
import { deleteJobRows, getJob, putNewJob } from '../jobs/job-store';
import { type Job, newJobRecord, type PdfDocument } from '../jobs/job-record-rules';
import { startJob } from '../orchestrator/start';
import { confirmDocumentUploads, presignDocumentUploads } from '../photos/document-upload-service';
import { newPdfDocuments, unknownDocumentsProblem } from '../photos/upload-rules';
import { PDF_IMPORT } from '../orchestrator/pipeline-catalog';
import { loadClaimForTeam } from '../claims/access-service';
import { loadImportBatchForTeam } from './access-service';
import { plural } from '../text';
import {
  batchCounters,
  contentsListManifestProblem,
  endedBatchStatus,
  filesToRetry,
  retryProblem,
  settledDocuments,
} from './rules';
import type { ConfirmImportInput, ImportContentsListInput } from './schemas';
import { putNewImportBatch, updateImportBatch } from './store';
import type { ImportBatch } from './batch-record-rules';
import { importBatchView } from './view';

/** The batch's folder in the bucket: under the claim, so the claim's purge takes it. */
const batchPrefix = (batch: Pick<ImportBatch, 'team_id' | 'claim_id' | 'id'>) =>
  `${blobKeys.claimPrefix(batch.team_id, batch.claim_id)}imports/${batch.id}/`;

/** A reader job for these documents: a photo job of the claim in no room, waiting for its files in importing_pdf. */
function newReaderJob(batch: ImportBatch, userId: string, documents: PdfDocument[], id = randomUUID()): Job {
  const job = newJobRecord({
    id,
    // A reader belongs to no room: its photos go to one job per room when it ends.
    room: { id: '', claim_id: batch.claim_id, team_id: batch.team_id },
    userId,
    sourceType: 'photo',
    status: 'importing_pdf',
  });
  job.reads_batch_id = batch.id;
  job.pdf_documents = documents;
  job.photo_count_hint = 0;
  return job;
}

/**
 * POST /api/claims/{id}/import-contents-list: a new ImportBatch for the
 * listed PDFs and one presigned POST per file. Nothing is written when the
 * manifest is refused (400 not a PDF or all empty, 413 over 512 MiB).
 */
export async function startContentsListImport(identity: Identity, claimId: string, body: ImportContentsListInput) {
  const claim = await loadClaimForTeam(identity, claimId);
  const problem = contentsListManifestProblem(body.files);
  if (problem)
    throw problem.status === 413 ? new TooLargeError(problem.detail) : new InvalidRequestError(problem.detail);
  const now = new Date().toISOString();
  const batchId = randomUUID();
  const readerId = randomUUID();
  const place = { id: batchId, team_id: claim.team_id, claim_id: claim.id };
  const documents = newPdfDocuments(`${batchPrefix(place)}`, body.files);
  const batch: ImportBatch = {
    ...place,
    connection_id: null,
    kind: 'contents_list',
    manifest: { files: body.files.map((f) => ({ filename: f.filename, size: f.size })) },
    documents: documents.map((d) => ({ ...d, state: d.state === 'skipped' ? 'skipped' : 'awaiting_upload' })),
    ...batchCounters([]),
    status: 'importing',
    jobs: [],
    read_job_id: readerId,
    read_job_ids: [readerId],
    runs: 1,
    created_by_user_id: identity.user.id,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  Object.assign(batch, batchCounters(batch.documents));
  // The reader first: a batch never names a job that does not exist.
  const reader = await putNewJob(newReaderJob(batch, identity.user.id, documents, readerId));
  await putNewImportBatch(batch);
  const uploads = await presignDocumentUploads(documents);
  await recordActivity(identity.actor, {
    team_id: claim.team_id,
    action_type: 'import_contents_list',
    action_label: `Imported ${plural(body.files.length, 'contents list')} (PDF)`,
    target: claim.claim_number,
    entity_type: 'claim',
    entity_id: claim.id,
    restorable: false,
  });
  return { ...importBatchView(batch, reader), uploads };
}

/**
 * A batch as it stands: a run whose reader ended without recording its
 * outcome (it stopped early, or none of its files arrived) is settled from
 * the reader's documents first.
 */
async function currentBatch(batch: ImportBatch): Promise<{ batch: ImportBatch; reader: Job | null }> {
  const reader = await getJob(batch.read_job_id, true);
  if (batch.kind === 'capture_source') return { batch: await settleCaptureBatch(batch, reader), reader };
  if (batch.status !== 'importing' || !reader || reader.status === 'importing_pdf') return { batch, reader };
  const runError = reader.preparation_error ?? 'The read stopped before this file.';
  const documents = settledDocuments(batch.documents, reader.pdf_documents ?? [], runError);
  const counters = batchCounters(documents);
  const settled = await updateImportBatch(
    batch.id,
    { status: 'importing', readJobId: reader.id },
    { documents, ...counters, status: endedBatchStatus(counters), finished_at: reader.updated_at },
  );
  return { batch: settled ?? batch, reader };
}

/** GET /api/integrations/imports/{batch_id}. */
export async function showImportBatch(identity: Identity, batchId: string) {
  const { batch, reader } = await currentBatch(await loadImportBatchForTeam(identity, batchId));
  return importBatchView(batch, reader);
}

/**
 * POST /api/integrations/imports/{batch_id}/confirm: the files whose upload
 * finished (all still waiting when none are named). Each is checked in the
 * bucket: arrived, it is queued; missing, skipped. The read starts once every
 * file is confirmed; when none arrived the batch fails. Idempotent. 400 for a
 * file number the batch does not have; 409 once the run has moved past uploads.
 */
export async function confirmContentsListUpload(identity: Identity, batchId: string, body: ConfirmImportInput) {
  const batch = await loadImportBatchForTeam(identity, batchId);
  const reader = await getJob(batch.read_job_id, true);
  const documents = reader?.pdf_documents ?? [];
  const problem = unknownDocumentsProblem(documents, body.documents ?? []);
  if (problem) throw new InvalidRequestError(problem);
  if (batch.status !== 'importing' || !reader || reader.status !== 'importing_pdf' || reader.run_id)
    throw new ConflictError('This import is no longer waiting for its files.');
  const named = body.documents ?? documents.filter((d) => d.state === 'awaiting_upload').map((d) => d.document);
  await confirmDocumentUploads(reader, named);
  const now = await currentBatch(batch);
  return importBatchView(now.batch, now.reader);
}

/**
 * POST /api/integrations/imports/{batch_id}/retry: reads the failed files of
 * a partial or failed batch again (their PDFs are still parked), with a new
 * reader; their photos go to new room jobs. 409 while it runs or when no
 * file failed. The batch is moved first, conditional on the run it ended, so
 * of two concurrent retries one starts and the other gets 409.
 */
export async function retryImportBatch(identity: Identity, batchId: string) {
  const batch = (await currentBatch(await loadImportBatchForTeam(identity, batchId))).batch;
  if (batch.kind === 'capture_source') return retryCaptureImport(identity, batch);
  const problem = retryProblem(batch);
  if (problem) throw new ConflictError(problem);
  const retried = new Set(filesToRetry(batch.documents).map((d) => d.document));
  const documents = batch.documents.map((d) =>
    retried.has(d.document) ? { ...d, state: 'queued' as const, pages: null, photos: 0, message: null } : d,
  );
  const readerId = randomUUID();
  const reader = newReaderJob(
    batch,
    identity.user.id,
    documents.filter((d) => retried.has(d.document)).map((d) => ({ ...d, state: 'queued' as const })),
    readerId,
  );
  await putNewJob(reader);
  const moved = await updateImportBatch(
    batch.id,
    { status: batch.status, readJobId: batch.read_job_id },
    {
      documents,
      ...batchCounters(documents),
      status: 'importing',
      read_job_id: readerId,
      read_job_ids: [...batch.read_job_ids, readerId],
      runs: batch.runs + 1,
      finished_at: null,
    },
  );
  if (!moved) {
    // The reader never started and no batch names it: it goes, so it can never read.
    await deleteJobRows(reader, { expectStatus: 'importing_pdf' });
    throw new ConflictError('This import changed meanwhile (another retry started); reload it.');
  }
  const started = (await startJob(reader, PDF_IMPORT)) ?? reader;
  await recordActivity(identity.actor, {
    team_id: batch.team_id,
    action_type: 'import_contents_list',
    action_label: `Retried ${plural(retried.size, 'contents list')} (PDF)`,
    target: (await loadClaimForTeam(identity, batch.claim_id)).claim_number,
    entity_type: 'claim',
    entity_id: batch.claim_id,
    restorable: false,
  });
  return importBatchView(moved, started);
}
