import { decodeJwt, jwtVerify } from 'jose';
import {
  IMPERSONATION_TOKEN_SECONDS,
  impersonationClaims,
  type JobIndexRow,
  fitRequestsPage,
  jobMatches,
  keptTotalOf,
  matchesQuery,
  signImpersonationToken,
} from '../../../lib/admin/rules';
import { loginClaimsSchema } from '../../../lib/auth/login-token-rules';

describe('text filter', () => {
  it('matches any field, case-insensitively; an empty query matches everything', () => {
    expect(matchesQuery('KITCH', ['Kitchen walkthrough.mp4', null])).toBe(true);
    expect(matchesQuery('garage', ['Kitchen', undefined, 42])).toBe(false);
    expect(matchesQuery('42', [42])).toBe(true);
    expect(matchesQuery(undefined, [])).toBe(true);
    expect(matchesQuery('   ', ['x'])).toBe(true);
  });
});

describe('job filter', () => {
  const job: JobIndexRow = {
    id: 'job-1',
    team_id: 'team-a',
    created_by_user_id: 'user-1',
    status: 'analyzing',
    source_type: 'video',
    original_filename: 'walk.mp4',
    error_message: null,
    ai_api_calls: 3,
  };
  const names = {
    teamName: (id: string) => (id === 'team-a' ? 'Acme Restoration' : undefined),
    userText: () => ['Dana', 'dana@example.test'],
  };

  it('filters by team, user, type, status and AI calls', () => {
    expect(jobMatches(job, {}, names)).toBe(true);
    expect(jobMatches(job, { team_id: 'team-b' }, names)).toBe(false);
    expect(jobMatches(job, { user_id: 'user-2' }, names)).toBe(false);
    expect(jobMatches(job, { type: 'photo' }, names)).toBe(false);
    expect(jobMatches(job, { status: 'analyzing' }, names)).toBe(true);
    expect(jobMatches(job, { status: 'complete' }, names)).toBe(false);
    expect(jobMatches(job, { with_ai_calls: true }, names)).toBe(true);
    expect(jobMatches({ ...job, ai_api_calls: 0 }, { with_ai_calls: true }, names)).toBe(false);
    expect(jobMatches({ ...job, ai_api_calls: undefined }, { with_ai_calls: true }, names)).toBe(false);
  });

  it("takes 'active' as running: processing or preparing, never awaiting grouping", () => {
    expect(jobMatches(job, { status: 'active' }, names)).toBe(true);
    expect(jobMatches({ ...job, status: 'importing_pdf' }, { status: 'active' }, names)).toBe(true);
    expect(jobMatches({ ...job, status: 'awaiting_grouping' }, { status: 'active' }, names)).toBe(false);
    expect(jobMatches({ ...job, status: 'complete' }, { status: 'active' }, names)).toBe(false);
  });

  it('finds a job by its file, its team name or its creator', () => {
    expect(jobMatches(job, { q: 'WALK' }, names)).toBe(true);
    expect(jobMatches(job, { q: 'acme' }, names)).toBe(true);
    expect(jobMatches(job, { q: 'dana@' }, names)).toBe(true);
    expect(jobMatches(job, { q: 'nothing like it' }, names)).toBe(false);
  });
});

describe('the job total a filter reads', () => {
  it('is a kept total for every team’s jobs, of a type or with AI calls', () => {
    expect(keptTotalOf({})).toBe('jobs');
    expect(keptTotalOf({ q: '  ' })).toBe('jobs');
    expect(keptTotalOf({ with_ai_calls: true })).toBe('jobs_with_ai_calls');
    expect(keptTotalOf({ type: 'audio' })).toBe('jobs__audio');
  });

  it('is none when the filter needs counting', () => {
    for (const filter of [
      { team_id: 't' },
      { user_id: 'u' },
      { status: 'error' },
      { status: 'active' },
      { q: 'acme' },
      { type: 'video', with_ai_calls: true },
      { type: 'pdf' },
    ])
      expect([filter, keptTotalOf(filter)]).toEqual([filter, null]);
  });
});

describe('an api-requests page', () => {
  const request = (n: number, chars: number) => ({ id: `r${n}`, content: 'x'.repeat(chars) });
  const group = (id: string, requests: unknown[]) => ({ job: { id }, requests });
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

  it('keeps every job that fits, untouched', () => {
    const groups = [group('a', [request(1, 100)]), group('b', [request(2, 100)])];
    const { kept, cut } = fitRequestsPage(groups, 10_000);
    expect(cut).toBe(false);
    expect(kept).toEqual(groups.map((g) => ({ ...g, requests_truncated: false })));
  });

  it('ends before the first job that does not fit, within the budget', () => {
    const groups = ['a', 'b', 'c', 'd'].map((id, n) => group(id, [request(n, 1_000)]));
    const { kept, cut } = fitRequestsPage(groups, 2_500);
    expect(cut).toBe(true);
    expect(kept.map((g) => g.job.id)).toEqual(['a', 'b']);
    expect(bytes(kept)).toBeLessThanOrEqual(2_500);
  });

  it('shows the first requests of a first job over the budget alone, and says so', () => {
    const big = group(
      'a',
      Array.from({ length: 10 }, (_, n) => request(n, 1_000)),
    );
    const alone = fitRequestsPage([big], 3_500);
    expect(alone.cut).toBe(false);
    expect(alone.kept[0].requests_truncated).toBe(true);
    expect(alone.kept[0].requests).toEqual(big.requests.slice(0, 3));
    expect(bytes(alone.kept)).toBeLessThanOrEqual(3_500);
    const withNext = fitRequestsPage([big, group('b', [])], 3_500);
    expect([withNext.cut, withNext.kept.map((g) => g.job.id)]).toEqual([true, ['a']]);
    // A budget too small for one request still shows the job.
    expect(fitRequestsPage([big], 10).kept[0].requests).toEqual([]);
  });
});

describe('impersonation', () => {
  const user = { external_id: '4242', name: 'Dana', email: 'dana@example.test' };
  const team = { external_id: 77, name: 'Acme', team_token: 'team-token-1' };
  const admin = { external_id: '900000001', id: 'admin-user-id' };

  it('signs the user in as the claims platform would, with who impersonates', () => {
    expect(impersonationClaims(user, team, admin)).toEqual({
      user_id: '4242',
      user_name: 'Dana',
      email: 'dana@example.test',
      current_team_id: 77,
      current_team_name: 'Acme',
      current_team_token: 'team-token-1',
      impersonated_by: '900000001',
    });
    const bare = impersonationClaims(
      { ...user, email: null },
      { ...team, team_token: null },
      { ...admin, external_id: null },
    );
    expect(bare).toEqual({
      user_id: '4242',
      user_name: 'Dana',
      current_team_id: 77,
      current_team_name: 'Acme',
      impersonated_by: 'admin-user-id',
    });
  });

  it('refuses a user or a team with no external id', () => {
    expect(impersonationClaims({ ...user, external_id: null }, team, admin)).toBeNull();
    expect(impersonationClaims(user, { ...team, external_id: null }, admin)).toBeNull();
  });

  it('mints a short-lived HS256 token the login token rules accept', async () => {
    const claims = impersonationClaims(user, team, admin);
    if (!claims) throw new Error('claims expected');
    const now = new Date();
    const { token, expires_at } = await signImpersonationToken(claims, 'secret-1', now);
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode('secret-1'));
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload.exp).toBe(Math.floor(now.getTime() / 1000) + IMPERSONATION_TOKEN_SECONDS);
    expect(Date.parse(expires_at) / 1000).toBe(payload.exp);
    expect(IMPERSONATION_TOKEN_SECONDS).toBeLessThanOrEqual(3600);
    expect(loginClaimsSchema.parse(decodeJwt(token))).toMatchObject({ user_id: '4242', impersonated_by: '900000001' });
  });
});
