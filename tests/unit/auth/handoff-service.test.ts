/** Covers: lib/auth/handoff-service.ts, lib/auth/handoff-rules.ts */
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { HANDOFF_AUDIENCE, HANDOFF_PURPOSE, SOURCE_APP } from '../../../lib/auth/handoff-rules';
import { createEstimationHandoff } from '../../../lib/auth/handoff-service';
import type { Identity } from '../../../lib/auth/identity-rules';
import { verifyLoginToken } from '../../../lib/auth/login-token-rules';
import { loadSettings, resetSettings, type SettingsInput } from '../../../lib/config';
import { ConflictError, DomainError, NotSignedInError, UnavailableError } from '../../../lib/errors';
import { logger } from '../../../lib/observability/logger';
import type { Team } from '../../../lib/teams/team-record-rules';
import type { User } from '../../../lib/users/user-record-rules';

const SSO_SECRET = 'estimation-sso-secret-abcdefghijklmnop';
const JWT_SECRET = 'claims-platform-secret-0123456789abcd';
const APP_URL = 'https://estimate.example.com';

function configure(overrides: SettingsInput) {
  resetSettings(
    loadSettings({
      env: {},
      overrides: {
        ESTIMATION_PLATFORM_SSO_SECRET: SSO_SECRET,
        CLAIMS_PLATFORM_JWT_SECRET: JWT_SECRET,
        ESTIMATION_PLATFORM_APP_URL: APP_URL,
        ...overrides,
      },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
}

function identity(userOverrides: Partial<User> = {}, teamOverrides: Partial<Team> = {}): Identity {
  const team: Team = {
    id: 'team-uuid-1',
    external_id: 42,
    name: 'Acme Adjusters',
    team_token: 'tok',
    estimation_platform_key: null,
    credit_rate: null,
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    ...teamOverrides,
  };
  const user: User = {
    id: 'user-uuid-1',
    external_id: '101',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    team_id: team.id,
    last_seen_at: null,
    created_at: '2024-01-01T00:00:00.000Z',
    ...userOverrides,
  };
  return {
    user,
    team,
    isAdmin: false,
    actor: { user_id: user.id, user_name: user.name, team_id: team.id, is_admin: false },
    authMode: 'jwt',
    tokenVia: 'bearer',
    rawClaims: null,
  };
}

async function rejection(fn: () => Promise<unknown>): Promise<DomainError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a rejection, but the call resolved');
}

function tokenOf(redirectUrl: string): string {
  const token = new URL(redirectUrl).searchParams.get('token');
  expect(token).toBeTruthy();
  return token!;
}

const key = (s: string) => new TextEncoder().encode(s);

afterEach(() => {
  resetSettings();
  jest.restoreAllMocks();
});

describe('createEstimationHandoff: not possible', () => {
  it('answers 503 when both secrets are empty', async () => {
    configure({ ESTIMATION_PLATFORM_SSO_SECRET: '', CLAIMS_PLATFORM_JWT_SECRET: '' });
    expect(await rejection(() => createEstimationHandoff(identity()))).toBeInstanceOf(UnavailableError);
  });

  it('answers 503 when ESTIMATION_PLATFORM_APP_URL is empty (or blank)', async () => {
    configure({ ESTIMATION_PLATFORM_APP_URL: '' });
    expect(await rejection(() => createEstimationHandoff(identity()))).toBeInstanceOf(UnavailableError);
    configure({ ESTIMATION_PLATFORM_APP_URL: '   ' });
    expect(await rejection(() => createEstimationHandoff(identity()))).toBeInstanceOf(UnavailableError);
  });

  it('answers 409 for a user with no external id', async () => {
    configure({});
    const err = await rejection(() => createEstimationHandoff(identity({ external_id: null })));
    expect(err).toBeInstanceOf(ConflictError);
  });
});

describe('createEstimationHandoff: the redirect', () => {
  it('points at {APP_URL}/auth/contents-inventory?token=... with no other parameters', async () => {
    configure({});
    const { redirect_url } = await createEstimationHandoff(identity());
    expect(SOURCE_APP).toBe('contents-inventory');
    expect(redirect_url.startsWith(`${APP_URL}/auth/contents-inventory?token=`)).toBe(true);
    const url = new URL(redirect_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}/auth/contents-inventory`);
    expect([...url.searchParams.keys()]).toEqual(['token']);
  });

  it('normalizes a bare domain with a trailing slash to an https base URL', async () => {
    configure({ ESTIMATION_PLATFORM_APP_URL: 'estimate.example.com/' });
    const { redirect_url } = await createEstimationHandoff(identity());
    expect(redirect_url.startsWith('https://estimate.example.com/auth/contents-inventory?token=')).toBe(true);
  });

  it('signs an HS256 token with the SSO secret carrying the spec’s claims and markers', async () => {
    configure({});
    const { redirect_url } = await createEstimationHandoff(identity());
    const token = tokenOf(redirect_url);

    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const { payload } = await jwtVerify(token, key(SSO_SECRET), { algorithms: ['HS256'], audience: HANDOFF_AUDIENCE });
    expect(payload).toMatchObject({
      user_id: '101',
      team_id: 42,
      email: 'ada@example.com',
      user_name: 'Ada Lovelace',
      aud: HANDOFF_AUDIENCE,
      purpose: HANDOFF_PURPOSE,
    });
    expect(payload.exp! - payload.iat!).toBe(3 * 60);
    // Not signed with the login secret when the SSO secret is set.
    await expect(jwtVerify(token, key(JWT_SECRET), { algorithms: ['HS256'] })).rejects.toThrow();
  });

  it('falls back to CLAIMS_PLATFORM_JWT_SECRET when the SSO secret is empty', async () => {
    configure({ ESTIMATION_PLATFORM_SSO_SECRET: '' });
    const token = tokenOf((await createEstimationHandoff(identity())).redirect_url);
    const { payload } = await jwtVerify(token, key(JWT_SECRET), { algorithms: ['HS256'], audience: HANDOFF_AUDIENCE });
    expect(payload.user_id).toBe('101');
    expect(payload.purpose).toBe(HANDOFF_PURPOSE);
  });

  it.each([1, 3, 10, 0.5])('lives ESTIMATION_PLATFORM_SSO_TTL_MINUTES (%s) minutes', async (ttl) => {
    configure({ ESTIMATION_PLATFORM_SSO_TTL_MINUTES: ttl });
    const now = new Date('2025-03-04T05:06:07.890Z');
    const payload = decodeJwt(tokenOf((await createEstimationHandoff(identity(), now)).redirect_url));
    expect(payload.iat).toBe(Math.floor(now.getTime() / 1000));
    expect(payload.exp! - payload.iat!).toBe(ttl * 60);
  });

  it('uses the team’s external id (not the internal id) and a UUID external user id verbatim', async () => {
    configure({});
    const uuid = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    const token = tokenOf(
      (await createEstimationHandoff(identity({ external_id: uuid, email: null }, { external_id: 7 }))).redirect_url,
    );
    const payload = decodeJwt(token);
    expect(payload.user_id).toBe(uuid);
    expect(payload.team_id).toBe(7);
    expect(payload.email).toBeNull();
  });

  it('mints a token that cannot be used to log in here (direction markers)', async () => {
    // Same secret on both sides: only the markers stop the token.
    configure({ ESTIMATION_PLATFORM_SSO_SECRET: '' });
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const token = tokenOf((await createEstimationHandoff(identity())).redirect_url);
    const err = await rejection(() => verifyLoginToken(token, JWT_SECRET));
    expect(err).toBeInstanceOf(NotSignedInError);
  });
});
