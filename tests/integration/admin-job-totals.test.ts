/**
 * The admin job lists' totals and paging against the embedded DynamoDB, on a
 * table of their own (the run's other suites write jobs to the shared table
 * all the time, so a total without a filter is exact only here). Three teams
 * created 100 days ago, their users, and jobs spread over those days in every
 * kind of status, type and AI-call count.
 *
 * Covered: countMatchingJobs (the job totals kept as jobs are written, the
 * running jobs, DynamoDB's COUNT with the filter's FilterExpression, or the
 * rows read for a text filter) equals the number of
 * jobs jobMatches keeps, for no filter and for each filter and some
 * combinations, with and without a team; the same jobs, newest first, are
 * listed by following the cursors from the first page; pages by offset are
 * the pages by cursor; an offset that the call's bound of days read (62)
 * stops short of ends the page early with a cursor that skips the rest.
 */
import { randomUUID } from 'node:crypto';
import { countMatchingJobs } from '../../lib/admin/job-count-service';
import { listApiRequests, listMatchingJobs } from '../../lib/admin/job-list-service';
import { MAX_DAYS_PER_PAGE } from '../../lib/admin/job-page-rules';
import { type JobFilter, jobMatches, jobNamesOf } from '../../lib/admin/rules';
import { resetSettings } from '../../lib/config';
import { putRows } from '../../lib/db/batch';
import { jobKeys } from '../../lib/jobs/keys';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import type { JobStatus } from '../../lib/jobs/job-rules';
import { createTeam } from '../../lib/teams/store';
import type { Team } from '../../lib/teams/team-record-rules';
import { createUser } from '../../lib/users/store';
import type { User } from '../../lib/users/user-record-rules';
import { putCountedJobRows } from '../support/job-rows';
import { useOwnStage } from '../support/stage';

jest.setTimeout(120_000);

const DAY = 86_400_000;
const now = new Date();
const STATUSES: JobStatus[] = ['complete', 'error', 'analyzing', 'awaiting_grouping', 'extracting', 'complete'];
const TYPES = ['video', 'photo', 'audio'] as const;

let teams: Team[];
let users: User[];
/** Every job written, newest first. */
let jobs: Job[];
/** The one user whose few jobs lie far apart: 1, 30, 70, 80 and 95 days ago. */
let rare: User;

beforeAll(async () => {
  await useOwnStage('job-totals');
  resetSettings();
  const since = new Date(now.getTime() - 100 * DAY);
  teams = await Promise.all(
    ['Acme Restoration', 'Harbor Adjusters', 'Summit Claims'].map((name) =>
      createTeam({ external_id: null, name, team_token: null, estimation_platform_key: null }, since),
    ),
  );
  users = await Promise.all(
    ['Dana Whitfield', 'Lee Park', 'Morgan Ruiz', 'Sam Okafor', 'Jo Lind'].map((name, i) =>
      createUser({
        external_id: null,
        name,
        email: `${name.split(' ')[0].toLowerCase()}@example.test`,
        team_id: teams[i % 3].id,
      }),
    ),
  );
  rare = await createUser({ external_id: null, name: 'Rare Rowe', email: null, team_id: teams[2].id });
  const made: Job[] = [];
  const job = (user: User, ageMs: number, status: JobStatus, type: (typeof TYPES)[number], calls: number) => {
    const record = newJobRecord(
      {
        room: { id: randomUUID(), claim_id: randomUUID(), team_id: user.team_id },
        userId: user.id,
        sourceType: type,
        status,
        originalFilename: `${type}-${made.length}.bin`,
      },
      new Date(now.getTime() - ageMs),
    );
    made.push({ ...record, ai_api_calls: calls, error_message: status === 'error' ? 'The upload was empty' : null });
  };
  // 90 jobs, one on each of the 90 days before today (at 17:00 to 23:00 UTC, whatever the time now), in shuffled order.
  const sinceToday = now.getTime() % DAY;
  for (let i = 0; i < 90; i++)
    job(
      users[i % 5],
      sinceToday + ((i * 37) % 90) * DAY + (1 + (i % 7)) * 3600_000,
      STATUSES[i % 6],
      TYPES[i % 3],
      i % 4,
    );
  for (const days of [1, 30, 70, 80, 95]) job(rare, days * DAY, 'error', 'audio', 1);
  // Written as rows (the job store's own row, counted in the totals): no schedule of this stage runs.
  await putCountedJobRows(made, { watchdogIndex: true });
  jobs = made.sort((a, b) => b.created_at.localeCompare(a.created_at));
}, 120_000);

afterAll(() => resetSettings());

const names = () =>
  jobNamesOf(new Map(teams.map((t) => [t.id, t.name])), new Map([...users, rare].map((u) => [u.id, u])));
const expectedOf = (filter: JobFilter) => jobs.filter((job) => jobMatches(job, filter, names()));

/** Every page of a list from the first, following next_cursor. */
async function byCursor(filter: JobFilter, limit: number) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listMatchingJobs(filter, { limit, cursor }, now);
    pages.push(page.matched.map((row) => row.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

const filters: JobFilter[] = [
  {},
  { status: 'error' },
  { status: 'active' },
  { status: 'awaiting_grouping' },
  { type: 'audio' },
  { with_ai_calls: true },
  { user_id: 'placeholder-user' },
  { team_id: 'placeholder-team' },
  { team_id: 'placeholder-team', status: 'active' },
  { team_id: 'placeholder-team', with_ai_calls: true, type: 'video' },
  { q: 'harbor' },
  { q: 'dana@' },
  { q: 'photo-1' },
  { q: 'empty', type: 'audio' },
  { q: 'summit', status: 'error' },
  { team_id: 'placeholder-team', q: 'rare' },
  { team_id: 'placeholder-team', q: 'nothing like it' },
];
/** The placeholders stand for ids made in beforeAll. */
const concrete = (filter: JobFilter): JobFilter => ({
  ...filter,
  ...(filter.team_id ? { team_id: teams[2].id } : {}),
  ...(filter.user_id ? { user_id: users[1].id } : {}),
});

describe('the total of the admin job lists', () => {
  it('has jobs in every day bucket it counts across, and the rare user’s beyond the bound of one call', () => {
    expect(new Set(jobs.map((j) => j.created_at.slice(0, 10))).size).toBeGreaterThanOrEqual(90);
    expect(jobs.at(-1)!.created_at < new Date(now.getTime() - MAX_DAYS_PER_PAGE * DAY).toISOString()).toBe(true);
  });

  // Each filter only reads the jobs written before: they are counted and listed side by side.
  it.concurrent.each(filters.map((filter) => [JSON.stringify(filter), filter] as const))(
    'is exactly the jobs that match, which the cursors list newest first: %s',
    async (_, raw) => {
      const filter = concrete(raw);
      const expected = expectedOf(filter).map((job) => job.id);
      if (!raw.q?.includes('nothing')) expect(expected.length).toBeGreaterThan(0);
      expect(await countMatchingJobs(filter, now)).toBe(expected.length);
      expect((await byCursor(filter, 7)).flat()).toEqual(expected);
    },
  );

  it('is 0 for a user with no job, with or without text', async () => {
    // A user id no job has: the count is 0, not an error, even with a text filter.
    expect(await countMatchingJobs({ user_id: randomUUID() }, now)).toBe(0);
    expect(await countMatchingJobs({ user_id: randomUUID(), q: 'dana' }, now)).toBe(0);
  });
});

describe('paging by offset', () => {
  /** The page `offset` matches from the newest: a call that reaches its bound of days first goes on by its cursor. */
  async function byOffset(filter: JobFilter, limit: number, offset: number) {
    let page = await listMatchingJobs(filter, { limit, offset }, now);
    const ids = page.matched.map((row) => row.id);
    while (ids.length < limit && page.next_cursor) {
      page = await listMatchingJobs(filter, { limit, cursor: page.next_cursor }, now);
      ids.push(...page.matched.map((row) => row.id));
    }
    return ids.slice(0, limit);
  }

  it('gives the pages that the cursors give', async () => {
    const checks = [{}, { status: 'complete' }, { team_id: teams[0].id }, { q: 'lee' }].map(async (filter) => {
      const pages = await byCursor(filter, 9);
      // Every page by offset read at once: each is a list call of its own.
      const byOffsets = await Promise.all(pages.map((_, i) => byOffset(filter, 9, i * 9)));
      for (const [i, page] of pages.entries()) expect([filter, i, byOffsets[i]]).toEqual([filter, i, page]);
      expect(await byOffset(filter, 9, pages.flat().length)).toEqual([]);
    });
    await Promise.all(checks);
  });

  it('ends a page early at the bound of days read, and its cursor skips the rest of the offset', async () => {
    const filter = { user_id: rare.id };
    const all = expectedOf(filter).map((job) => job.id);
    expect(all).toHaveLength(5);
    // Two of the rare jobs lie within the bound (1 and 30 days ago), the third is 70 days old.
    const first = await listMatchingJobs(filter, { limit: 2, offset: 3 }, now);
    expect(first.matched).toEqual([]);
    expect(first.next_cursor).not.toBeNull();
    const second = await listMatchingJobs(filter, { limit: 2, cursor: first.next_cursor! }, now);
    expect(second.matched.map((row) => row.id)).toEqual(all.slice(3, 5));
    // A team's list reads the team's own index, where the bound is rows, not days: it gets there at once.
    const team = await listMatchingJobs({ ...filter, team_id: rare.team_id }, { limit: 2, offset: 3 }, now);
    expect(team.matched.map((row) => row.id)).toEqual(all.slice(3, 5));
  });
});

describe('an api-requests page', () => {
  it('ends early at its byte budget, with a cursor that goes on after its last job', async () => {
    const team = teams[0].id;
    const withCalls = jobs.filter((job) => job.team_id === team && job.ai_api_calls > 0).slice(0, 3);
    // Three requests of about 4 KB for each of the team's three newest jobs with AI calls.
    await putRows(
      withCalls.flatMap((job) =>
        [0, 1, 2].map((n) => {
          const created_at = new Date(Date.parse(job.created_at) + n * 1000).toISOString();
          const id = randomUUID();
          return {
            ...jobKeys.aiRequest(job.id, created_at, id),
            id,
            job_id: job.id,
            team_id: team,
            content: 'x'.repeat(4000),
            created_at,
          };
        }),
      ),
    );
    const first = await listApiRequests({ team_id: team, limit: 3 });
    expect(first.jobs.map((group) => group.job.id)).toEqual(withCalls.map((job) => job.id));
    expect(first.jobs.map((group) => [group.requests.length, group.requests_truncated])).toEqual([
      [3, false],
      [3, false],
      [3, false],
    ]);
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    const [size] = first.jobs.map(bytes);
    // Room for a job and a half: one job, and a cursor after it that the next page follows.
    const small = await listApiRequests({ team_id: team, limit: 3 }, Math.round(size * 1.5));
    expect(small.jobs.map((group) => [group.job.id, group.requests.length, group.requests_truncated])).toEqual([
      [withCalls[0].id, 3, false],
    ]);
    const next = await listApiRequests({ team_id: team, limit: 3, cursor: small.next_cursor! }, Math.round(size * 1.5));
    expect(next.jobs.map((group) => group.job.id)).toEqual([withCalls[1].id]);
    // Room for the job and one of its requests: that one, marked.
    const oneRequest =
      bytes({ ...first.jobs[0], requests: [], requests_truncated: true }) + bytes(first.jobs[0].requests[0]) + 10;
    const tiny = await listApiRequests({ team_id: team, limit: 3 }, oneRequest);
    expect(tiny.jobs.map((group) => [group.job.id, group.requests.length, group.requests_truncated])).toEqual([
      [withCalls[0].id, 1, true],
    ]);
    expect(tiny.jobs[0].totals.requests).toBe(3);
  });
});
