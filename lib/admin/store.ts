/**
 * What the admin dashboard reads across every team: the slim all-jobs index,
 * teams, users, the newest claims and activity, the running jobs. Each read
 * is an index partition newest first, never a table scan.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getRows } from '../db/batch';
import { db, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { indexRows, queryAll } from '../db/query';
import type { Job } from '../jobs/job-store';
import type { Team } from '../teams/store';
import type { User } from '../users/store';
import type { JobIndexRow } from './rules';

/** Every media job as the slim index holds it, newest first (a few hundred bytes each). */
export async function listJobIndexRows(): Promise<JobIndexRow[]> {
  return queryAll<JobIndexRow>(indexes.allJobs(), { ScanIndexForward: false });
}

/** The newest media jobs created since `start` (all when null), newest first. */
export async function listNewestJobIds(start: string | null, limit: number): Promise<string[]> {
  const out: string[] = [];
  for await (const row of indexRows(indexes.allJobs(), {
    ScanIndexForward: false,
    ...(start
      ? {
          KeyConditionExpression: '#pk = :pk AND jobssk >= :start',
          ExpressionAttributeValues: { ':start': start },
        }
      : {}),
    Limit: limit,
  })) {
    out.push(row.id as string);
    if (out.length >= limit) break;
  }
  return out;
}

/** Jobs by id, in the order asked (ids with no job left out). */
export async function getJobsInOrder(ids: readonly string[]): Promise<Job[]> {
  const rows = await getRows(ids.map((id) => keys.job(id)));
  const byId = new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as Job]));
  return ids.map((id) => byId.get(id)).filter((job): job is Job => Boolean(job));
}

/** The ids of the jobs the engine may be running (the watchdog's sparse index, which holds keys only). */
export async function listRunningJobIds(): Promise<string[]> {
  const out: string[] = [];
  for await (const row of indexRows(indexes.activeJobs())) out.push((row.pk as string).slice('JOB#'.length));
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
  const rows = await getRows([...new Set(ids)].map((id) => keys.team(id)));
  return new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as Team]));
}

export async function getUsersById(ids: readonly string[]): Promise<Map<string, User>> {
  const rows = await getRows([...new Set(ids)].filter(Boolean).map((id) => keys.user(id)));
  return new Map(rows.map((row) => [row.id as string, withoutKeys(row) as unknown as User]));
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
