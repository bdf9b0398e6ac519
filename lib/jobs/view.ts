/** A job as the API shows it (engine internals left out). */
import * as z from 'zod';
import type { Job } from './job-record-rules';
import { JOB_STATUSES, jobProgress } from './job-rules';

export function jobView(job: Job) {
  return {
    id: job.id,
    room_id: job.room_id || null,
    claim_id: job.claim_id,
    source_type: job.source_type,
    status: job.status,
    progress_pct: jobProgress(job),
    current_stage: job.current_stage,
    error_message: job.error_message,
    original_filename: job.original_filename,
    file_size_bytes: job.file_size_bytes,
    total_frames: job.total_frames,
    duration: job.duration,
    media_info: job.media_info ?? null,
    transcript: job.transcript
      ? {
          text: job.transcript.text,
          segments: job.transcript.segments as z.output<typeof transcriptSegment>[],
          word_timings: job.transcript.word_timings ?? true,
          truncated: job.transcript.truncated ?? false,
        }
      : null,
    items_found: job.items_found,
    ai_cost_usd: job.ai_cost_usd,
    ai_input_tokens: job.ai_input_tokens,
    ai_output_tokens: job.ai_output_tokens,
    ai_api_calls: job.ai_api_calls,
    billed_cost_usd: job.billed_cost_usd,
    billed_blocks: job.billed_blocks,
    billed_minutes: job.billed_minutes,
    photo_request_count: job.photo_request_count,
    billing_charged: job.billing_charged,
    billing_txn_id: job.billing_txn_id,
    billing_amount: job.billing_amount,
    billing_refunded: job.billing_refunded,
    recovery_attempts: job.recovery_attempts,
    photo_truncated_groups: (job.photo_truncated_groups ?? []).map((g) => ({ ...g, too_dense: Boolean(g.too_dense) })),
    photos_with_more_items: job.photo_truncated_groups?.length ?? 0,
    last_pass_error: job.last_pass_error ?? null,
    preparation_error: job.preparation_error ?? null,
    photo_count_hint: job.photo_count_hint ?? null,
    pdf_documents: (job.pdf_documents ?? []).map(({ key: _key, ...document }) => document),
    import_batch_id: job.import_batch_id ?? job.reads_batch_id ?? null,
    created_by_user_id: job.created_by_user_id,
    started_at: job.started_at,
    finished_at: job.finished_at,
    created_at: job.created_at,
    updated_at: job.updated_at,
  };
}

const transcriptSegment = z.object({
  start: z.number(),
  end: z.number(),
  text: z.string(),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number(), confidence: z.number() })).optional(),
});

export const jobResponse = z.object({
  id: z.uuid(),
  room_id: z
    .uuid()
    .nullable()
    .describe(
      "null only for the job that reads a claim's contents-list import (its ImportBatch's read_job_id): it belongs to no room.",
    ),
  claim_id: z.uuid(),
  source_type: z.enum(['video', 'photo', 'audio']),
  status: z.enum(JOB_STATUSES),
  progress_pct: z.number().int(),
  current_stage: z.string(),
  error_message: z.string().nullable(),
  original_filename: z.string().nullable(),
  file_size_bytes: z.number(),
  total_frames: z.number(),
  duration: z.number().nullable(),
  media_info: z
    .object({
      width: z.number().nullable(),
      height: z.number().nullable(),
      fps: z.number().nullable(),
      has_audio: z.boolean(),
    })
    .nullable()
    .describe("Video jobs: the picture's size and frame rate and whether it has sound, as probed when processing."),
  transcript: z
    .object({
      text: z.string(),
      segments: z.array(transcriptSegment),
      word_timings: z.boolean().describe('False when the segments leave out their words (a very long recording).'),
      truncated: z.boolean().describe('True when the text is cut short (hours of speech).'),
    })
    .nullable()
    .describe('Video and audio jobs: the transcript, its segments with word timings (seconds from the start).'),
  items_found: z.number().int(),
  ai_cost_usd: z.number(),
  ai_input_tokens: z.number().int(),
  ai_output_tokens: z.number().int(),
  ai_api_calls: z.number().int(),
  billed_cost_usd: z.number().int().describe('Whole credits, not dollars.'),
  billed_blocks: z.number().int(),
  billed_minutes: z.number().int(),
  photo_request_count: z.number().int(),
  billing_charged: z.boolean(),
  billing_txn_id: z.string().nullable(),
  billing_amount: z.number(),
  billing_refunded: z.boolean(),
  recovery_attempts: z.number().int(),
  photo_truncated_groups: z
    .array(
      z.object({
        group_index: z.number().int(),
        passes: z.number().int(),
        names: z.array(z.string()),
        too_dense: z.boolean(),
      }),
    )
    .describe(
      'Photo groups whose answer was cut short: passes made, names found; too_dense once PHOTO_MAX_PASSES is reached (segment the photo).',
    ),
  photos_with_more_items: z.number().int(),
  last_pass_error: z
    .string()
    .nullable()
    .describe('Why the last read-the-rest pass failed; the job stays complete with its items.'),
  preparation_error: z
    .string()
    .nullable()
    .describe(
      'Why the read of the contents lists stopped early or did not happen (none arrived); the job went on to awaiting_grouping with what was found.',
    ),
  photo_count_hint: z
    .number()
    .int()
    .nullable()
    .describe(
      'Photo jobs: the loose photos of the selection the upload started with; the groups read from contents lists are numbered after them.',
    ),
  pdf_documents: z
    .array(
      z.object({
        document: z.number().int().describe('The contents list number in its upload, from 0.'),
        original_filename: z.string().describe('The PDF file name as uploaded.'),
        size_bytes: z.number().int().describe('The declared size of the PDF.'),
        state: z
          .enum(['awaiting_upload', 'queued', 'read', 'failed', 'skipped'])
          .describe(
            'awaiting_upload: not confirmed yet; queued: arrived, waiting for its read; read: its photos were taken out (see message when there were none); failed: it could not be read (message says why); skipped: it never arrived or was empty.',
          ),
        pages: z.number().int().nullable().describe('Pages of the PDF, once it was opened.'),
        photos: z.number().int().describe('Photos taken out of it into the grouping pile.'),
        message: z
          .string()
          .nullable()
          .describe('What to know about this document: why it failed or was skipped, a limit it hit.'),
      }),
    )
    .describe('Photo jobs started with PDF contents lists: each list and how its read went; empty otherwise.'),
  import_batch_id: z
    .uuid()
    .nullable()
    .describe(
      'The claim-level contents-list import (GET /api/integrations/imports/{batch_id}) this job came from, or reads; null otherwise.',
    ),
  created_by_user_id: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** GET /api/jobs/{id}/metrics and the stream's final event. */
export function jobMetrics(job: Job) {
  const seconds =
    job.started_at && job.finished_at ? (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000 : null;
  return {
    job_id: job.id,
    status: job.status,
    stage_timings: job.stage_timings ?? {},
    processing_seconds: seconds,
    items_found: job.items_found,
    ai: {
      cost_usd: job.ai_cost_usd,
      input_tokens: job.ai_input_tokens,
      output_tokens: job.ai_output_tokens,
      api_calls: job.ai_api_calls,
    },
    billing: {
      credits: job.billed_cost_usd,
      blocks: job.billed_blocks,
      minutes: job.billed_minutes,
      photo_request_count: job.photo_request_count,
      refunded: job.billing_refunded,
    },
    recovery_attempts: job.recovery_attempts,
  };
}
