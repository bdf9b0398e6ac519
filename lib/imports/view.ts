/** An ImportBatch as the API shows it: while it runs, its files' states come live from its reader job. */
import type { Job } from '../jobs/job-record-rules';
import { jobProgress } from '../jobs/job-rules';
import { batchCounters, type ImportBatchStatus, liveDocuments } from './rules';
import type { ImportBatch } from './batch-record-rules';

function shownStatus(batch: ImportBatch, reader: Job | null): ImportBatchStatus {
  if (batch.status !== 'importing') return batch.status;
  return reader && reader.status === 'importing_pdf' && !reader.run_id ? 'awaiting_upload' : 'importing';
}

export function importBatchView(batch: ImportBatch, reader: Job | null) {
  const running = batch.status === 'importing';
  const documents = running && reader ? liveDocuments(batch.documents, reader.pdf_documents ?? []) : batch.documents;
  return {
    id: batch.id,
    kind: batch.kind,
    claim_id: batch.claim_id,
    connection_id: batch.connection_id,
    manifest: batch.kind === 'capture_source' ? (batch.manifest as Record<string, unknown>) : null,
    status: shownStatus(batch, reader),
    // A PDF import counts its files; a capture import keeps its counters as it goes.
    ...(batch.kind === 'capture_source'
      ? { total: batch.total, imported: batch.imported, skipped: batch.skipped, failed: batch.failed }
      : batchCounters(documents)),
    documents: documents.map(({ key: _key, ...d }) => d),
    jobs: batch.jobs,
    job_ids: batch.jobs.map((j) => j.job_id),
    read_job_id: batch.read_job_id,
    progress_pct: running ? (reader ? jobProgress(reader) : 0) : 100,
    runs: batch.runs,
    created_by_user_id: batch.created_by_user_id,
    created_at: batch.created_at,
    updated_at: batch.updated_at,
    finished_at: batch.finished_at,
  };
}
