/**
 * Examples of the admin job lists' answers for the API reference
 * (lib/http/openapi.ts shows them beside the schemas): what `total`, `offset`
 * and `next_cursor` say on a first page, on a page reached by offset, and on
 * a page that reached the call's bound of days read before its offset.
 */
import { responseExample } from '../http/route';
import { encodeJobCursor } from './job-page-rules';
import { apiRequestsResponse, logsResponse, mediaResponse } from './schemas';

const ACME = { id: '3f2b8c1d-5e6a-4b7c-9d8e-0f1a2b3c4d5e', name: 'Acme Restoration' };
const HARBOR = { id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d', name: 'Harbor Adjusters' };
const DANA = { id: 'b5d7f9a1-3c5e-4f7a-9b1d-3e5f7a9b1c3d', name: 'Dana Whitfield', team_id: ACME.id };
const LEE = { id: 'c6e8a0b2-4d6f-4a8b-0c2e-4f6a8b0c2d4e', name: 'Lee Park', team_id: HARBOR.id };

function job(id: string, team: typeof ACME, user: typeof DANA, times: [string, string], fields = {}) {
  return {
    id,
    team_id: team.id,
    team_name: team.name,
    user_id: user.id,
    user_name: user.name,
    claim_id: '5b0e7c1a-3d2f-4a8b-9c6e-1f2a3b4c5d6e',
    room_id: '8d4f2e6a-1b3c-4d5e-8f7a-9b0c1d2e3f4a',
    source_type: 'video',
    status: 'complete',
    progress_pct: 100,
    current_stage: 'done',
    error_message: null,
    original_filename: 'kitchen-walkthrough.mp4',
    items_found: 23,
    credits_billed: 3,
    ai_api_calls: 6,
    ai_cost_usd: 0.0412,
    created_at: times[0],
    started_at: times[0],
    finished_at: times[1],
    logs_url: `/api/jobs/${id}/logs`,
    ...fields,
  };
}

const failure = {
  status: 'error',
  progress_pct: 40,
  items_found: 0,
  credits_billed: 0,
  ai_cost_usd: 0,
};
const DECODE_FAILED = job(
  '2a4c6e8b-0d2f-4a6c-8e0b-2d4f6a8c0e2b',
  ACME,
  DANA,
  ['2026-03-14T16:40:27.093Z', '2026-03-14T16:41:02.400Z'],
  { ...failure, current_stage: 'extracting', error_message: 'The video could not be decoded', ai_api_calls: 0 },
);
const AI_FAILED = job(
  '9e1b3d5f-7a9c-4e1b-8d3f-5a7c9e1b3d5f',
  HARBOR,
  LEE,
  ['2026-03-14T09:12:04.511Z', '2026-03-14T09:12:40.012Z'],
  {
    ...failure,
    source_type: 'photo',
    current_stage: 'grouping',
    error_message: 'Every AI request of the run failed',
    original_filename: 'garage-01.jpg',
    ai_api_calls: 4,
  },
);
const DONE = job('4c6e8a0b-2d4f-4a6c-8e0b-4d6f8a0c2e4b', ACME, DANA, [
  '2026-02-02T11:05:13.200Z',
  '2026-02-02T11:19:48.734Z',
]);
/** The cursor after the last job of a page (AI_FAILED). */
const AFTER_AI_FAILED = encodeJobCursor({
  day: '2026-03-14',
  after: `${AI_FAILED.created_at}#${AI_FAILED.id}`,
  skip: 0,
});

export const logsExamples = {
  response: {
    firstPage: responseExample(logsResponse, 'status=error&limit=2: 41 failed jobs in all, the newest 2 shown', {
      total: 41,
      limit: 2,
      offset: 0,
      next_cursor: AFTER_AI_FAILED,
      jobs: [DECODE_FAILED, AI_FAILED],
      teams: [ACME, HARBOR],
      users: [DANA, LEE],
    }),
    endedEarly: responseExample(
      logsResponse,
      'offset=500 with a filter few jobs match: the call read its most days first, so the page is empty; next_cursor goes on with the rest of the offset',
      {
        total: 517,
        limit: 50,
        offset: 500,
        next_cursor: encodeJobCursor({ day: '2026-01-11', after: null, skip: 312 }),
        jobs: [],
        teams: [ACME, HARBOR],
        users: [],
      },
    ),
  },
};

export const mediaExamples = {
  response: {
    byOffset: responseExample(mediaResponse, 'type=video&offset=50: the last page, 51 videos in all', {
      total: 51,
      limit: 50,
      offset: 50,
      next_cursor: null,
      items: [
        {
          ...DONE,
          media_url: `/api/jobs/${DONE.id}/video`,
          thumbnail_url: `/api/jobs/${DONE.id}/frames/frame-0001.jpg`,
          photos: [
            { name: 'frame-0001.jpg', url: `/api/jobs/${DONE.id}/frames/frame-0001.jpg` },
            { name: 'frame-0002.jpg', url: `/api/jobs/${DONE.id}/frames/frame-0002.jpg` },
          ],
          photo_count: 2,
          file_exists: true,
        },
      ],
    }),
  },
};

export const apiRequestsExamples = {
  response: {
    oneJob: responseExample(apiRequestsResponse, 'team_id=…&limit=1: a team’s 12 jobs with AI calls, the newest', {
      total: 12,
      limit: 1,
      offset: 0,
      next_cursor: AFTER_AI_FAILED,
      jobs: [
        {
          job: AI_FAILED,
          totals: { requests: 1, calls: 4, input_tokens: 3120, output_tokens: 0, cost_usd: 0 },
          requests: [
            {
              id: 'd7f9b1c3-5e7a-4b9c-1d3f-5a7b9c1d3e5f',
              purpose: 'photo-group',
              detail: { group_index: 0, pass: 1 },
              model: 'google/gemini-2.5-flash',
              outcome: 'failed',
              failure_kind: 'http',
              http_status: 400,
              error_message: 'Provider returned error',
              attempts: 4,
              latency_ms: 2210,
              input_tokens: 3120,
              output_tokens: 0,
              cost_usd: 0,
              finish_reason: null,
              max_tokens: 8192,
              temperature: 0.2,
              request: {
                system: 'You group photos of one room into the items they show.',
                text: 'Group these 1 photos.',
                images: [{ label: 'garage-01.jpg', bytes: 184_233, sha256: 'e3b0c44298fc1c149afbf4c8996fb924' }],
                response_format: null,
              },
              content: null,
              created_at: '2026-03-14T09:12:31.870Z',
            },
          ],
          requests_truncated: false,
        },
      ],
    }),
  },
};
