/**
 * The admin job lists' `total` (spec: Admin): exactly how many jobs match the
 * filter, over every page.
 *  - Every team's jobs, or those of one media type, or those with AI calls:
 *    the job totals kept as jobs are written (lib/jobs/job-totals-rules.ts),
 *    16 rows whatever the number of jobs.
 *  - A team's filter: DynamoDB counts the team's own jobs index (Select
 *    COUNT with the filter's FilterExpression, ./job-filter-rules.ts).
 *  - A status (or 'active') or a user of every team: DynamoDB counts the day
 *    partitions from today back to the oldest team's day (COUNT_DAYS_AT_ONCE
 *    at once), a cost that grows with the days the service has run.
 * Only the free text `q` cannot be counted by DynamoDB: it matches team and
 * creator names, which the slim rows do not hold, so its rows (those the
 * other filters keep) are read and matched here.
 */
import pLimit from 'p-limit';
import type { User } from '../users/user-record-rules';
import { isExpressible, jobFilterExpression } from './job-filter-rules';
import { COUNT_DAYS_AT_ONCE, dayOf, daysFrom } from './job-page-rules';
import { readJobTotals } from '../jobs/job-totals-store';
import { type JobFilter, type JobIndexRow, jobMatches, jobNamesOf, keptTotalOf } from './rules';
import {
  countJobIndexRowsOfDay,
  countTeamJobIndexRows,
  getOldestTeamDay,
  getUsersById,
  listAllTeams,
  listJobIndexRowsOfDay,
  listTeamJobIndexRows,
  listTeamUsersById,
} from './store';

/** How many media jobs of every team (or the filter's team) match the filter. */
export async function countMatchingJobs(filter: JobFilter, now = new Date()): Promise<number> {
  const kept = keptTotalOf(filter);
  if (kept) return (await readJobTotals())[kept];
  const expression = jobFilterExpression(filter);
  if (filter.team_id && isExpressible(filter)) return countTeamJobIndexRows(filter.team_id, expression);
  if (filter.team_id) {
    const [rows, users] = await Promise.all([
      readAll(listTeamJobIndexRows(filter.team_id, null)),
      listTeamUsersById(filter.team_id),
    ]);
    return countByText(rows, filter, users);
  }
  const oldest = await getOldestTeamDay();
  // No team, no job: every job belongs to a team created before it.
  if (!oldest) return 0;
  const limit = pLimit(COUNT_DAYS_AT_ONCE);
  const days = daysFrom(dayOf(now.toISOString()), oldest);
  if (isExpressible(filter)) {
    const counts = await Promise.all(days.map((day) => limit(() => countJobIndexRowsOfDay(day, expression))));
    return counts.reduce((sum, count) => sum + count, 0);
  }
  const rows = (await Promise.all(days.map((day) => limit(() => listJobIndexRowsOfDay(day, null, expression))))).flat();
  return countByText(rows, filter, await getUsersById(rows.map((row) => row.created_by_user_id)));
}

/** The rows (already kept by the structured filters) that the text also matches, by team and creator names. */
async function countByText(rows: readonly JobIndexRow[], filter: JobFilter, users: Map<string, User>) {
  const teamNames = new Map((await listAllTeams()).map((team) => [team.id, team.name]));
  const names = jobNamesOf(teamNames, users);
  return rows.filter((row) => jobMatches(row, filter, names)).length;
}

async function readAll<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}
