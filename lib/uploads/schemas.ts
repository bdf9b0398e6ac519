/** Chunked upload request and response shapes (spec: Uploads > Chunked upload). */
import * as z from 'zod';
import { uuid } from '../http/schemas';
import { jobResponse } from '../jobs/view';
import { MAX_PART_URLS_PER_CALL } from './rules';

export const uploadParams = z.object({ id: uuid() });

export const uploadInitBody = z.strictObject({
  kind: z.enum(['video', 'audio']),
  filename: z.string().trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
  room_id: uuid(),
  total_size: z
    .number()
    .int('must be a whole number of bytes')
    .positive('must be at least 1 byte')
    .max(Number.MAX_SAFE_INTEGER),
});

export const partUrlsBody = z.strictObject({
  parts: z
    .array(z.number().int('must be a whole number').min(0, 'must be 0 or more'))
    .min(1, 'must name at least one part')
    .max(MAX_PART_URLS_PER_CALL, `at most ${MAX_PART_URLS_PER_CALL} parts per call`),
});

const received = z.array(z.number().int()).describe('0-based indices of the parts S3 holds, ascending');

export const uploadInitResponse = z.object({
  upload_id: z.uuid(),
  chunk_size: z.number().int().describe('Bytes per part; every part but the last has exactly this size'),
  part_count: z.number().int(),
  received,
});

export const partUrlsResponse = z.object({
  urls: z.array(
    z.object({
      index: z.number().int(),
      url: z.string().describe('PUT the part here; the URL is signed for exactly `size` bytes'),
      size: z.number().int(),
      expires_at: z.string(),
    }),
  ),
});

export const uploadStatusResponse = z.object({
  upload_id: z.uuid(),
  status: z.enum(['open', 'completing', 'completed', 'aborted', 'expired']),
  chunk_size: z.number().int(),
  part_count: z.number().int(),
  received,
  job_id: z.uuid().nullable().describe('The job, once the upload is completed'),
});

export const uploadCompleteResponse = jobResponse.extend({
  pipeline_available: z
    .boolean()
    .describe(
      'False when this deployment has no pipeline for the source type yet: the job waits in awaiting_confirmation',
    ),
});

export const uploadAbortResponse = z.object({ upload_id: z.uuid(), status: z.enum(['aborted', 'expired']) });
