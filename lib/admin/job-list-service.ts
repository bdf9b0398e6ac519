/**
 * The admin's job lists across teams (spec: Admin): GET /api/admin/logs,
 * /api/admin/active-jobs, /api/admin/api-requests (and /api/admin/media).
 * Lists walk the slim jobs index a UTC day at a time, newest first
 * (lib/admin/job-page-rules.ts), filter it, and read only the page's jobs in
 * full; a page starts `offset` matches from the newest or where a cursor
 * stopped, and ends with a cursor where it stopped. A call reads the days its
 * page needs (at most MAX_DAYS_PER_PAGE), never the whole index; the total is
 * counted beside it (./job-count-service.ts).
 */
import { listAiRequests } from '../jobs/ai-request-store';
import type { Job } from '../jobs/job-record-rules';
import type { User } from '../users/user-record-rules';
import { countMatchingJobs } from './job-count-service';
import { jobFilterExpression } from './job-filter-rules';
import {
  afterJob,
  dayOf,
  decodeJobCursor,
  encodeJobCursor,
  type JobPosition,
  MAX_DAYS_AT_ONCE,
  MAX_DAYS_PER_PAGE,
  MAX_TEAM_ROWS_PER_PAGE,
  previousDay,
} from './job-page-rules';
import {
  API_REQUESTS_PAGE_BYTES,
  fitRequestsPage,
  type JobFilter,
  type JobIndexRow,
  jobMatches,
  jobNamesOf,
} from './rules';
import {
  getJobsInOrder,
  getOldestTeamDay,
  getUsersById,
  listAllTeams,
  listJobIndexRowsOfDay,
  listRunningJobIds,
  listTeamJobIndexRows,
  listTeamUsersById,
  namesOf,
} from './store';
import { adminJobView } from './view';

/** Where a page starts: `offset` matches from the newest, or where `cursor` stopped (the route refuses both). */
type Page = { limit: number; offset?: number; cursor?: string };

/**
 * One page of the jobs matching the filter, newest first, as the slim index
 * holds them: from where the cursor stopped, else `offset` matches from the
 * newest; and the cursor of the next page (null when there is none). `until`
 * (an ISO instant) ends the walk at jobs created before it.
 */
export async function listMatchingJobs(filter: JobFilter, page: Page, now = new Date(), until?: string) {
  const start = decodeJobCursor(page.cursor, dayOf(now.toISOString()), page.offset ?? 0);
  // Team names are read only when the text filter needs them (the logs read the teams for their choices).
  const teams = filter.q?.trim() ? await listAllTeams() : [];
  const teamNames = new Map(teams.map((team) => [team.id, team.name]));
  const { matched, position } = filter.team_id
    ? await listTeamMatchingJobs(filter.team_id, filter, page.limit, start, teamNames)
    : await listDayMatchingJobs(filter, page.limit, start, teamNames, until);
  return {
    matched: matched.map(({ jobssk, ...row }) => {
      void jobssk;
      return row as JobIndexRow;
    }),
    next_cursor: position ? encodeJobCursor(position) : null,
  };
}

type Row = JobIndexRow & { jobssk: string };
type Walked = { matched: Row[]; position: JobPosition | null };

function matcherOf(filter: JobFilter, teamNames: Map<string, string>, users: Map<string, User>) {
  const names = jobNamesOf(teamNames, users);
  return (row: JobIndexRow) => jobMatches(row, filter, names);
}

/** A page being filled: the first `skip` matches are passed over, the next `limit` kept. */
function pageOf(limit: number, skip: number) {
  const matched: Row[] = [];
  let left = skip;
  return {
    matched,
    /** Takes a match; true once the page is full. */
    take(row: Row): boolean {
      if (left > 0) left -= 1;
      else matched.push(row);
      return matched.length >= limit;
    },
    full: () => matched.length >= limit,
    skipLeft: () => left,
  };
}

/**
 * A team's page: its own jobs index, newest first, from the start position;
 * a page reads at most MAX_TEAM_ROWS_PER_PAGE of the team's jobs (a filter
 * that matches rarely, or a large offset, answers a short page with a cursor).
 */
async function listTeamMatchingJobs(
  teamId: string,
  filter: JobFilter,
  limit: number,
  start: JobPosition,
  teamNames: Map<string, string>,
): Promise<Walked> {
  // The whole of the start day when no job on it was passed yet: 'U' sorts after every <day>T… key.
  const before = start.after ?? `${start.day}U`;
  const users = filter.q?.trim() ? await listTeamUsersById(teamId) : new Map<string, User>();
  const matches = matcherOf(filter, teamNames, users);
  const page = pageOf(limit, start.skip);
  let read = 0;
  for await (const row of listTeamJobIndexRows(teamId, before)) {
    read += 1;
    if ((matches(row) && page.take(row)) || read >= MAX_TEAM_ROWS_PER_PAGE)
      return { matched: page.matched, position: { day: dayOf(row.jobssk), after: row.jobssk, skip: page.skipLeft() } };
  }
  return { matched: page.matched, position: null };
}

/**
 * A page of every team's jobs: the day buckets, newest first, from the start
 * position back to the floor, DynamoDB dropping what the structured filters
 * do not match before rows come back.
 */
async function listDayMatchingJobs(
  filter: JobFilter,
  limit: number,
  start: JobPosition,
  teamNames: Map<string, string>,
  until?: string,
): Promise<Walked> {
  let position: JobPosition | null = start;
  const oldestDay = await getOldestTeamDay();
  const floor = [oldestDay ?? position.day, until ? dayOf(until) : ''].sort().at(-1) as string;
  const expression = jobFilterExpression(filter);
  const page = pageOf(limit, start.skip);
  let daysRead = 0;
  let atOnce = 1;
  while (position && !page.full() && daysRead < MAX_DAYS_PER_PAGE) {
    // The next days, read at once (1, 2, 4, ... of them): a filtered walk crosses quiet days quickly.
    const days: Array<{ day: string; after: string | null }> = [position];
    while (days.length < Math.min(atOnce, MAX_DAYS_PER_PAGE - daysRead) && days.at(-1)!.day > floor)
      days.push({ day: previousDay(days.at(-1)!.day), after: null });
    atOnce = Math.min(atOnce * 2, MAX_DAYS_AT_ONCE);
    const read = await Promise.all(days.map((day) => listJobIndexRowsOfDay(day.day, day.after, expression)));
    const users = filter.q?.trim()
      ? await getUsersById(read.flat().map((row) => row.created_by_user_id))
      : new Map<string, User>();
    const matches = matcherOf(filter, teamNames, users);
    position = null;
    for (const [i, rows] of read.entries()) {
      daysRead += 1;
      const last = rows.findIndex((row) => (until && row.jobssk < until) || (matches(row) && page.take(row)));
      if (last >= 0) {
        const stop = rows[last];
        position = until && stop.jobssk < until ? null : { day: days[i].day, after: stop.jobssk, skip: 0 };
        break;
      }
      position = days[i].day > floor ? { day: previousDay(days[i].day), after: null, skip: page.skipLeft() } : null;
    }
  }
  return { matched: page.matched, position };
}

/** The page's jobs read in full, with their teams' and creators' names. */
export async function listJobPage(rows: readonly JobIndexRow[]) {
  const jobs = await getJobsInOrder(rows.map((row) => row.id));
  return { jobs, names: await namesOf(jobs) };
}

/** The ids of the newest media jobs created since `start` (all when null), newest first: the overview's last jobs. */
export async function listNewestJobIds(start: string | null, limit: number, now = new Date()): Promise<string[]> {
  const { matched } = await listMatchingJobs({}, { limit }, now, start ?? undefined);
  return matched.map((row) => row.id);
}

/** GET /api/admin/logs: a page of jobs of every team, how many match, and the filters' choices (teams; the page's creators). */
export async function listJobLogs(filter: JobFilter & Page) {
  const [{ matched, next_cursor }, total, teams] = await Promise.all([
    listMatchingJobs(filter, filter),
    countMatchingJobs(filter),
    listAllTeams(),
  ]);
  const { jobs, names } = await listJobPage(matched);
  return {
    total,
    limit: filter.limit,
    offset: filter.offset ?? 0,
    next_cursor,
    jobs: jobs.map((job) => adminJobView(job, names)),
    teams: teams.map((team) => ({ id: team.id, name: team.name })).sort((a, b) => a.name.localeCompare(b.name)),
    users: [...names.users.values()]
      .map((user) => ({ id: user.id, name: user.name, team_id: user.team_id }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** The jobs running now: a contents-list reader or capture runner is not a job of anyone's; awaiting grouping is not running. */
export async function listRunningJobs(): Promise<Job[]> {
  const jobs = await getJobsInOrder(await listRunningJobIds());
  return jobs.filter((job) => !job.reads_batch_id);
}

/** GET /api/admin/active-jobs. */
export async function countActiveJobs() {
  return { active_jobs: (await listRunningJobs()).length };
}

/**
 * GET /api/admin/api-requests: the AI calls of the matching jobs, grouped by
 * job with per-job totals. A page ends early, with a cursor after its last
 * job, when its requests would pass `budget` bytes (Lambda answers at most
 * 6 MB); a job whose requests alone pass it shows the first ones.
 */
export async function listApiRequests(
  filter: Pick<JobFilter, 'team_id' | 'user_id' | 'q'> & Page,
  budget = API_REQUESTS_PAGE_BYTES,
) {
  const withCalls = { ...filter, with_ai_calls: true };
  const [{ matched, next_cursor }, total] = await Promise.all([
    listMatchingJobs(withCalls, filter),
    countMatchingJobs(withCalls),
  ]);
  // The records are read beside the jobs: both need only the page's ids.
  const [{ jobs, names }, records] = await Promise.all([
    listJobPage(matched),
    Promise.all(matched.map((row) => listAiRequests(row.id))),
  ]);
  const recordsOf = new Map(matched.map((row, i) => [row.id, records[i]]));
  const groups = jobs.map((job) => {
    const requests = recordsOf.get(job.id) ?? [];
    return {
      job: adminJobView(job, names),
      totals: {
        requests: requests.length,
        calls: job.ai_api_calls,
        input_tokens: job.ai_input_tokens,
        output_tokens: job.ai_output_tokens,
        cost_usd: job.ai_cost_usd,
      },
      // Stored redacted (lib/jobs/ai-request-store.ts): images as label, size and hash; no key.
      requests: requests.map(({ job_id, team_id, ...record }) => {
        void job_id;
        void team_id;
        return record;
      }),
    };
  });
  const { kept, cut } = fitRequestsPage(groups, budget);
  const last = jobs[kept.length - 1];
  return {
    total,
    limit: filter.limit,
    offset: filter.offset ?? 0,
    next_cursor: cut && last ? encodeJobCursor(afterJob(last)) : next_cursor,
    jobs: kept,
  };
}
