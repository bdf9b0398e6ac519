/** The shape of an ImportBatch record (spec: Other records > ImportBatch). Reads and writes are in store.ts. */
import type { BatchCounters, BatchDocument, ImportBatchStatus } from './rules';

/** A room job a run created: the photos of one room, waiting for grouping. */
export interface BatchJob {
  job_id: string;
  room_id: string;
  room_name: string;
  photos: number;
  /** The room did not exist: the import created it. */
  room_created: boolean;
}

export interface ImportBatch extends BatchCounters {
  id: string;
  team_id: string;
  /** The claim the import landed in. */
  claim_id: string;
  /** Blank for PDF imports (a capture-source import names its connection). */
  connection_id: string | null;
  /** contents_list: PDFs uploaded to the claim; capture_source: media selected on a connection. */
  kind: 'contents_list' | 'capture_source';
  /** The selection: the files as the manifest listed them, or the capture manifest (lib/imports/capture/import-rules.ts). */
  manifest: { files: { filename: string; size: number }[] } | Record<string, unknown>;
  documents: BatchDocument[];
  status: ImportBatchStatus;
  /** Every room job its runs created, oldest first. */
  jobs: BatchJob[];
  /** The job reading the current (or last) run; earlier runs' readers in read_job_ids. */
  read_job_id: string;
  read_job_ids: string[];
  runs: number;
  /** A capture import's media that failed in its last run: what a retry reads again. */
  failed_media_ids?: string[];
  /** A capture import's media imported by the runs before the current one. */
  imported_before?: number;
  created_by_user_id: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}
