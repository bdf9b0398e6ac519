/** Request and answer shapes of the admin routes (spec: Admin). */
import * as z from 'zod';
import { activityEntryResponse } from '../activity/routes';
import { COMPONENT_DEFAULTS } from '../features/rules';
import type { AiFailureKind } from '../integrations/ai-call';
import { uuid } from '../http/schemas';
import { JOB_STATUSES } from '../jobs/job-rules';
import { MEDIA_TYPES, OVERVIEW_RANGES } from '../stats/rules';
import { MAX_DAYS_PER_PAGE, MAX_TEAM_ROWS_PER_PAGE } from './job-page-rules';
import { API_REQUESTS_PAGE_BYTES, API_REQUESTS_PAGE_SIZE, DEFAULT_PAGE_SIZE } from './rules';

const id = z.string().max(100);
const q = z.string().max(200).optional().describe('Case-insensitive text to look for.');
const offsetPage = {
  limit: z.coerce.number().int().min(1).max(200).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).default(0),
};
/**
 * The job lists page by limit and offset (spec: Admin), or by the cursor a
 * page answers, which goes on where it stopped without walking the skipped
 * jobs again (lib/admin/job-page-rules.ts). Not both at once.
 */
const pageLimit = (size: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(size)
    .describe(`Most jobs on the page (1 to 200; ${size} when absent).`);
const jobPage = {
  limit: pageLimit(DEFAULT_PAGE_SIZE),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      `Matching jobs to skip, from the newest. Not with \`cursor\`, which already says where the page starts (both: 422 on \`query.offset\`). A call reads at most ${MAX_DAYS_PER_PAGE} days of jobs (a team's list at most ${MAX_TEAM_ROWS_PER_PAGE} of the team's jobs): a page that reaches that bound first ends early, even empty, with \`next_cursor\` to go on.`,
    ),
  cursor: z
    .string()
    .max(2000)
    .optional()
    .describe(
      '`next_cursor` of the previous page, unchanged: the page goes on where that one stopped. Absent for the first page or when paging by `offset`.',
    ),
};
/** The job lists' filters (lib/admin/rules.ts jobMatches). */
const jobTeam = id.optional().describe('Only the jobs of this team (its id).');
const jobUser = id.optional().describe('Only the jobs this user (their id) created.');
const jobText = z
  .string()
  .max(200)
  .optional()
  .describe(
    "Case-insensitive text found in the job's id, status, type, file name or error, its team's name, or its creator's name or email.",
  );
/** A cursor already says where the page starts: an offset beside it would be ignored, so it is refused. */
const oneStart: [(query: { offset: number; cursor?: string }) => boolean, { path: string[]; message: string }] = [
  (query) => !(query.cursor && query.offset > 0),
  { path: ['offset'], message: 'offset cannot be used with cursor: pass one or the other' },
];
const nextCursor = z
  .string()
  .nullable()
  .describe(
    `Pass as \`cursor\` for the page after this one; null when no job is left. A page may hold fewer jobs than \`limit\` and still have a cursor: a call reads at most ${MAX_DAYS_PER_PAGE} days (a team's list ${MAX_TEAM_ROWS_PER_PAGE} jobs), so a filter that matches rarely, or a large offset, ends the page early.`,
  );
const total = z.number().int().describe('How many jobs match the filters, over every page (not only this one).');
const offsetEcho = z.number().int().describe('The offset asked for (0 when paging by cursor).');

export const overviewQuery = z.object({
  range: z
    .string()
    .max(20)
    .optional()
    .describe(`One of ${OVERVIEW_RANGES.join(', ')}; anything else (or nothing) means all.`),
});
export const usersQuery = z.object({ search: z.string().max(200).optional().describe('Name, email or external id.') });
export const userParams = z.object({ user_id: uuid() });
export const logsQuery = z
  .object({
    team_id: jobTeam,
    user_id: jobUser,
    status: z
      .enum([...JOB_STATUSES, 'active'])
      .optional()
      .describe("A job status, or 'active' for the jobs running now (a photo job awaiting grouping is not)."),
    q: jobText,
    ...jobPage,
  })
  .refine(...oneStart);
export const activityQuery = z.object({ team_id: id.optional(), q, ...offsetPage });
export const mediaQuery = z
  .object({
    type: z.enum(MEDIA_TYPES).optional().describe('Only jobs of this media type: video, photo or audio.'),
    team_id: jobTeam,
    q: jobText,
    ...jobPage,
  })
  .refine(...oneStart);
export const apiRequestsQuery = z
  .object({ team_id: jobTeam, user_id: jobUser, q: jobText, ...jobPage, limit: pageLimit(API_REQUESTS_PAGE_SIZE) })
  .refine(...oneStart);

const componentName = z.enum(Object.keys(COMPONENT_DEFAULTS) as [keyof typeof COMPONENT_DEFAULTS]);
export const componentBody = z.strictObject({
  component: componentName,
  team_id: z.string().max(100).describe("The team whose override is set; '' sets the global override."),
  visible: z.boolean().nullable().describe('null clears the override.'),
});

const adminJob = z.object({
  id: z.string(),
  team_id: z.string(),
  team_name: z.string().nullable(),
  user_id: z.string(),
  user_name: z.string().nullable(),
  claim_id: z.string(),
  room_id: z.string().nullable(),
  source_type: z.string(),
  status: z.string(),
  progress_pct: z.number(),
  current_stage: z.string(),
  error_message: z.string().nullable(),
  original_filename: z.string().nullable(),
  items_found: z.number(),
  credits_billed: z.number(),
  ai_api_calls: z.number(),
  ai_cost_usd: z.number(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  logs_url: z.string().describe('The live log lines (admins may read any job).'),
});

const counters = z.object({
  jobs: z.number(),
  completed: z.number(),
  failed: z.number(),
  credits: z.number(),
  items: z.number(),
  ai_cost_usd: z.number(),
  ai_tokens: z.number(),
  ai_calls: z.number(),
  processing_seconds: z.number(),
});

export const overviewResponse = z.object({
  range: z.enum(OVERVIEW_RANGES),
  range_start: z.string().nullable().describe('Where the range starts; null for all time.'),
  generated_at: z.string(),
  credits_spent: z.number().describe('Credits billed for jobs that completed in the range.'),
  counts: z.object({
    jobs: z.number().describe('Media jobs created.'),
    completed: z.number(),
    failed: z.number(),
    items: z.number().describe('Items produced by the jobs that completed.'),
    claims: z.number().describe('Claims created.'),
    submissions: z.number().describe('Sends to the claims platform.'),
    estimation_sends: z.number().describe('Sends to the estimation platform.'),
  }),
  spend_by_media_type: z.object({ video: counters, photo: counters, audio: counters }),
  leaderboard: z.array(counters.extend({ team_id: z.string(), team_name: z.string().nullable() })),
  latest_claims: z.array(
    z.object({
      id: z.string(),
      claim_number: z.string(),
      team_id: z.string(),
      team_name: z.string().nullable(),
      is_training: z.boolean(),
      created_at: z.string(),
    }),
  ),
  last_jobs: z.array(adminJob),
  processing_now: z.array(adminJob).describe('Jobs running now, whatever the range.'),
  recent_failures: z.array(
    z.object({
      job_id: z.string(),
      team_id: z.string(),
      team_name: z.string().nullable(),
      source_type: z.string(),
      error_message: z.string(),
      failed_at: z.string(),
    }),
  ),
  activity: z.array(activityEntryResponse),
  submissions: z.object({ claims_platform: z.number(), estimation_platform: z.number() }),
  quality: z.object({
    items_per_job: z.number().nullable(),
    processing_seconds_per_job: z.number().nullable(),
    success_rate: z.number().nullable(),
    ai_cost_usd_per_job: z.number().nullable(),
    credits_per_job: z.number().nullable(),
  }),
  stats: z.object({
    ai_cost_usd: z.number(),
    ai_tokens: z.number(),
    ai_calls: z.number(),
    processing_seconds: z.number(),
  }),
  active_users: z.number().int().describe('Users seen within the last 5 minutes, whatever the range.'),
  active_jobs: z
    .number()
    .int()
    .describe('Jobs running now (photo jobs awaiting grouping are not), whatever the range.'),
});

const adminUser = z.object({
  id: z.string(),
  external_id: z.string().nullable(),
  name: z.string(),
  email: z.string().nullable(),
  team_id: z.string(),
  team_name: z.string().nullable(),
  is_admin: z.boolean(),
  last_seen_at: z.string().nullable(),
  created_at: z.string(),
});

export const usersResponse = z.object({ users: z.array(adminUser), capped: z.boolean() });
export const impersonateResponse = z.object({
  token: z.string().describe('A login token for the user, signed like the claims platform’s; short-lived.'),
  expires_at: z.string(),
  impersonated_by: z.string(),
  user: adminUser,
});
export const activeJobsResponse = z.object({ active_jobs: z.number().int() });

const teamRef = z.object({ id: z.string(), name: z.string() });
const userRef = z.object({ id: z.string(), name: z.string(), team_id: z.string() });
export const logsResponse = z.object({
  total,
  limit: z.number().int(),
  offset: offsetEcho,
  next_cursor: nextCursor,
  jobs: z.array(adminJob),
  teams: z.array(teamRef).describe('Every team, by name: the team filter’s choices.'),
  users: z.array(userRef).describe('The creators of the page’s jobs: the user filter’s choices.'),
});

export const activityResponse = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
  items: z.array(activityEntryResponse.extend({ team_name: z.string().nullable() })),
});

export const mediaResponse = z.object({
  total,
  limit: z.number().int(),
  offset: offsetEcho,
  next_cursor: nextCursor,
  items: z.array(
    adminJob.extend({
      media_url: z.string().nullable().describe('Capability URL of the video or audio; null for photo jobs.'),
      thumbnail_url: z.string().nullable(),
      photos: z.array(z.object({ name: z.string(), url: z.string() })).describe('At most 12.'),
      photo_count: z.number().int(),
      file_exists: z.boolean().describe('Whether the uploaded file (or the first photo) is in the bucket.'),
    }),
  ),
});

// The redacted record lib/jobs/ai-request-store.ts keeps for this view: every field is for the admin.
const aiRequest = z.object({
  id: z.string(),
  purpose: z.string(),
  detail: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Where in the job the call was made, e.g. {group_index, pass}; null when the caller gave none.'),
  model: z.string(),
  outcome: z.string(),
  failure_kind: z
    .enum(['unconfigured', 'http', 'timeout', 'unreachable', 'empty', 'unreadable'] satisfies AiFailureKind[])
    .nullable()
    .describe('Why a failed call failed; null when it was answered.'),
  http_status: z.number().nullable(),
  error_message: z.string().nullable(),
  attempts: z.number(),
  latency_ms: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
  finish_reason: z.string().nullable(),
  max_tokens: z.number().describe('The answer token limit sent with the call.'),
  temperature: z.number().nullable().describe('The temperature sent; null when the model takes none.'),
  request: z
    .object({
      system: z.string(),
      text: z.string(),
      images: z.array(z.object({ label: z.string(), bytes: z.number(), sha256: z.string() })),
      response_format: z
        .object({ name: z.string(), schema: z.record(z.string(), z.unknown()) })
        .nullable()
        .describe('The JSON schema the answer was asked to follow; null when the call asked for free text.'),
    })
    .describe('What was sent; images only as label, size and hash.'),
  content: z.string().nullable(),
  created_at: z.string(),
});

export const apiRequestsResponse = z.object({
  total: total.describe('How many jobs with AI calls match the filters, over every page (not only this one).'),
  limit: z.number().int(),
  offset: offsetEcho,
  next_cursor: nextCursor,
  jobs: z.array(
    z.object({
      job: adminJob,
      totals: z.object({
        requests: z.number().int(),
        calls: z.number().int(),
        input_tokens: z.number(),
        output_tokens: z.number(),
        cost_usd: z.number(),
      }),
      requests: z.array(aiRequest),
      requests_truncated: z
        .boolean()
        .describe(
          `True when this job's requests alone are more than a page holds (${API_REQUESTS_PAGE_BYTES / 1024 / 1024} MB of JSON): the first ones are listed, totals.requests counts them all.`,
        ),
    }),
  ),
});

export const componentsResponse = z.object({
  components: z.array(
    z.object({
      component: z.string(),
      default: z.boolean(),
      global: z.boolean().nullable().describe('The global override; null when none.'),
      teams: z.array(z.object({ team_id: z.string(), team_name: z.string().nullable(), visible: z.boolean() })),
    }),
  ),
});
