/**
 * Examples of the chunked upload's requests and answers for the API
 * reference (lib/http/openapi.ts shows them beside the schemas): the three
 * calls a client makes, with the numbers that tie them together
 * (total_size → chunk_size and part_count → the part indices to ask for).
 */
import { bodyExample, responseExample } from '../http/route';
import { partUrlsBody, partUrlsResponse, uploadCompleteResponse, uploadInitBody, uploadInitResponse } from './schemas';

const ROOM_ID = '8d4f2e6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a';
const UPLOAD_ID = 'c2a7e9f1-4b6d-4e8a-a1c3-5d7f9b2e4c6a';
const MIB = 1024 * 1024;
/** A 700 MiB walkthrough in 16 MiB parts: 43 full parts and a last one of 12 MiB. */
const VIDEO_BYTES = 700 * MIB;
const CHUNK = 16 * MIB;

const partUrl = (index: number) =>
  `https://media-bucket.s3.us-east-1.amazonaws.com/uploads/${UPLOAD_ID}/video.mp4?partNumber=${index + 1}&uploadId=2~abc&X-Amz-Expires=3600&X-Amz-Signature=9f2c…`;

export const uploadInitExamples = {
  body: {
    video: bodyExample(uploadInitBody, 'A walkthrough video of a room (700 MiB)', {
      kind: 'video',
      filename: 'living-room-walkthrough.mp4',
      room_id: ROOM_ID,
      total_size: VIDEO_BYTES,
    }),
    voiceNote: bodyExample(uploadInitBody, 'A voice note (4.5 MiB)', {
      kind: 'audio',
      filename: 'kitchen-notes.m4a',
      room_id: ROOM_ID,
      total_size: 4.5 * MIB,
    }),
  },
  response: {
    opened: responseExample(uploadInitResponse, 'Opened: 44 parts of 16 MiB, none received yet', {
      upload_id: UPLOAD_ID,
      chunk_size: CHUNK,
      part_count: Math.ceil(VIDEO_BYTES / CHUNK),
      received: [],
    }),
  },
};

export const partUrlsExamples = {
  body: {
    firstParts: bodyExample(partUrlsBody, 'URLs for the first three parts (at most 100 per call)', {
      parts: [0, 1, 2],
    }),
    resend: bodyExample(partUrlsBody, 'A fresh URL for a part whose PUT failed', { parts: [7] }),
  },
  response: {
    urls: responseExample(partUrlsResponse, 'PUT each part’s bytes to its URL; the last part is shorter', {
      urls: [
        { index: 0, url: partUrl(0), size: CHUNK, expires_at: '2025-06-02T15:04:05Z' },
        { index: 1, url: partUrl(1), size: CHUNK, expires_at: '2025-06-02T15:04:05Z' },
        { index: 43, url: partUrl(43), size: VIDEO_BYTES - 43 * CHUNK, expires_at: '2025-06-02T15:04:05Z' },
      ],
    }),
  },
};

export const uploadCompleteExamples = {
  response: {
    job: responseExample(uploadCompleteResponse, 'The video’s job, waiting for the adjuster to confirm it', {
      id: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
      room_id: ROOM_ID,
      claim_id: '5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e',
      source_type: 'video',
      status: 'awaiting_confirmation',
      progress_pct: 0,
      current_stage: 'awaiting_confirmation',
      error_message: null,
      original_filename: 'living-room-walkthrough.mp4',
      file_size_bytes: VIDEO_BYTES,
      total_frames: 0,
      duration: null,
      media_info: null,
      transcript: null,
      items_found: 0,
      ai_cost_usd: 0,
      ai_input_tokens: 0,
      ai_output_tokens: 0,
      ai_api_calls: 0,
      billed_cost_usd: 0,
      billed_blocks: 0,
      billed_minutes: 0,
      photo_request_count: 0,
      billing_charged: false,
      billing_txn_id: null,
      billing_amount: 0,
      billing_refunded: false,
      recovery_attempts: 0,
      photo_truncated_groups: [],
      photos_with_more_items: 0,
      last_pass_error: null,
      preparation_error: null,
      photo_count_hint: null,
      pdf_documents: [],
      import_batch_id: null,
      created_by_user_id: 'user-1042',
      started_at: null,
      finished_at: null,
      created_at: '2025-06-02T14:12:40Z',
      updated_at: '2025-06-02T14:12:40Z',
      pipeline_available: true,
    }),
  },
};

/** The one-request routes (POST /api/upload, /api/upload-audio): the same opening, the kind taken from the path. */
export const uploadVideoExamples = {
  body: { video: uploadInitExamples.body.video },
  response: uploadInitExamples.response,
};

export const uploadAudioExamples = {
  body: { voiceNote: uploadInitExamples.body.voiceNote },
  response: {
    opened: responseExample(uploadInitResponse, 'Opened: one part (a voice note is smaller than a part)', {
      upload_id: 'd3b8f0a2-5c7e-4f9b-b2d4-6e8a0c3f5d7b',
      chunk_size: CHUNK,
      part_count: 1,
      received: [],
    }),
  },
};
