/**
 * What the admin dashboard reads across every team: the slim jobs index (a day at a time),
 * teams, users, the newest claims and activity, the running jobs. Each read
 * is an index partition newest first, never a table scan.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getRows } from '../db/batch';
import { db, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { jobIndexes, jobKeys } from '../jobs/keys';
import { teamKeys } from '../teams/keys';
import { userIndexes, userKeys } from '../users/keys';
import { countIndexRows, indexRows, queryAll } from '../db/query';
import { countJobInTotals } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';
import type { JobFilterExpression } from './job-filter-rules';
import type { JobIndexRow } from './rules';

/**
 * The media jobs created on one UTC day as the slim index holds them, newest
 * first; only those before `after` (a jobssk) when given, and only those the
 * filter expression keeps when given. `jobssk` is kept: it is where a page
 * that stops at the row goes on.
 */
export async function listJobIndexRowsOfDay(
  day: string,
  after: string | null,
  filter: JobFilterExpression | null = null,
): Promise<Array<JobIndexRow & { jobssk: string }>> {
  const out: Array<JobIndexRow & { jobssk: string }> = [];
  for await (const row of indexRows(jobIndexes.jobsOfDay(day), {
    ScanIndexForward: false,
    ...(after ? { KeyConditionExpression: '#pk = :pk AND jobssk < :after' } : {}),
    FilterExpression: filter?.FilterExpression,
    ExpressionAttributeNames: filter?.ExpressionAttributeNames,
    ExpressionAttributeValues: { ...filter?.ExpressionAttributeValues, ...(after ? { ':after': after } : {}) },
  })) {
    const { jobssk, ...rest } = row;
    out.push({ ...(withoutKeys(rest) as unknown as JobIndexRow), jobssk: jobssk as string });
  }
  return out;
}

/** How many of one UTC day's media jobs the filter expression keeps (all when null); DynamoDB counts them. */
export function countJobIndexRowsOfDay(day: string, filter: JobFilterExpression | null): Promise<number> {
  return countIndexRows(jobIndexes.jobsOfDay(day), { ...filter });
}

/** How many of a team's media jobs (its own jobs index) the filter expression keeps; DynamoDB counts them. */
export function countTeamJobIndexRows(teamId: string, filter: JobFilterExpression | null): Promise<number> {
  return countIndexRows(jobIndexes.teamJobs(teamId), { ...filter });
}

/**
 * One team's media jobs created before `before` (a <created_at>#<id> sort
 * key; every job when null), newest first, from the team's own jobs index
 * (gsi2, the same sort key as the day buckets), a page at a time: a team's
 * list reads only its jobs. `jobssk` is the sort key, where a page that stops
 * at the row goes on.
 */
export async function* listTeamJobIndexRows(
  teamId: string,
  before: string | null,
): AsyncGenerator<JobIndexRow & { jobssk: string }> {
  for await (const row of indexRows(jobIndexes.teamJobs(teamId), {
    ScanIndexForward: false,
    ...(before
      ? { KeyConditionExpression: '#pk = :pk AND gsi2sk < :before', ExpressionAttributeValues: { ':before': before } }
      : {}),
    // The slim index's attributes only (the team's index holds whole jobs).
    ProjectionExpression:
      'id, team_id, created_by_user_id, #status, source_type, original_filename, error_message, ai_api_calls, gsi2sk',
    ExpressionAttributeNames: { '#status': 'status' },
    Limit: 200,
  }))
    yield { ...(withoutKeys(row) as unknown as JobIndexRow), jobssk: row.gsi2sk as string };
}

/**
 * The day the oldest team was created (null: no team): no job is older than
 * its team, so the job lists' walk back through the days ends there. One row
 * read (the teams' partition in created_at order).
 */
export async function getOldestTeamDay(): Promise<string | null> {
  for await (const row of indexRows({ index: 'gsi1', pk: 'TEAMS' }, { ScanIndexForward: true, Limit: 1 }))
    return String(row.created_at).slice(0, 10);
  return null;
}

/**
 * Moves up to `limit` job rows still in the single all-jobs partition (written
 * before the day buckets) to the partition of their created_at day, counting
 * each in the job totals as it goes (rows of that time were never counted);
 * answers how many moved. Conditional on the row still being there and
 * uncounted, so two runs at once move and count each row once.
 */
export async function moveLegacyJobIndexRows(limit: number): Promise<number> {
  let moved = 0;
  for await (const row of indexRows(jobIndexes.legacyAllJobs(), { Limit: limit })) {
    const done = await countJobInTotals(
      String(row.id),
      { jobspk: jobIndexes.jobsOfDay(String(row.jobssk).slice(0, 10)).pk },
      { expression: 'jobspk = :legacy', values: { ':legacy': jobIndexes.legacyAllJobs().pk } },
    );
    if (done) moved += 1;
    if (moved >= limit) break;
  }
  return moved;
}

/** Jobs by id, in the order asked (ids with no job left out). */
export async function getJobsInOrder(ids: readonly string[]): Promise<Job[]> {
  const rows = await getRows(ids.map((id) => jobKeys.job(id)));
  const byId = new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as Job]));
  return ids.map((id) => byId.get(id)).filter((job): job is Job => Boolean(job));
}

/** The ids of the jobs the engine may be running (the watchdog's sparse index, which holds keys only). */
export async function listRunningJobIds(): Promise<string[]> {
  const out: string[] = [];
  for await (const row of indexRows(jobIndexes.activeJobs())) out.push((row.pk as string).slice('JOB#'.length));
  return out;
}

export async function listAllTeams(): Promise<Team[]> {
  return queryAll<Team>({ index: 'gsi1', pk: 'TEAMS' });
}

/** Every user, newest first. */
export async function listAllUsers(): Promise<User[]> {
  return queryAll<User>({ index: 'gsi2', pk: 'USERS' }, { ScanIndexForward: false });
}

export async function getTeamsById(ids: readonly string[]): Promise<Map<string, Team>> {
  const rows = await getRows([...new Set(ids)].map((id) => teamKeys.team(id)));
  return new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as Team]));
}

/** A team's users by id (its users' partition): the text filter of a team's job list. */
export async function listTeamUsersById(teamId: string): Promise<Map<string, User>> {
  const users = await queryAll<User>(userIndexes.teamUsers(teamId));
  return new Map(users.map((user) => [user.id, user]));
}

export async function getUsersById(ids: readonly string[]): Promise<Map<string, User>> {
  const rows = await getRows([...new Set(ids)].filter(Boolean).map((id) => userKeys.user(id)));
  return new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as User]));
}

/** The teams and creators of these jobs, read in two batches. */
export async function namesOf(
  jobs: ReadonlyArray<Pick<Job, 'team_id' | 'created_by_user_id'>>,
): Promise<{ teams: Map<string, Team>; users: Map<string, User> }> {
  const [teams, users] = await Promise.all([
    getTeamsById(jobs.map((j) => j.team_id)),
    getUsersById(jobs.map((j) => j.created_by_user_id)),
  ]);
  return { teams, users };
}

/**
 * The newest rows of one all-teams feed (gsi2: CLAIMS by created_at, ACTIVITY
 * by created_at#id) since `start` (all when null), newest first.
 */
export async function listNewestFeedRows<T>(feed: 'CLAIMS' | 'ACTIVITY', start: string | null, limit: number) {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: start ? 'gsi2pk = :pk AND gsi2sk >= :start' : 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': feed, ...(start ? { ':start': start } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (Items ?? []).map((row) => withoutKeys(row) as unknown as T);
}
