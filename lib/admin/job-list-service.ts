/**
 * The admin's job lists across teams (spec: Admin): GET /api/admin/logs,
 * /api/admin/active-jobs and /api/admin/api-requests. Lists read the slim
 * all-jobs index (a few hundred bytes a job), filter it, count the matches
 * and read only the page's jobs in full.
 */
import { listAiRequests } from '../jobs/ai-request-store';
import type { Job } from '../jobs/job-store';
import { type JobFilter, type JobIndexRow, jobMatches, pageOf, USER_SEARCH_CAP } from './rules';
import { getJobsInOrder, getUsersById, listAllTeams, listJobIndexRows, listRunningJobIds } from './store';
import { adminJobView, namesOf } from './view';

type Page = { limit: number; offset: number };

/** The jobs matching the filter as the slim index holds them, newest first, and every team. */
export async function listMatchingJobs(filter: JobFilter) {
  const [rows, teams] = await Promise.all([listJobIndexRows(), listAllTeams()]);
  const teamNames = new Map(teams.map((team) => [team.id, team.name]));
  // The creators' names are read only when the text filter needs them.
  const users = filter.q?.trim() ? await getUsersById(rows.map((row) => row.created_by_user_id)) : new Map();
  const matched = rows.filter((row) =>
    jobMatches(row, filter, {
      teamName: (id) => teamNames.get(id),
      userText: (id) => [users.get(id)?.name, users.get(id)?.email],
    }),
  );
  return { matched, teams };
}

/** One page of matching jobs read in full, with their teams' and creators' names. */
export async function listJobPage(rows: readonly JobIndexRow[], page: Page) {
  const { total, rows: pageRows } = pageOf(rows, page);
  const jobs = await getJobsInOrder(pageRows.map((row) => row.id));
  return { total, jobs, names: await namesOf(jobs) };
}

/** GET /api/admin/logs: jobs of every team with the filters' choices (teams; the matching jobs' creators). */
export async function listJobLogs(filter: JobFilter & Page) {
  const { matched, teams } = await listMatchingJobs(filter);
  const { total, jobs, names } = await listJobPage(matched, filter);
  const creators = await getUsersById(
    [...new Set(matched.map((row) => row.created_by_user_id))].slice(0, USER_SEARCH_CAP),
  );
  return {
    total,
    limit: filter.limit,
    offset: filter.offset,
    jobs: jobs.map((job) => adminJobView(job, names)),
    teams: teams.map((team) => ({ id: team.id, name: team.name })).sort((a, b) => a.name.localeCompare(b.name)),
    users: [...creators.values()]
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

/** GET /api/admin/api-requests: the AI calls of the matching jobs, grouped by job with per-job totals. */
export async function listApiRequests(filter: Pick<JobFilter, 'team_id' | 'user_id' | 'q'> & Page) {
  const { matched } = await listMatchingJobs({ ...filter, with_ai_calls: true });
  const { total, jobs, names } = await listJobPage(matched, filter);
  const groups = await Promise.all(
    jobs.map(async (job) => {
      const records = await listAiRequests(job.id);
      return {
        job: adminJobView(job, names),
        totals: {
          requests: records.length,
          calls: job.ai_api_calls,
          input_tokens: job.ai_input_tokens,
          output_tokens: job.ai_output_tokens,
          cost_usd: job.ai_cost_usd,
        },
        // Stored redacted (lib/jobs/ai-request-store.ts): images as label, size and hash; no key.
        requests: records.map(({ job_id, team_id, ...record }) => {
          void job_id;
          void team_id;
          return record;
        }),
      };
    }),
  );
  return { total, limit: filter.limit, offset: filter.offset, jobs: groups };
}
