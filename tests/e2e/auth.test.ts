/**
 * Sign-in, provisioning and the auth routes over real HTTP against the local
 * service (spec: Authentication).
 */
import { jwtVerify } from 'jose';
import { Client, eventually, request } from '../support/api';
import { invokeFunction } from '../support/aws';
import { TEST_ADMIN_EXTERNAL_IDS, TEST_SSO_SECRET } from '../support/service-env';
import { newTeamMember, signLoginToken, teammateOf, unsignedToken, TEST_JWT_SECRET } from '../support/tokens';

const INVALID = { detail: 'Invalid or expired token' };

describe('the login token', () => {
  const member = newTeamMember();

  it.each([
    ['no token at all', async () => ({})],
    [
      'a bad signature',
      async () => ({ token: await signLoginToken(member, { secret: 'not-the-secret-at-all-0123456789' }) }),
    ],
    ['alg none', async () => ({ token: unsignedToken(member) })],
    ['an expired token', async () => ({ token: await signLoginToken(member, { expiresInSeconds: -60 }) })],
    ['a missing user_id', async () => ({ token: await signLoginToken({ ...member, user_id: undefined }) })],
    [
      'a missing current_team_id',
      async () => ({ token: await signLoginToken({ ...member, current_team_id: undefined }) }),
    ],
    [
      'another algorithm with the right secret',
      async () => ({ token: await signLoginToken(member, { alg: 'HS512' }) }),
    ],
    ['garbage', async () => ({ token: 'not.a.jwt' })],
    ['a malformed cookie', async () => ({ cookie: 'bt_shared_data=%E0%A4%A' })],
  ])('is refused with 401 for %s', async (_label, make) => {
    const options = await make();
    for (const path of ['/api/auth/me', '/api/claims', '/api/activity']) {
      const res = await request('GET', path, options);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
    }
  });

  it('is accepted from the shared cookie, and a cookie sign-in writes no login activity', async () => {
    const claims = newTeamMember();
    const token = await signLoginToken(claims);
    const res = await request('GET', '/api/auth/me', { cookie: `other=1; bt_shared_data=${token}` });
    expect(res.status).toBe(200);
    expect(res.body.user.external_id).toBe(String(claims.user_id));
    const feed = await request('GET', '/api/activity', { cookie: `bt_shared_data=${token}` });
    expect(feed.body.items.filter((e: any) => e.action_type === 'login')).toHaveLength(0);
  });

  it('writes a login activity when /api/auth/me is called with a bearer token', async () => {
    const client = await Client.signIn(newTeamMember());
    const feed = await client.get('/api/activity');
    const logins = feed.body.items.filter((e: any) => e.action_type === 'login');
    expect(logins).toHaveLength(1);
    expect(logins[0].restorable).toBe(false);
  });

  it('normalizes an integer user_id to its string form and treats "42" and 42 as one user', async () => {
    const claims = newTeamMember();
    const asInt = await Client.signIn({ ...claims, user_id: 4242 + Number(claims.current_team_id) });
    const asString = await Client.signIn({ ...claims, user_id: String(4242 + Number(claims.current_team_id)) });
    const a = (await asInt.get('/api/auth/me')).body;
    const b = (await asString.get('/api/auth/me')).body;
    expect(a.user.external_id).toBe(String(4242 + Number(claims.current_team_id)));
    expect(b.user.id).toBe(a.user.id);
  });

  it('accepts a UUID user_id and ignores audience and subject', async () => {
    const claims = newTeamMember({ user_id: '3f0c5a1e-7b7d-4d38-9a8e-0f5b8c2f6a11', aud: 'somebody-else', sub: 123 });
    const res = await request('GET', '/api/auth/me', { token: await signLoginToken(claims) });
    expect(res.status).toBe(200);
    expect(res.body.user.external_id).toBe('3f0c5a1e-7b7d-4d38-9a8e-0f5b8c2f6a11');
  });
});

describe('provisioning on every authenticated request', () => {
  it('creates the team and user on first sight, masks the team token, and syncs the team name', async () => {
    const claims = newTeamMember();
    const client = await Client.signIn(claims);
    const me = (await client.get('/api/auth/me')).body;
    expect(me.team.external_id).toBe(claims.current_team_id);
    expect(me.team.name).toBe(claims.current_team_name);
    expect(me.team.team_token).not.toContain(claims.current_team_token);
    expect(me.team.team_token.endsWith(String(claims.current_team_token).slice(-4))).toBe(true);
    expect(me.features).toEqual({
      training: false,
      claims_platform: false,
      estimation_platform: true,
      enterprise: false,
    });
    expect(me.is_admin).toBe(false);

    const renamed = await Client.signIn({ ...claims, current_team_name: 'Renamed Adjusters' });
    const after = (await renamed.get('/api/auth/me')).body;
    expect(after.team.id).toBe(me.team.id);
    expect(after.team.name).toBe('Renamed Adjusters');
  });

  it('overwrites the estimation key only when the claim is non-empty', async () => {
    const claims = newTeamMember({ current_team_estimation_intake_key: 'est-key-AAAA1111' });
    const first = await Client.signIn(claims);
    expect((await first.get('/api/auth/debug')).body.identity.team.estimation_platform_key).toMatch(/1111$/);
    const empty = await Client.signIn({ ...claims, current_team_estimation_intake_key: '' });
    expect((await empty.get('/api/auth/debug')).body.identity.team.estimation_platform_key).toMatch(/1111$/);
    const rotated = await Client.signIn({ ...claims, current_team_estimation_intake_key: 'est-key-BBBB2222' });
    expect((await rotated.get('/api/auth/debug')).body.identity.team.estimation_platform_key).toMatch(/2222$/);
  });

  it('moves a known user to the team named in a later token', async () => {
    const claims = newTeamMember();
    const before = (await (await Client.signIn(claims)).get('/api/auth/me')).body;
    const other = newTeamMember();
    const moved = (
      await (
        await Client.signIn({
          ...claims,
          current_team_id: other.current_team_id,
          current_team_token: other.current_team_token,
          current_team_name: other.current_team_name,
        })
      ).get('/api/auth/me')
    ).body;
    expect(moved.user.id).toBe(before.user.id);
    expect(moved.team.id).not.toBe(before.team.id);
    expect(moved.team.external_id).toBe(other.current_team_id);
  });

  it('keeps one team when its token is rotated', async () => {
    const claims = newTeamMember();
    const before = (await (await Client.signIn(claims)).get('/api/auth/me')).body;
    const after = (
      await (await Client.signIn({ ...claims, current_team_token: 'rotated-token-9999' })).get('/api/auth/me')
    ).body;
    expect(after.team.id).toBe(before.team.id);
    expect(after.team.team_token).toMatch(/9999$/);
  });

  it('creates exactly one team and one user when the first requests race', async () => {
    const claims = newTeamMember();
    const token = await signLoginToken(claims);
    const results = await Promise.all(Array.from({ length: 8 }, () => request('GET', '/api/claims', { token })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const me = await Promise.all(Array.from({ length: 3 }, () => request('GET', '/api/auth/me', { token })));
    expect(me.map((r) => [r.status, r.status === 200 ? 'ok' : r.body])).toEqual(Array(3).fill([200, 'ok']));
    expect(new Set(me.map((r) => r.body.team.id)).size).toBe(1);
    expect(new Set(me.map((r) => r.body.user.id)).size).toBe(1);
    // A teammate signing in lands in the same team.
    const mate = (await (await Client.signIn(teammateOf(claims))).get('/api/auth/me')).body;
    expect(mate.team.id).toBe(me[0].body.team.id);
  });
});

describe('the auth routes', () => {
  it('GET /api/auth/config returns the login URL with return_to at /auth/callback', async () => {
    const res = await request('GET', '/api/auth/config');
    expect(res.status).toBe(200);
    const url = new URL(res.body.login_url);
    expect(url.origin + url.pathname).toBe('https://claims-platform.example.test/login');
    expect(url.searchParams.get('return_to')).toBe('http://app.example.test/auth/callback');
  });

  it('PUT /api/auth/me sets an IANA timezone or browser-local, and refuses anything else', async () => {
    const client = await Client.signIn(newTeamMember());
    const set = await client.put('/api/auth/me', { timezone: 'America/New_York' });
    expect(set.status).toBe(200);
    expect(set.body.timezone).toBe('America/New_York');
    expect((await client.get('/api/auth/me')).body.timezone).toBe('America/New_York');
    for (const timezone of ['Mars/Olympus_Mons', 'not a zone', 12]) {
      const bad = await client.put('/api/auth/me', { timezone });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].field).toBe('body.timezone');
    }
    expect((await client.get('/api/auth/me')).body.timezone).toBe('America/New_York');
    const cleared = await client.put('/api/auth/me', { timezone: '' });
    expect(cleared.body.timezone).toBe('');
  });

  it('POST /api/auth/logout records a logout', async () => {
    const client = await Client.signIn(newTeamMember());
    expect((await client.post('/api/auth/logout')).status).toBe(200);
    const feed = (await client.get('/api/activity')).body.items;
    expect(feed[0].action_type).toBe('logout');
    expect(feed[0].restorable).toBe(false);
  });

  it('GET /api/auth/debug shows identity, raw claims with secrets masked, mode and readiness', async () => {
    const claims = newTeamMember({ current_team_estimation_intake_key: 'est-key-secret-7777' });
    const client = await Client.signIn(claims);
    const res = await client.get('/api/auth/debug');
    expect(res.status).toBe(200);
    expect(res.body.auth_mode).toBe('JWT');
    expect(res.body.jwt_claims.user_id).toBe(claims.user_id);
    expect(JSON.stringify(res.body)).not.toContain(String(claims.current_team_token));
    expect(JSON.stringify(res.body)).not.toContain('est-key-secret-7777');
    // The test service runs against the fake platforms with a public base URL (tests/support/service-env.ts).
    expect(res.body.estimation_platform).toEqual({
      public_base_url: 'https://inventory.example.test',
      photos_will_be_sent: true,
      ready_to_submit: true,
    });
    expect(res.body.claims_platform.ready).toBe(true);
  });

  it('hands off into the estimation platform with a direction-marked token that cannot log in here', async () => {
    const claims = newTeamMember();
    const client = await Client.signIn(claims);
    const res = await client.get('/api/sso/estimation-platform/authorize');
    expect(res.status).toBe(200);
    const url = new URL(res.body.redirect_url);
    expect(`${url.origin}${url.pathname}`).toBe('https://estimation.example.test/auth/contents-inventory');
    const token = url.searchParams.get('token') as string;
    const { payload } = await jwtVerify(token, new TextEncoder().encode(TEST_SSO_SECRET));
    expect(payload).toMatchObject({
      user_id: String(claims.user_id),
      team_id: claims.current_team_id,
      email: claims.email,
      user_name: claims.user_name,
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(180);
    expect(payload.aud).toBeTruthy();
    expect(payload.purpose).toBeTruthy();
    // Even signed with the login secret, a token carrying the hand-off markers is refused here.
    const reflected = await signLoginToken(
      { ...claims, aud: payload.aud as string, purpose: payload.purpose as string },
      { secret: TEST_JWT_SECRET },
    );
    expect((await request('GET', '/api/auth/me', { token: reflected })).status).toBe(401);
  });
});

describe('admins', () => {
  it('are recognised from the allowlist, and only they may hard-delete a claim', async () => {
    const admin = await Client.signIn(newTeamMember({ user_id: Number(TEST_ADMIN_EXTERNAL_IDS[0]) }));
    expect((await admin.get('/api/auth/me')).body.is_admin).toBe(true);
    const uuidAdmin = await Client.signIn(newTeamMember({ user_id: TEST_ADMIN_EXTERNAL_IDS[1] }));
    expect((await uuidAdmin.get('/api/auth/me')).body.is_admin).toBe(true);

    const owner = await Client.signIn(newTeamMember());
    const claim = (await owner.post('/api/claims', { claim_number: 'ADM-1' })).body;
    const refused = await owner.delete(`/api/claims/${claim.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This page is restricted.' });
    expect((await owner.get(`/api/claims/${claim.id}`)).status).toBe(200);

    const deleted = await admin.delete(`/api/claims/${claim.id}`);
    expect(deleted.status).toBe(200);
    expect((await owner.get(`/api/claims/${claim.id}`)).status).toBe(404);
  });
});

describe('health', () => {
  it('GET /health answers status and model without a token', async () => {
    const res = await request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(typeof res.body.model).toBe('string');
  });

  it('GET /api/health/pipeline reports the queue mode, and a worker alive once the watchdog ping went through', async () => {
    const res = await request('GET', '/api/health/pipeline');
    expect(res.status).toBe(200);
    expect(res.body.mode).toBe('worker');
    expect(Number.isInteger(res.body.queued_jobs)).toBe(true);
    const run = await invokeFunction('watchdog');
    expect(run.error).toBeUndefined();
    const alive = await eventually(async () => {
      const health = await request('GET', '/api/health/pipeline');
      return health.body.worker_alive ? health.body : null;
    });
    expect(Date.now() - Date.parse(alive.worker_last_seen_at)).toBeLessThan(60_000);
  });

  it('GET /api/openapi.json lists every route', async () => {
    const res = await request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/claims/{id}'].patch.operationId).toBe('patchClaim');
  });
});
