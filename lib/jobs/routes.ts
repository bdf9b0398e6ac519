import * as z from 'zod';
import { defineRoute } from '../http/route';
import { idParams, uuid } from '../http/schemas';
import { jobResponse } from './view';

const logLine = z.object({ seq: z.number().int(), at: z.string(), level: z.enum(['info', 'warn', 'error']), message: z.string() });
// No length cap here: every unusable name, however long, is the traversal check's 404.
const frameName = z.object({ id: uuid(), name: z.string().min(1) });

export const jobRoutes = {
  list: defineRoute({
    name: 'listJobs', method: 'GET', path: '/api/jobs', auth: 'user', tag: 'jobs',
    summary: "The 50 most recent jobs of the caller's team.", handler: 'api/jobs/list-jobs', response: z.array(jobResponse),
  }),
  get: defineRoute({
    name: 'getJob', method: 'GET', path: '/api/jobs/{id}', auth: 'user', tag: 'jobs',
    summary: 'One job.', handler: 'api/jobs/get-job', params: idParams, response: jobResponse, errors: [404],
  }),
  roomJobs: defineRoute({
    name: 'listRoomJobs', method: 'GET', path: '/api/rooms/{room_id}/jobs', auth: 'user', tag: 'jobs',
    summary: "A room's jobs with current_item_count (archived items excluded) and items_found.", handler: 'api/jobs/list-room-jobs',
    params: z.object({ room_id: uuid() }), response: z.array(jobResponse.extend({ current_item_count: z.number().int() })), errors: [404],
  }),
  quote: defineRoute({
    name: 'quoteJob', method: 'GET', path: '/api/jobs/{id}/quote', auth: 'user', tag: 'jobs',
    summary: "Exact credit cost and the team's balance; charges nothing. Training claims quote 0.", handler: 'api/jobs/quote-job',
    params: idParams, errors: [404, 409],
    response: z.object({
      job_id: z.uuid(), source_type: z.enum(['video', 'photo', 'audio']), credits: z.number().int(), blocks: z.number().int(), duration: z.number().nullable(),
      photo_requests: z.number().int(), enterprise: z.boolean(), billing_enabled: z.boolean(), credits_balance: z.number().nullable(), buy_url: z.string().nullable(),
    }),
  }),
  process: defineRoute({
    name: 'processJob', method: 'POST', path: '/api/jobs/{id}/process', auth: 'actor', tag: 'jobs',
    summary: 'Start processing (credits spent up front; 402 when the billing service refuses).', handler: 'api/jobs/process-job',
    params: idParams, response: jobResponse, errors: [402, 404, 409, 503], idempotent: true,
  }),
  readTheRestQuote: defineRoute({
    name: 'readTheRestQuote', method: 'GET', path: '/api/jobs/{id}/read-the-rest/quote', auth: 'user', tag: 'jobs',
    summary: 'What reading the rest of the cut-short photo groups costs (one credit per group re-read), how many groups, the too-dense ones and the balance; charges nothing.',
    handler: 'api/jobs/read-the-rest-quote', params: idParams, errors: [404, 409],
    response: z.object({
      job_id: z.uuid(), groups: z.number().int(), group_indices: z.array(z.number().int()), credits: z.number().int(), max_passes: z.number().int(),
      too_dense: z.array(z.number().int()), advice: z.string().nullable(), enterprise: z.boolean(), billing_enabled: z.boolean(), credits_balance: z.number().nullable(), buy_url: z.string().nullable(),
    }),
  }),
  readTheRest: defineRoute({
    name: 'readTheRest', method: 'POST', path: '/api/jobs/{id}/read-the-rest', auth: 'actor', tag: 'jobs',
    summary:
      'Re-read the cut-short groups of a complete photo job with the names already found; new items are saved after the existing ones. ' +
      'Credits are spent up front (idempotent per round, refunded if the pass fails); 402 when the billing service refuses; 409 when nothing has a pass left.',
    handler: 'api/jobs/read-the-rest', params: idParams, response: jobResponse, errors: [402, 404, 409],
  }),
  cancel: defineRoute({
    name: 'cancelJob', method: 'POST', path: '/api/jobs/{id}/cancel', auth: 'actor', tag: 'jobs',
    summary: 'Discard a job waiting for confirmation, and its file, before any charge.', handler: 'api/jobs/cancel-job',
    params: idParams, response: z.object({ cancelled: z.boolean(), id: z.uuid() }), errors: [404, 409],
  }),
  logs: defineRoute({
    name: 'jobLogs', method: 'GET', path: '/api/jobs/{id}/logs', auth: 'user', tag: 'jobs',
    summary: 'The live log while the job runs (last 1000 lines), the archive once it has finished.', handler: 'api/jobs/job-logs',
    params: idParams, response: z.object({ job_id: z.uuid(), source: z.enum(['live', 'archive']), lines: z.array(logLine) }), errors: [404],
  }),
  metrics: defineRoute({
    name: 'jobMetrics', method: 'GET', path: '/api/jobs/{id}/metrics', auth: 'user', tag: 'jobs',
    summary: 'Stage timings, tokens, cost and billing of a job.', handler: 'api/jobs/job-metrics', params: idParams, errors: [404],
  }),
  video: defineRoute({
    name: 'jobVideo', method: 'GET', path: '/api/jobs/{id}/video', auth: 'capability', tag: 'jobs',
    summary: 'The uploaded video (302 to a short-lived URL that supports Range).', handler: 'api/jobs/job-video', params: idParams, successStatus: 302, errors: [404],
  }),
  audio: defineRoute({
    name: 'jobAudio', method: 'GET', path: '/api/jobs/{id}/audio', auth: 'capability', tag: 'jobs',
    summary: 'The uploaded audio (302 to a short-lived URL that supports Range).', handler: 'api/jobs/job-audio', params: idParams, successStatus: 302, errors: [404],
  }),
  frames: defineRoute({
    name: 'jobFrames', method: 'GET', path: '/api/jobs/{id}/frames', auth: 'user', tag: 'jobs',
    summary: "The job's extracted frames with their capability URLs.", handler: 'api/jobs/job-frames', params: idParams, errors: [404],
    response: z.object({ job_id: z.uuid(), frames: z.array(z.object({ name: z.string(), url: z.string() })) }),
  }),
  frame: defineRoute({
    name: 'jobFrame', method: 'GET', path: '/api/jobs/{id}/frames/{name}', auth: 'capability', tag: 'jobs',
    summary: 'One frame (302); the name is traversal-checked.', handler: 'api/jobs/job-frame', params: frameName, successStatus: 302, errors: [404],
  }),
  stream: defineRoute({
    name: 'jobStreamRedirect', method: 'GET', path: '/api/jobs/{id}/stream', auth: 'capability', tag: 'jobs',
    summary: 'Server-sent events (progress, log, metrics): 307 to the streaming endpoint, which polls about every 1.5 s for up to about 10 minutes and answers 429 while the job already has 5 streams open.',
    handler: 'api/jobs/job-stream', params: idParams, successStatus: 307, errors: [404, 429, 503],
  }),
  dismiss: defineRoute({
    name: 'dismissJob', method: 'POST', path: '/api/admin/jobs/{id}/dismiss', auth: 'admin', tag: 'admin',
    summary: 'Admin: mark a hung job failed with a retryable message and refund any up-front charge.', handler: 'api/jobs/dismiss-job',
    params: idParams, response: jobResponse, errors: [404, 409],
  }),
};
