/**
 * The admin dashboard over HTTP, with data in three teams: team A has a
 * processed photo job (items, AI calls, credits), team B a job whose every AI
 * call failed, team C three photo jobs still awaiting grouping (one with 13
 * photos, one whose files are gone). Other suites write data at the same
 * time, so figures are checked per team (each test team is new) and lists
 * are filtered to the teams made here.
 *
 * Covered: every admin route refuses a non-admin with 403 'This page is
 * restricted.'; the overview's ranges (older usage is added to team A's
 * counters at past dates through the same counter store the service uses),
 * its lists and its active figures; users search and its cap; impersonation
 * (the token signs in as the user, is short-lived, and the activity of the
 * session records the admin); logs, activity, media and api-requests filters
 * and paging (totals across days and teams, cursors: admin-job-lists.test.ts);
 * component overrides per team.
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { decodeJwt } from 'jose';
import { adminRoutes } from '../../lib/admin/routes';
import { createUser } from '../../lib/users/store';
import { jobRoutes } from '../../lib/jobs/routes';
import { addUsageRows } from '../../lib/stats/store';
import { Client, eventually, jobInStatus, request, serviceUrl } from '../support/api';
import { bucket, listKeys, s3 } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway } from '../support/fake-gateway';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember, signLoginToken } from '../support/tokens';
import { newRoom, photoJob, smallPng, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const tag = randomUUID().slice(0, 8);

interface Team {
  client: Client;
  teamId: string;
  userId: string;
  room: TestRoom;
}

async function newTeam(name: string): Promise<Team> {
  const member = newTeamMember({ current_team_name: `${name} ${tag}`, user_name: `${name} user ${tag}` });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 500);
  const me = (await client.get('/api/auth/me')).body;
  return { client, teamId: me.team.id, userId: me.user.id, room: await newRoom(client, 'Den') };
}

let admin: Client;
let adminExternalId: string;
let a: Team;
let b: Team;
let c: Team;
let aJob: Record<string, any>;
let bJobId: string;
let cJobs: string[];
const aFile = `sofa-${tag}.png`;
const A_EXTRA = 2_000_000_000;
const B_EXTRA = 1_000_000_000;
const bFile = `broken-${tag}.png`;

beforeAll(async () => {
  adminExternalId = TEST_ADMIN_EXTERNAL_IDS[0];
  admin = await Client.signIn(newTeamMember({ user_id: adminExternalId, user_name: `Admin ${tag}` }));
  [a, b, c] = await Promise.all([newTeam('Alpha'), newTeam('Bravo'), newTeam('Charlie')]);

  // A: a processed photo job.
  const madeA = await photoJob(a.client, a.room.id, [await smallPng(1)], [aFile]);
  expect((await a.client.post(`/api/jobs/${madeA.jobId}/process`)).status).toBe(200);
  // B: every AI call of its job refused.
  await gateway.failNext('400', 10, bFile);
  const madeB = await photoJob(b.client, b.room.id, [await smallPng(2)], [bFile]);
  bJobId = madeB.jobId;
  expect((await b.client.post(`/api/jobs/${bJobId}/process`)).status).toBe(200);
  // C: three jobs awaiting grouping, the first with 13 photos.
  const thirteen = await Promise.all(Array.from({ length: 13 }, (_, i) => smallPng(10 + i)));
  cJobs = [
    (await photoJob(c.client, c.room.id, thirteen)).jobId,
    (await photoJob(c.client, c.room.id, [await smallPng(30)], [`gone-${tag}.png`])).jobId,
    (await photoJob(c.client, c.room.id, [await smallPng(31)])).jobId,
  ];

  aJob = await jobInStatus(a.client, madeA.jobId, ['complete', 'error']);
  expect(aJob.status).toBe('complete');
  expect((await jobInStatus(b.client, bJobId, ['complete', 'error'])).status).toBe('error');
  // The board shows the top teams by credits, and other suites' teams spend too: A and B get far more credits
  // today (through the counter store the service uses), so they are on it whatever else the run does.
  await addUsageRows(a.teamId, new Date(), { credits: A_EXTRA });
  await addUsageRows(b.teamId, new Date(), { credits: B_EXTRA });
}, 180_000);

describe('admin routes', () => {
  it("refuse everyone who is not on the allowlist with 403 'This page is restricted.'", async () => {
    const routes = [...Object.values(adminRoutes), jobRoutes.dismiss];
    expect(routes).toHaveLength(11);
    for (const route of routes) {
      const path = route.path.replace('{user_id}', a.userId).replace('{id}', aJob.id);
      const res = await request(route.method, path, {
        token: a.client.token,
        body: route.method === 'GET' ? undefined : { component: 'training', team_id: '', visible: true },
      });
      expect([route.path, res.status, res.body]).toEqual([route.path, 403, { detail: 'This page is restricted.' }]);
    }
    expect((await request('GET', '/api/admin/overview')).status).toBe(401);
  });
});

describe('GET /api/admin/overview', () => {
  const leader = (body: any, team: Team) => body.leaderboard.find((row: any) => row.team_id === team.teamId);

  it('adds up the range from the counters: credits, counts, media types, the team board', async () => {
    const res = await admin.get('/api/admin/overview?range=today');
    expect(res.status).toBe(200);
    expect(res.body.range).toBe('today');
    expect(res.body.range_start).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    const alpha = leader(res.body, a);
    expect(alpha).toMatchObject({
      team_name: `Alpha ${tag}`,
      jobs: 1,
      completed: 1,
      failed: 0,
      credits: aJob.billed_cost_usd + A_EXTRA,
      items: aJob.items_found,
    });
    expect(alpha.ai_calls).toBe(aJob.ai_api_calls);
    expect(alpha.ai_cost_usd).toBeCloseTo(aJob.ai_cost_usd, 6);
    expect(aJob.billed_cost_usd).toBeGreaterThan(0);
    expect(leader(res.body, b)).toMatchObject({ jobs: 1, completed: 0, failed: 1, credits: B_EXTRA });
    expect(res.body.credits_spent).toBeGreaterThanOrEqual(aJob.billed_cost_usd);
    expect(res.body.spend_by_media_type.photo.credits).toBeGreaterThanOrEqual(aJob.billed_cost_usd);
    expect(res.body.counts.claims).toBeGreaterThanOrEqual(3);
    expect(res.body.stats.ai_cost_usd).toBeGreaterThan(0);
    expect(res.body.quality.success_rate).toBeGreaterThan(0);
  });

  it('lists the latest claims, last jobs, recent failures and activity, newest first', async () => {
    const body = (await admin.get('/api/admin/overview?range=24h')).body;
    expect(body.latest_claims.length).toBeLessThanOrEqual(10);
    expect(body.last_jobs.length).toBeLessThanOrEqual(10);
    const failure = await eventually(async () => {
      const now = (await admin.get('/api/admin/overview?range=24h')).body;
      return now.recent_failures.find((f: any) => f.job_id === bJobId);
    });
    expect(failure).toMatchObject({ team_id: b.teamId, team_name: `Bravo ${tag}`, source_type: 'photo' });
    expect(failure.error_message).toMatch(/AI/i);
    for (const list of [body.latest_claims, body.last_jobs, body.activity]) {
      const times = list.map((row: any) => row.created_at);
      expect(times).toEqual([...times].sort().reverse());
    }
  });

  it('counts active users and jobs whatever the range, never a photo job awaiting grouping', async () => {
    const body = (await admin.get('/api/admin/overview?range=week')).body;
    expect(body.active_users).toBeGreaterThanOrEqual(4);
    expect(body.active_jobs).toBe(body.processing_now.length);
    const listed = body.processing_now.map((job: any) => job.id);
    for (const id of cJobs) expect(listed).not.toContain(id);
    const active = await admin.get('/api/admin/active-jobs');
    expect(active.status).toBe(200);
    expect(Number.isInteger(active.body.active_jobs)).toBe(true);
  });

  it('sums only the buckets of each range; unknown ranges mean all', async () => {
    const day = 24 * 3600 * 1000;
    const now = Date.now();
    // Older usage of team A: 3 days, 20 days, 200 days and two years ago.
    await addUsageRows(a.teamId, new Date(now - 3 * day), { credits: 1000, credits__photo: 1000 });
    await addUsageRows(a.teamId, new Date(now - 20 * day), { credits: 20000 });
    await addUsageRows(a.teamId, new Date(now - 200 * day), { credits: 300000 });
    await addUsageRows(a.teamId, new Date(now - 730 * day), { credits: 4000000 });
    const base = aJob.billed_cost_usd + A_EXTRA;
    const credits = async (range: string) =>
      leader((await admin.get(`/api/admin/overview?range=${range}`)).body, a).credits;
    expect(await credits('today')).toBe(base);
    expect(await credits('24h')).toBe(base);
    expect(await credits('week')).toBe(base + 1000);
    expect(await credits('30d')).toBe(base + 21000);
    expect(await credits('year')).toBe(base + 321000);
    expect(await credits('all')).toBe(base + 4321000);
    const unknown = (await admin.get('/api/admin/overview?range=fortnight')).body;
    expect(unknown.range).toBe('all');
    expect(unknown.range_start).toBeNull();
    expect(leader(unknown, a).credits).toBe(base + 4321000);
  });
});

describe('GET /api/admin/users', () => {
  it('finds users of any team by name, email or external id, with their team and admin flag', async () => {
    const res = await admin.get(`/api/admin/users?search=${encodeURIComponent(`Bravo user ${tag}`)}`);
    expect(res.status).toBe(200);
    expect(res.body.users).toEqual([
      expect.objectContaining({ id: b.userId, team_id: b.teamId, team_name: `Bravo ${tag}`, is_admin: false }),
    ]);
    const byExternal = await admin.get(`/api/admin/users?search=${adminExternalId}`);
    expect(byExternal.body.users.find((u: any) => u.external_id === adminExternalId)?.is_admin).toBe(true);
  });

  it('answers at most 200', async () => {
    const many = `bulk-${tag}`;
    for (let i = 0; i < 201; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, 201 - i) }, (_, j) =>
          createUser({ external_id: `${many}-${i + j}`, name: `${many} ${i + j}`, email: null, team_id: c.teamId }),
        ),
      );
    const res = await admin.get(`/api/admin/users?search=${many}`);
    expect(res.body.users).toHaveLength(200);
    expect(res.body.capped).toBe(true);
  });
});

describe('POST /api/admin/impersonate/{user_id}', () => {
  it('mints a short-lived token that signs in as the user; what is done with it names the admin', async () => {
    const res = await admin.post(`/api/admin/impersonate/${a.userId}`);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: a.userId, team_id: a.teamId });
    expect(res.body.impersonated_by).toBe(adminExternalId);
    const claims = decodeJwt(res.body.token);
    expect(claims.impersonated_by).toBe(adminExternalId);
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(15 * 60);
    expect(Date.parse(res.body.expires_at)).toBe((claims.exp as number) * 1000);

    const me = await request('GET', '/api/auth/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(a.userId);
    expect(me.body.team.id).toBe(a.teamId);
    expect(me.body.is_admin).toBe(false);

    const claim = await request('POST', '/api/claims', { token: res.body.token, body: { claim_number: `IMP-${tag}` } });
    expect(claim.status).toBe(201);
    const feed = (await a.client.get('/api/activity?limit=50')).body.items as any[];
    expect(feed.find((e) => e.entity_id === claim.body.id)).toMatchObject({
      user_id: a.userId,
      impersonated_by: adminExternalId,
    });
    expect(feed.find((e) => e.action_type === 'impersonate_user' && e.entity_id === a.userId)).toMatchObject({
      restorable: false,
      target: `Alpha user ${tag}`,
    });

    // The same token once expired is refused like any other.
    const expired = await signLoginToken({ ...claims, exp: undefined, iat: undefined }, { expiresInSeconds: -60 });
    expect((await request('GET', '/api/auth/me', { token: expired })).status).toBe(401);
  });

  it('answers 400 for a user with no external id and 404 for no user', async () => {
    const local = await createUser({ external_id: null, name: `Local ${tag}`, email: null, team_id: c.teamId });
    const res = await admin.post(`/api/admin/impersonate/${local.id}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/external id/);
    expect((await admin.post(`/api/admin/impersonate/${randomUUID()}`)).status).toBe(404);
    expect((await admin.post('/api/admin/impersonate/not-a-uuid')).status).toBe(422);
  });
});

describe('GET /api/admin/logs', () => {
  it('filters by team, user, status and text, with the total and the filter choices', async () => {
    const byTeam = await admin.get(`/api/admin/logs?team_id=${a.teamId}`);
    expect(byTeam.status).toBe(200);
    expect(byTeam.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(byTeam.body.jobs[0]).toMatchObject({
      id: aJob.id,
      team_name: `Alpha ${tag}`,
      user_name: `Alpha user ${tag}`,
      status: 'complete',
      logs_url: `/api/jobs/${aJob.id}/logs`,
    });
    expect(byTeam.body.teams.map((t: any) => t.id)).toEqual(expect.arrayContaining([a.teamId, b.teamId, c.teamId]));
    expect(byTeam.body.users).toEqual([{ id: a.userId, name: `Alpha user ${tag}`, team_id: a.teamId }]);

    expect(
      (await admin.get(`/api/admin/logs?team_id=${b.teamId}&status=error`)).body.jobs.map((j: any) => j.id),
    ).toEqual([bJobId]);
    expect((await admin.get(`/api/admin/logs?team_id=${c.teamId}&status=active`)).body.total).toBe(0);
    expect((await admin.get(`/api/admin/logs?team_id=${c.teamId}&status=awaiting_grouping`)).body.total).toBe(3);
    expect((await admin.get(`/api/admin/logs?user_id=${b.userId}`)).body.total).toBe(1);
    expect(
      (await admin.get(`/api/admin/logs?q=${encodeURIComponent(`ALPHA USER ${tag}`)}`)).body.jobs.map((j: any) => j.id),
    ).toEqual([aJob.id]);
    // The team's name finds its jobs too.
    expect((await admin.get(`/api/admin/logs?q=${encodeURIComponent(`Charlie ${tag}`)}`)).body.total).toBe(3);
    expect((await admin.get('/api/admin/logs?status=nope')).status).toBe(422);
  });

  it('pages by limit and offset, newest first', async () => {
    const page = async (offset: number) =>
      (await admin.get(`/api/admin/logs?team_id=${c.teamId}&limit=2&offset=${offset}`)).body;
    const first = await page(0);
    const second = await page(2);
    expect(first.total).toBe(3);
    expect([...first.jobs, ...second.jobs].map((j: any) => j.id)).toEqual([...cJobs].reverse());
    expect((await page(3)).jobs).toEqual([]);
  });
});

describe('GET /api/admin/activity', () => {
  it("reads any team's feed, filtered by text and paged", async () => {
    const all = await admin.get(`/api/admin/activity?team_id=${a.teamId}&limit=200`);
    expect(all.status).toBe(200);
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
    expect(all.body.items.every((e: any) => e.team_id === a.teamId && e.team_name === `Alpha ${tag}`)).toBe(true);
    const found = await admin.get(`/api/admin/activity?team_id=${a.teamId}&q=IMP-${tag}`);
    expect(found.body.items.map((e: any) => e.target)).toEqual([`IMP-${tag}`]);
    const first = await admin.get(`/api/admin/activity?team_id=${a.teamId}&limit=1`);
    expect(first.body).toMatchObject({ limit: 1, offset: 0, has_more: true });
    const second = await admin.get(`/api/admin/activity?team_id=${a.teamId}&limit=1&offset=1`);
    expect(second.body.items[0].id).toBe(all.body.items[1].id);
  });
});

describe('GET /api/admin/media', () => {
  it('shows capability URLs, a thumbnail, at most 12 photos with the count, and whether the file is there', async () => {
    // The second job's files are gone from the bucket.
    const prefix = `teams/${c.teamId}/claims/${c.room.claim_id}/jobs/${cJobs[1]}/`;
    const keys = await listKeys(prefix);
    expect(keys.length).toBeGreaterThan(0);
    await Promise.all(keys.map((Key) => s3.send(new DeleteObjectCommand({ Bucket: bucket(), Key }))));
    const res = await admin.get(`/api/admin/media?type=photo&team_id=${c.teamId}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    const byId = Object.fromEntries(res.body.items.map((item: any) => [item.id, item]));
    const big = byId[cJobs[0]];
    expect(big.photos).toHaveLength(12);
    expect(big.photo_count).toBe(13);
    expect(big.thumbnail_url).toBe(big.photos[0].url);
    expect(big.media_url).toBeNull();
    expect(big.file_exists).toBe(true);
    expect(byId[cJobs[1]].file_exists).toBe(false);
    // The photo URLs are capability URLs: they answer without a header.
    const photo = await fetch(`${serviceUrl()}${big.photos[0].url}`, { redirect: 'manual' });
    expect(photo.status).toBe(302);
    expect((await admin.get(`/api/admin/media?type=video&team_id=${c.teamId}`)).body.total).toBe(0);
    expect((await admin.get(`/api/admin/media?q=${cJobs[1]}`)).body.items.map((i: any) => i.id)).toEqual([cJobs[1]]);
  });
});

describe('GET /api/admin/api-requests', () => {
  it('groups the AI calls by job with totals, images only as label, size and hash', async () => {
    const res = await admin.get(`/api/admin/api-requests?team_id=${a.teamId}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    const [group] = res.body.jobs;
    expect(group.job.id).toBe(aJob.id);
    expect(group.totals).toMatchObject({ calls: aJob.ai_api_calls, cost_usd: aJob.ai_cost_usd });
    expect(group.totals.requests).toBe(group.requests.length);
    expect(group.requests.length).toBeGreaterThan(0);
    for (const req of group.requests)
      for (const image of req.request.images)
        expect(image).toEqual({
          label: expect.any(String),
          bytes: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        });
    expect(JSON.stringify(res.body)).not.toMatch(/data:image|base64,/);
    // Team C made no AI call.
    expect((await admin.get(`/api/admin/api-requests?team_id=${c.teamId}`)).body.total).toBe(0);
    expect(
      (await admin.get(`/api/admin/api-requests?user_id=${a.userId}&q=${encodeURIComponent(`Alpha ${tag}`)}`)).body
        .total,
    ).toBe(1);
  });
});

describe('GET and PUT /api/admin/components', () => {
  it('lists every component with its default; a team override turns training on for that team only', async () => {
    const table = await admin.get('/api/admin/components');
    expect(table.status).toBe(200);
    expect(table.body.components.map((c: any) => [c.component, c.default])).toEqual([
      ['training', false],
      ['claims_platform', false],
      ['estimation_platform', true],
      ['enterprise', false],
    ]);
    expect((await c.client.get('/api/training/overview')).status).toBe(404);

    const set = await admin.put('/api/admin/components', { component: 'training', team_id: c.teamId, visible: true });
    expect(set.status).toBe(200);
    const training = set.body.components.find((row: any) => row.component === 'training');
    expect(training.teams).toContainEqual({ team_id: c.teamId, team_name: `Charlie ${tag}`, visible: true });
    expect((await c.client.get('/api/training/overview')).status).toBe(200);
    expect((await b.client.get('/api/training/overview')).status).toBe(404);

    const cleared = await admin.put('/api/admin/components', {
      component: 'training',
      team_id: c.teamId,
      visible: null,
    });
    expect(cleared.body.components.find((row: any) => row.component === 'training').teams).not.toContainEqual(
      expect.objectContaining({ team_id: c.teamId }),
    );
    expect((await c.client.get('/api/training/overview')).status).toBe(404);
  });

  it('refuses an unknown component (422) and an unknown team (404)', async () => {
    expect((await admin.put('/api/admin/components', { component: 'nope', team_id: '', visible: true })).status).toBe(
      422,
    );
    expect(
      (await admin.put('/api/admin/components', { component: 'training', team_id: '', visible: 'yes' })).status,
    ).toBe(422);
    const unknown = await admin.put('/api/admin/components', {
      component: 'training',
      team_id: randomUUID(),
      visible: true,
    });
    expect(unknown.status).toBe(404);
  });
});

describe('an admin outside /api/admin', () => {
  it("reads another team's resources by id, but lists only the admin's own team", async () => {
    expect((await admin.get(`/api/claims/${a.room.claim_id}`)).status).toBe(200);
    expect((await admin.get(`/api/jobs/${aJob.id}`)).status).toBe(200);
    expect((await admin.get(`/api/inventory/${aJob.id}`)).status).toBe(200);
    // A non-admin of another team is refused the same ids (a claim-level route answers 403, as the spec allows).
    expect((await b.client.get(`/api/claims/${a.room.claim_id}`)).status).toBe(403);
    expect((await b.client.get(`/api/jobs/${aJob.id}`)).status).toBe(404);

    const claims = (await admin.get('/api/claims')).body as any[];
    expect(claims.map((claim) => claim.id)).not.toContain(a.room.claim_id);
    const feed = (await admin.get('/api/activity?limit=200')).body.items as any[];
    expect(feed.some((entry) => entry.team_id === a.teamId)).toBe(false);
  });
});
