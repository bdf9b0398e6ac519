/** Request and response shapes of the ImportBatch routes (spec: Claims > import-contents-list; Capture source integration > imports). */
import * as z from 'zod';
import { uuid } from '../http/schemas';
import { documentSlot, manifestFile } from '../photos/schemas';
import { MAX_PHOTO_INDEX } from '../photos/rules';
import { MAX_FILES_PER_BATCH, MAX_PDFS_PER_UPLOAD } from '../photos/upload-rules';
import { IMPORT_BATCH_STATUSES } from './rules';

export const batchParams = z.object({ batch_id: uuid() });

export const importContentsListBody = z.strictObject({
  files: z
    .array(manifestFile)
    .min(1, 'must list at least one PDF')
    // The rules answer 400 past MAX_PDFS_PER_UPLOAD; this only bounds the request.
    .max(MAX_FILES_PER_BATCH, `at most ${MAX_FILES_PER_BATCH} files per request`)
    .describe('The PDF contents lists to import, as the browser has them (name and File.size).'),
});
export type ImportContentsListInput = z.output<typeof importContentsListBody>;

export const confirmImportBody = z.strictObject({
  documents: z
    .array(z.number().int().min(0).max(MAX_PHOTO_INDEX))
    .max(MAX_PDFS_PER_UPLOAD)
    .optional()
    .describe(
      'The files (their document number in uploads) whose POST finished, or failed. Leave it out to confirm every file still waiting. The read starts once all are confirmed.',
    ),
});
export type ConfirmImportInput = z.output<typeof confirmImportBody>;

const batchDocument = z.object({
  document: z.number().int().describe('The file number in this import, from 0 in manifest order.'),
  original_filename: z.string(),
  size_bytes: z.number().int().describe('The declared size of the PDF.'),
  state: z
    .enum(['awaiting_upload', 'queued', 'imported', 'skipped', 'failed'])
    .describe(
      'awaiting_upload: not confirmed yet; queued: arrived, waiting for (or in) its read; imported: its photos were handed to room jobs; skipped: it never arrived or was empty; failed: it could not be read or held no photos (message says why).',
    ),
  pages: z.number().int().nullable().describe('Pages of the PDF, once it was opened.'),
  photos: z.number().int().describe('Photos taken out of it.'),
  message: z.string().nullable().describe('Why it failed or was skipped, or a limit it hit.'),
});

const batchJob = z.object({
  job_id: z.uuid().describe('A photo job in awaiting_grouping holding the photos of one room.'),
  room_id: z.uuid(),
  room_name: z.string(),
  photos: z.number().int(),
  room_created: z.boolean().describe('The claim had no active room of that name: the import created it.'),
});

export const importBatchResponse = z.object({
  id: z.uuid(),
  kind: z
    .enum(['contents_list', 'capture_source'])
    .describe('What was imported: PDF contents lists, or media selected on a capture source connection.'),
  claim_id: z.uuid().describe('The claim the import landed in.'),
  connection_id: z.string().nullable().describe('The capture source connection; blank (null) for a PDF import.'),
  manifest: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      'A capture import’s selection (its manifest; `auto` names the webhook delivery that made it); null for PDFs.',
    ),
  status: z
    .enum(IMPORT_BATCH_STATUSES)
    .describe(
      'awaiting_upload until every file is confirmed; importing while they are read; then complete, partial (some files failed: retrying reads only those again) or failed (nothing imported).',
    ),
  total: z.number().int().describe('Files in the import (a capture import: media selected).'),
  imported: z.number().int().describe('Files whose photos were imported (media downloaded into jobs).'),
  skipped: z
    .number()
    .int()
    .describe('Files that never arrived or were empty (media imported on the connection before).'),
  failed: z
    .number()
    .int()
    .describe('Files that could not be read or held no photos (media that could not be downloaded).'),
  documents: z.array(batchDocument),
  jobs: z.array(batchJob).describe('The photo jobs its runs created, one per room per run.'),
  job_ids: z.array(z.uuid()).describe('The ids of those jobs.'),
  read_job_id: z
    .uuid()
    .describe('The job reading the files (GET /api/jobs/{id}/logs shows the read); it belongs to no room.'),
  progress_pct: z.number().int().describe("The read's progress, 0 to 100."),
  runs: z.number().int().describe('Runs so far: 1, plus one per retry.'),
  created_by_user_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable().describe('When the last run ended.'),
});

export const startImportResponse = importBatchResponse.extend({
  uploads: z
    .array(documentSlot)
    .describe(
      'One presigned POST per file (an empty file gets none; it is skipped). POST each, then confirm the import.',
    ),
});
