/**
 * The admin dashboard's decisions (spec: Admin; Impersonation; Limits): how
 * its lists are filtered and paged, and what an impersonation token says.
 * Pure: no I/O.
 */
import { SignJWT } from 'jose';
import { type JobStatus, RUNNING_STATUSES } from '../jobs/job-rules';
import { type JobTotal, typeTotal } from '../jobs/job-totals-rules';

/** GET /api/admin/users answers at most this many users. */
export const USER_SEARCH_CAP = 200;
/** GET /api/admin/media shows at most this many photos of a job (photo_count holds the total). */
export const MEDIA_PHOTOS_PER_JOB = 12;
/** The default page of the admin lists (the most recent jobs). */
export const DEFAULT_PAGE_SIZE = 50;
/**
 * GET /api/admin/api-requests shows fewer jobs by default: each carries every
 * request its job made, and a request keeps up to 60 KB of prompt and answer.
 */
export const API_REQUESTS_PAGE_SIZE = 10;
/** An api-requests page holds at most this many bytes of jobs and requests: Lambda answers at most 6 MB. */
export const API_REQUESTS_PAGE_BYTES = 4 * 1024 * 1024;
/** The overview's short lists (latest claims, last jobs, recent failures, activity). */
export const OVERVIEW_LIST_SIZE = 10;
/** The overview's per-team leaderboard. */
export const LEADERBOARD_SIZE = 20;
/** An impersonation token lives this long ("short-lived"). */
export const IMPERSONATION_TOKEN_SECONDS = 15 * 60;

/** Case-insensitive substring match of `q` on any of the fields; an empty query matches everything. */
export function matchesQuery(
  q: string | undefined,
  fields: ReadonlyArray<string | number | null | undefined>,
): boolean {
  const needle = q?.trim().toLowerCase();
  if (!needle) return true;
  return fields.some((field) => field !== null && field !== undefined && String(field).toLowerCase().includes(needle));
}

/** A job as the slim jobs index holds it (lib/db/keys.ts). */
export interface JobIndexRow {
  id: string;
  team_id: string;
  created_by_user_id: string;
  status: JobStatus;
  source_type: string;
  original_filename?: string | null;
  error_message?: string | null;
  ai_api_calls?: number;
}

export interface JobFilter {
  team_id?: string;
  user_id?: string;
  /** A job status, or 'active' for the running ones (photo jobs awaiting grouping are not running). */
  status?: string;
  /** video, photo or audio. */
  type?: string;
  q?: string;
  /** Only jobs that made AI calls. */
  with_ai_calls?: boolean;
}

/**
 * The job total (lib/jobs/job-totals-rules.ts) that is exactly this filter's
 * count, when one is: every team's jobs, of one media type or with AI calls
 * (not both); null when the filter needs counting.
 */
export function keptTotalOf(filter: JobFilter): JobTotal | null {
  if (filter.team_id || filter.user_id || filter.status || filter.q?.trim()) return null;
  if (filter.type && filter.with_ai_calls) return null;
  if (filter.type) return typeTotal(filter.type);
  return filter.with_ai_calls ? 'jobs_with_ai_calls' : 'jobs';
}

/** Names the query also matches a job by: its team's and its creator's. */
export interface JobNames {
  teamName: (teamId: string) => string | undefined;
  userText: (userId: string) => ReadonlyArray<string | null | undefined>;
}

/** The names a job is matched by: its team's (teams' names by id) and its creator's (creators by id). */
export function jobNamesOf(
  teamNames: ReadonlyMap<string, string>,
  users: ReadonlyMap<string, { name: string; email?: string | null }>,
): JobNames {
  return {
    teamName: (id) => teamNames.get(id),
    userText: (id) => [users.get(id)?.name, users.get(id)?.email],
  };
}

export function jobMatches(job: JobIndexRow, filter: JobFilter, names: JobNames): boolean {
  if (filter.team_id && job.team_id !== filter.team_id) return false;
  if (filter.user_id && job.created_by_user_id !== filter.user_id) return false;
  if (filter.type && job.source_type !== filter.type) return false;
  if (
    filter.status === 'active' ? !RUNNING_STATUSES.includes(job.status) : filter.status && job.status !== filter.status
  )
    return false;
  if (filter.with_ai_calls && !(Number(job.ai_api_calls) > 0)) return false;
  return matchesQuery(filter.q, [
    job.id,
    job.status,
    job.source_type,
    job.original_filename,
    job.error_message,
    names.teamName(job.team_id),
    ...names.userText(job.created_by_user_id),
  ]);
}

/** The claims of a login token that signs an admin in as another user (lib/auth/login-token-rules.ts reads them). */
export interface ImpersonationClaims {
  user_id: string;
  user_name: string;
  email?: string;
  current_team_id: number;
  current_team_name: string;
  current_team_token?: string;
  impersonated_by: string;
}

/**
 * What the token of an impersonation says: the user and their team as the
 * claims platform would put them, plus who impersonates. Null when the user
 * cannot be impersonated: a user or a team with no external id has no
 * identity on the claims platform to sign in as.
 */
export function impersonationClaims(
  user: { external_id: string | null; name: string; email: string | null },
  team: { external_id: number | null; name: string; team_token: string | null },
  admin: { external_id: string | null; id: string },
): ImpersonationClaims | null {
  if (!user.external_id || team.external_id === null) return null;
  return {
    user_id: user.external_id,
    user_name: user.name,
    ...(user.email ? { email: user.email } : {}),
    current_team_id: team.external_id,
    current_team_name: team.name,
    ...(team.team_token ? { current_team_token: team.team_token } : {}),
    impersonated_by: admin.external_id ?? admin.id,
  };
}

/** The impersonation token: HS256 with the shared secret, as the claims platform signs login tokens. */
export async function signImpersonationToken(
  claims: ImpersonationClaims,
  secret: string,
  now: Date,
): Promise<{ token: string; expires_at: string }> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = issuedAt + IMPERSONATION_TOKEN_SECONDS;
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));
  return { token, expires_at: new Date(expiresAt * 1000).toISOString() };
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The jobs of an api-requests page that fit in `budget` bytes of JSON, in
 * order: whole jobs while they fit, and the first job always, its requests
 * cut to what fits (requests_truncated says so). `cut` is true when jobs
 * were left for the next page.
 */
export function fitRequestsPage<G extends { requests: unknown[] }>(
  groups: readonly G[],
  budget: number,
): { kept: Array<G & { requests_truncated: boolean }>; cut: boolean } {
  const kept: Array<G & { requests_truncated: boolean }> = [];
  let used = 0;
  for (const group of groups) {
    const whole = { ...group, requests_truncated: false };
    const size = jsonBytes(whole);
    if (used + size <= budget) {
      kept.push(whole);
      used += size;
      continue;
    }
    if (kept.length > 0) return { kept, cut: true };
    // One job's requests alone are over the budget: as many as fit, oldest first.
    let left = budget - jsonBytes({ ...group, requests: [], requests_truncated: true });
    const requests: unknown[] = [];
    for (const request of group.requests) {
      const bytes = jsonBytes(request) + 1;
      if (bytes > left) break;
      requests.push(request);
      left -= bytes;
    }
    kept.push({ ...group, requests, requests_truncated: true });
    return { kept, cut: groups.length > 1 };
  }
  return { kept, cut: false };
}
