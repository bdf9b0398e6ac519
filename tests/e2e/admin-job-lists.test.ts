/**
 * The admin job lists (GET /api/admin/logs, /api/admin/api-requests,
 * /api/admin/media) over HTTP, paged by limit and offset or by cursor from
 * the day-bucketed jobs index, with their totals. Two teams created ten days
 * ago get jobs minutes, hours and days old in several statuses (written
 * through the job store's rows and counted in the job totals; the running
 * ones without the watchdog's index, so no schedule moves them during the
 * test); other suites write jobs at the same time, so every list is
 * filtered to the teams, users or text made here (a total without any filter
 * is exact in tests/integration/admin-job-totals.test.ts and
 * job-totals.test.ts, on tables of their own).
 *
 * Covered: pages newest first across day and hour boundaries, each at most
 * the limit, until next_cursor is null; pages by offset are the pages by
 * cursor; total is exactly the matching jobs, with each filter (team, user,
 * status, 'active', text, type, AI calls) alone and combined, across days and
 * teams, and is the number of jobs the pages list; another team's jobs never
 * listed under a team filter; api-requests lists only the jobs that made AI
 * calls; a malformed or forged cursor is a 422 naming query.cursor, and a
 * cursor with an offset a 422 naming query.offset (never a 5xx); a non-admin
 * is refused with 403 before any cursor is read; a row written before the day
 * buckets (the single all-jobs partition) is listed once `npm run
 * migrate:job-days` (migrateJobIndexToDays) has moved it.
 */
import { randomUUID } from 'node:crypto';
import { migrateJobIndexToDays } from '../../lib/admin/migration-service';
import { putRows } from '../../lib/db/batch';
import type { JobStatus } from '../../lib/jobs/job-rules';
import { jobRowOf } from '../../lib/jobs/job-store';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import { createTeam } from '../../lib/teams/store';
import { createUser } from '../../lib/users/store';
import type { User } from '../../lib/users/user-record-rules';
import { putCountedJobRows } from '../support/job-rows';
import { type ApiResponse, Client, request } from '../support/api';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember } from '../support/tokens';

const tag = randomUUID().slice(0, 8);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const RUNNING: JobStatus[] = ['analyzing', 'extracting'];

let admin: Client;
let member: Client;
let teamId: string;
let otherTeamId: string;
let lister: User;
let second: User;
let otherUser: User;
/** The team's jobs, newest first. */
let expected: Job[];
/** The other team's jobs, newest first. */
let others: Job[];

function newJob(team: string, userId: string, ageMs: number, aiCalls = 0, status: JobStatus = 'complete'): Job {
  const job = newJobRecord(
    {
      room: { id: randomUUID(), claim_id: randomUUID(), team_id: team },
      userId,
      sourceType: aiCalls === 2 ? 'video' : 'photo',
      status,
      originalFilename: `file-${tag}.png`,
    },
    new Date(Date.now() - ageMs),
  );
  return { ...job, ai_api_calls: aiCalls };
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
  lister = await createUser({ external_id: null, name: `Lister ${tag}`, email: null, team_id: teamId });
  second = await createUser({ external_id: null, name: `Second ${tag}`, email: null, team_id: teamId });
  otherUser = await createUser({ external_id: null, name: `Other ${tag}`, email: null, team_id: otherTeamId });
  // Ages cross hours and days; statuses, users and AI calls vary.
  const plan: [number, number, JobStatus, User][] = [
    [7 * DAY + 5 * HOUR, 3, 'error', lister],
    [6 * DAY, 0, 'analyzing', second],
    [3 * DAY, 0, 'complete', lister],
    [2 * DAY + HOUR, 1, 'awaiting_grouping', second],
    [26 * HOUR, 1, 'complete', lister],
    [25 * HOUR, 0, 'error', second],
    [2 * HOUR, 2, 'extracting', lister],
    [MINUTE, 0, 'complete', lister],
  ];
  const made = plan.map(([age, calls, status, user]) => newJob(teamId, user.id, age, calls, status));
  const madeOther = plan.map(([age, calls, status]) => newJob(otherTeamId, otherUser.id, age - 1000, calls, status));
  await putCountedJobRows([...made, ...madeOther]);
  const newestFirst = (a: Job, b: Job) => b.created_at.localeCompare(a.created_at);
  expected = made.sort(newestFirst);
  others = madeOther.sort(newestFirst);
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
    const byUser = await allPages(`/api/admin/logs?user_id=${lister.id}&limit=3`);
    expect(byUser.flatMap((page) => page.jobs.map((job: any) => job.id))).toEqual(
      expected.filter((job) => job.created_by_user_id === lister.id).map((job) => job.id),
    );
  });

  it('answers the page’s creators as the user filter’s choices', async () => {
    const first = (await admin.get(`/api/admin/logs?team_id=${teamId}&limit=2`)).body;
    expect(first.users).toEqual([expect.objectContaining({ name: `Lister ${tag}`, team_id: teamId })]);
  });
});

// The cases of this block and the next two only read the jobs written before them, so each block's run side by side.
describe('GET /api/admin/logs by offset', () => {
  it.concurrent.each([
    ['one team (its own jobs index)', () => `team_id=${teamId}`],
    ['every team (the day buckets), by text', () => `q=${tag}`],
    ['every team, by user and status', () => `user_id=${lister.id}&status=complete`],
  ])('gives the pages the cursors give: %s', async (_, filter) => {
    const byCursor = await allPages(`/api/admin/logs?${filter()}&limit=3`);
    const total = byCursor[0].total;
    expect(byCursor.flatMap((page) => page.jobs)).toHaveLength(total);
    for (let offset = 0; offset <= total; offset += 3) {
      const page = (await admin.get(`/api/admin/logs?${filter()}&limit=3&offset=${offset}`)).body;
      expect(page).toMatchObject({ total, limit: 3, offset });
      expect(page.jobs.map((job: any) => job.id)).toEqual((byCursor[offset / 3]?.jobs ?? []).map((job: any) => job.id));
    }
    // Past the last match: an empty page.
    expect((await admin.get(`/api/admin/logs?${filter()}&limit=3&offset=${total + 5}`)).body.jobs).toEqual([]);
  });
});

describe('total', () => {
  const matching = (jobs: Job[], keep: (job: Job) => boolean) => jobs.filter(keep).length;
  const ours = () => [...expected, ...others];
  const cases: [string, () => string, () => number][] = [
    ['a team', () => `team_id=${teamId}`, () => expected.length],
    ['the other team', () => `team_id=${otherTeamId}`, () => others.length],
    ['a user', () => `user_id=${second.id}`, () => matching(expected, (j) => j.created_by_user_id === second.id)],
    [
      'a status, by text across both teams',
      () => `status=error&q=${tag}`,
      () => matching(ours(), (j) => j.status === 'error'),
    ],
    [
      "'active' (the running statuses), by text",
      () => `status=active&q=${tag}`,
      () => matching(ours(), (j) => RUNNING.includes(j.status)),
    ],
    [
      "'active' within a team",
      () => `team_id=${otherTeamId}&status=active`,
      () => matching(others, (j) => RUNNING.includes(j.status)),
    ],
    ['the text alone (file names of both teams)', () => `q=${tag}`, () => ours().length],
    ['the text of a team name', () => `q=${encodeURIComponent(`Others ${tag}`)}`, () => others.length],
    [
      'the text of a user name, within a team',
      () => `team_id=${teamId}&q=${encodeURIComponent(`SECOND ${tag}`)}`,
      () => matching(expected, (j) => j.created_by_user_id === second.id),
    ],
    [
      'a user and a status',
      () => `user_id=${lister.id}&status=complete`,
      () => matching(expected, (j) => j.created_by_user_id === lister.id && j.status === 'complete'),
    ],
    ['a status no job of the team is in', () => `team_id=${teamId}&status=pending`, () => 0],
  ];

  it.concurrent.each(cases)(
    'of the logs is exactly the matching jobs, which the pages list: %s',
    async (_, filter, count) => {
      const pages = await allPages(`/api/admin/logs?${filter()}&limit=2`);
      expect(pages.map((page) => page.total)).toEqual(pages.map(() => count()));
      expect(pages.flatMap((page) => page.jobs)).toHaveLength(count());
    },
  );

  it.concurrent('of the logs without a filter counts every team’s jobs, ours among them', async () => {
    const body = (await admin.get('/api/admin/logs?limit=1')).body;
    expect(body.total).toBeGreaterThanOrEqual(ours().length);
    expect(body.jobs).toHaveLength(1);
  });

  it.concurrent('of api-requests counts only the matching jobs with AI calls', async () => {
    const withCalls = (jobs: Job[]) => matching(jobs, (j) => j.ai_api_calls > 0);
    const page = async (filter: string) => (await admin.get(`/api/admin/api-requests?${filter}&limit=1`)).body;
    expect((await page(`team_id=${teamId}`)).total).toBe(withCalls(expected));
    expect((await page(`q=${tag}`)).total).toBe(withCalls(ours()));
    expect((await page(`user_id=${otherUser.id}`)).total).toBe(withCalls(others));
    expect((await page(`user_id=${second.id}&team_id=${teamId}`)).total).toBe(
      matching(expected, (j) => j.created_by_user_id === second.id && j.ai_api_calls > 0),
    );
  });

  it.concurrent('of media counts the matching jobs of the type', async () => {
    const page = async (filter: string) => (await admin.get(`/api/admin/media?${filter}&limit=1`)).body;
    expect((await page(`team_id=${teamId}&type=video`)).total).toBe(
      matching(expected, (j) => j.source_type === 'video'),
    );
    expect((await page(`q=${tag}&type=photo`)).total).toBe(matching(ours(), (j) => j.source_type === 'photo'));
    expect((await page(`team_id=${otherTeamId}&type=audio`)).total).toBe(0);
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
    ['a skip that is no whole number', cursorOf({ day: today, after: null, skip: -2 })],
  ];

  it.concurrent.each(forged)('is refused with 422 naming query.cursor: %s', async (_, cursor) => {
    for (const route of ['logs', 'api-requests', 'media']) {
      const res = await admin.get(`/api/admin/${route}?team_id=${teamId}&cursor=${encodeURIComponent(cursor)}`);
      expect([route, res.status]).toEqual([route, 422]);
      expect(res.body.errors).toEqual([{ field: 'query.cursor', message: expect.stringMatching(/next_cursor/) }]);
    }
  });

  it.concurrent('is refused with 422 naming query.offset beside an offset, whatever the cursor', async () => {
    const first = (await admin.get(`/api/admin/logs?team_id=${teamId}&limit=1`)).body;
    for (const route of ['logs', 'api-requests', 'media']) {
      for (const cursor of [first.next_cursor, '%%%not-a-cursor%%%']) {
        const res = await admin.get(`/api/admin/${route}?cursor=${encodeURIComponent(cursor)}&offset=2`);
        expect([route, res.status]).toEqual([route, 422]);
        expect(res.body.errors).toEqual([{ field: 'query.offset', message: expect.stringMatching(/cursor/) }]);
      }
      // offset=0 is no offset: the cursor goes on.
      const res = await admin.get(`/api/admin/${route}?team_id=${teamId}&cursor=${first.next_cursor}&offset=0`);
      expect([route, res.status]).toEqual([route, 200]);
    }
  });

  it.concurrent('is refused 403 to a non-admin before it is read', async () => {
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
