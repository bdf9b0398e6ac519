/**
 * The admin job lists (GET /api/admin/logs, /api/admin/api-requests,
 * /api/admin/media) over HTTP, paged by cursor from the day-bucketed jobs
 * index. A team created ten days ago gets jobs minutes, hours and days old
 * (written through the job store, as every job is); other suites write jobs
 * at the same time, so lists are filtered to the teams made here.
 *
 * Covered: pages newest first across day and hour boundaries, each at most
 * the limit, until next_cursor is null; another team's jobs never listed
 * under a team filter; api-requests lists only the jobs that made AI calls;
 * a malformed or forged cursor is a 422 naming query.cursor (never a 5xx);
 * a non-admin is refused with 403 before any cursor is read; a row written
 * before the day buckets (the single all-jobs partition) is listed once
 * `npm run migrate:job-days` (migrateJobIndexToDays) has moved it.
 */
import { randomUUID } from 'node:crypto';
import { migrateJobIndexToDays } from '../../lib/admin/migration-service';
import { putRows } from '../../lib/db/batch';
import { type Job, jobRowOf, newJobRecord, putNewJob } from '../../lib/jobs/job-store';
import { createTeam } from '../../lib/teams/store';
import { createUser } from '../../lib/users/store';
import { type ApiResponse, Client, request } from '../support/api';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember } from '../support/tokens';

const tag = randomUUID().slice(0, 8);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let admin: Client;
let member: Client;
let teamId: string;
let otherTeamId: string;
/** The team's jobs, newest first. */
let expected: Job[];
/** The other team's jobs, newest first. */
let others: Job[];

async function newJob(team: string, userId: string, ageMs: number, aiCalls = 0): Promise<Job> {
  const job = newJobRecord(
    {
      room: { id: randomUUID(), claim_id: randomUUID(), team_id: team },
      userId,
      sourceType: 'photo',
      status: 'complete',
      originalFilename: `file-${tag}.png`,
    },
    new Date(Date.now() - ageMs),
  );
  return putNewJob({ ...job, ai_api_calls: aiCalls });
}

/** Every page of a list, following next_cursor from the first. */
async function allPages(path: string): Promise<any[]> {
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await admin.get(cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : path);
    expect(res.status).toBe(200);
    pages.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor && pages.length < 50);
  return pages;
}

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

beforeAll(async () => {
  admin = await Client.signIn(newTeamMember({ user_id: TEST_ADMIN_EXTERNAL_IDS[0], user_name: `Admin ${tag}` }));
  member = await Client.signIn(newTeamMember());
  const since = new Date(Date.now() - 10 * DAY);
  const team = await createTeam(
    { external_id: null, name: `Lists ${tag}`, team_token: null, estimation_platform_key: null },
    since,
  );
  const other = await createTeam(
    { external_id: null, name: `Others ${tag}`, team_token: null, estimation_platform_key: null },
    since,
  );
  teamId = team.id;
  otherTeamId = other.id;
  const user = await createUser({ external_id: null, name: `Lister ${tag}`, email: null, team_id: teamId });
  const otherUser = await createUser({ external_id: null, name: `Other ${tag}`, email: null, team_id: otherTeamId });
  // Written oldest first, as the service writes them; ages cross hours and days.
  const ages: [number, number][] = [
    [7 * DAY + 5 * HOUR, 3],
    [3 * DAY, 0],
    [26 * HOUR, 1],
    [25 * HOUR, 0],
    [2 * HOUR, 2],
    [MINUTE, 0],
  ];
  const made: Job[] = [];
  const madeOther: Job[] = [];
  for (const [age, calls] of ages) {
    made.push(await newJob(teamId, user.id, age, calls));
    madeOther.push(await newJob(otherTeamId, otherUser.id, age - 1000, calls));
  }
  expected = made.reverse();
  others = madeOther.reverse();
}, 60_000);

describe('GET /api/admin/logs by cursor', () => {
  it('pages newest first across hours and days, each page at most the limit, until next_cursor is null', async () => {
    const pages = await allPages(`/api/admin/logs?team_id=${teamId}&limit=2`);
    const ids = pages.flatMap((page) => page.jobs.map((job: any) => job.id));
    expect(ids).toEqual(expected.map((job) => job.id));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const page of pages) {
      expect(page.limit).toBe(2);
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      expect(page.jobs.every((job: any) => job.team_id === teamId && job.team_name === `Lists ${tag}`)).toBe(true);
    }
    expect(pages.at(-1).next_cursor).toBeNull();
    // Newest first across day boundaries: the days of the listed jobs only go back.
    const days = pages.flatMap((page) => page.jobs.map((job: any) => job.created_at.slice(0, 10)));
    expect(days).toEqual([...days].sort().reverse());
    expect(new Set(days).size).toBeGreaterThanOrEqual(3);
  });

  it('pages every team’s jobs (no team filter) newest first across days, here found by text', async () => {
    const found = await allPages(`/api/admin/logs?q=${encodeURIComponent(`Others ${tag}`)}&limit=4`);
    expect(found.flatMap((page) => page.jobs.map((job: any) => job.id))).toEqual(others.map((job) => job.id));
    expect(found.at(-1).next_cursor).toBeNull();
    const byUser = await allPages(`/api/admin/logs?user_id=${expected[0].created_by_user_id}&limit=5`);
    expect(byUser.flatMap((page) => page.jobs.map((job: any) => job.id))).toEqual(expected.map((job) => job.id));
  });

  it('answers the page’s creators as the user filter’s choices', async () => {
    const first = (await admin.get(`/api/admin/logs?team_id=${teamId}&limit=2`)).body;
    expect(first.users).toEqual([expect.objectContaining({ name: `Lister ${tag}`, team_id: teamId })]);
  });
});

describe('GET /api/admin/api-requests by cursor', () => {
  it('pages only the jobs that made AI calls, newest first', async () => {
    const pages = await allPages(`/api/admin/api-requests?team_id=${teamId}&limit=1`);
    const ids = pages.flatMap((page) => page.jobs.map((group: any) => group.job.id));
    expect(ids).toEqual(expected.filter((job) => job.ai_api_calls > 0).map((job) => job.id));
    expect(pages.at(-1).next_cursor).toBeNull();
  });
});

describe('GET /api/admin/media by cursor', () => {
  it('pages the same way', async () => {
    const pages = await allPages(`/api/admin/media?team_id=${teamId}&limit=4`);
    expect(pages.flatMap((page) => page.items.map((item: any) => item.id))).toEqual(expected.map((job) => job.id));
  });
});

describe('a cursor this service did not issue', () => {
  const today = new Date().toISOString().slice(0, 10);
  const forged: [string, string][] = [
    ['not base64 JSON', '%%%not-a-cursor%%%'],
    ['JSON but not an object', cursorOf([today, null])],
    ['an extra field', cursorOf({ day: today, after: null, pk: 'TEAM#x' })],
    ['a day that is no date', cursorOf({ day: '2026-13-45', after: null })],
    ['a day in the future', cursorOf({ day: '2999-01-01', after: null })],
    ['a position on another day', cursorOf({ day: today, after: '2020-01-01T00:00:00.000Z#x' })],
    ['a position that is no string', cursorOf({ day: today, after: { S: 'x' } })],
  ];

  it.each(forged)('is refused with 422 naming query.cursor: %s', async (_, cursor) => {
    for (const route of ['logs', 'api-requests', 'media']) {
      const res = await admin.get(`/api/admin/${route}?team_id=${teamId}&cursor=${encodeURIComponent(cursor)}`);
      expect([route, res.status]).toEqual([route, 422]);
      expect(res.body.errors).toEqual([{ field: 'query.cursor', message: expect.stringMatching(/next_cursor/) }]);
    }
  });

  it('is refused 403 to a non-admin before it is read', async () => {
    for (const route of ['logs', 'api-requests', 'media']) {
      const res = await request('GET', `/api/admin/${route}?cursor=${cursorOf({ day: today, after: null })}`, {
        token: member.token,
      });
      expect([route, res.status, res.body]).toEqual([route, 403, { detail: 'This page is restricted.' }]);
    }
  });
});

describe('rows written before the day buckets', () => {
  it('are listed once migrated to their day, in their place', async () => {
    const user = await createUser({ external_id: null, name: `Legacy ${tag}`, email: null, team_id: otherTeamId });
    const job = newJobRecord(
      {
        room: { id: randomUUID(), claim_id: randomUUID(), team_id: otherTeamId },
        userId: user.id,
        sourceType: 'video',
        status: 'complete',
      },
      new Date(Date.now() - 2 * DAY),
    );
    // The row as it was written before: in the single all-jobs partition.
    await putRows([{ ...jobRowOf(job), jobspk: 'JOBS' }]);
    const listed = async () =>
      (await allPages(`/api/admin/logs?user_id=${user.id}&limit=10`)).flatMap((page) =>
        page.jobs.map((j: any) => j.id),
      );
    expect(await listed()).toEqual([]);
    const report = await migrateJobIndexToDays();
    expect(report.moved).toBeGreaterThanOrEqual(1);
    expect(await listed()).toEqual([job.id]);
    expect((await migrateJobIndexToDays()).moved).toBe(0);
  });
});
