/** Who is calling: the identity and activity actor of a provisioned user, and the admin allowlist (spec: Dependencies). */
import { loadSettings, resetSettings } from '../../../lib/config';
import { identityOf, isAdminUser, RESTRICTED } from '../../../lib/auth/identity-rules';
import type { Team } from '../../../lib/teams/team-record-rules';
import type { User } from '../../../lib/users/user-record-rules';

const isolated = (env: Record<string, string> = {}) =>
  loadSettings({ env, overrides: {}, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' });

const team: Team = {
  id: 'team-1',
  external_id: 42,
  name: 'Adjusters',
  team_token: 'tok',
  estimation_platform_key: null,
  credit_rate: null,
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
};

const user = (external_id: string | null): User => ({
  id: 'user-1',
  external_id,
  name: 'Ada Adjuster',
  email: 'ada@example.com',
  team_id: team.id,
  last_seen_at: null,
  created_at: '2024-01-01T00:00:00.000Z',
});

const jwt = { authMode: 'jwt', tokenVia: 'bearer', rawClaims: { user_id: '10' } } as const;

beforeEach(() => resetSettings(isolated({ ADMIN_EXTERNAL_USER_IDS: '7,10,3f1c2b9e-0000-4000-8000-000000000001' })));
afterAll(() => resetSettings());

describe('identityOf', () => {
  it('carries the user, team and how the token arrived, and builds the activity actor from them', () => {
    const identity = identityOf(user('99'), team, jwt);
    expect(identity).toEqual({
      user: user('99'),
      team,
      isAdmin: false,
      actor: {
        user_id: 'user-1',
        user_name: 'Ada Adjuster',
        team_id: 'team-1',
        is_admin: false,
        impersonated_by: null,
      },
      authMode: 'jwt',
      tokenVia: 'bearer',
      rawClaims: { user_id: '10' },
    });
  });

  it('names the admin who really acts when the token is an impersonation', () => {
    const identity = identityOf(user('99'), team, { ...jwt, rawClaims: { user_id: '99', impersonated_by: 900000001 } });
    expect(identity.actor.impersonated_by).toBe('900000001');
    expect(identity.isAdmin).toBe(false);
  });

  it('makes an admin of a user whose external_id is on ADMIN_EXTERNAL_USER_IDS, legacy integer or UUID', () => {
    for (const id of ['7', '10', '3f1c2b9e-0000-4000-8000-000000000001']) {
      const identity = identityOf(user(id), team, jwt);
      expect(identity.isAdmin).toBe(true);
      expect(identity.actor.is_admin).toBe(true);
    }
  });

  it('answers isAdminUser from the same allowlist, never for a user without an external_id', () => {
    expect(isAdminUser(user('10'))).toBe(true);
    expect(isAdminUser(user('11'))).toBe(false);
    expect(isAdminUser(user(null))).toBe(false);
  });

  it('compares the whole id, not a part of it', () => {
    expect(identityOf(user('1'), team, jwt).isAdmin).toBe(false);
    expect(identityOf(user('70'), team, jwt).isAdmin).toBe(false);
    expect(identityOf(user(''), team, jwt).isAdmin).toBe(false);
  });

  it('never makes an admin of a user without an external_id (the local bypass user)', () => {
    resetSettings(isolated({ ADMIN_EXTERNAL_USER_IDS: 'null,' }));
    const identity = identityOf(user(null), team, { authMode: 'local-bypass', tokenVia: null, rawClaims: null });
    expect(identity.isAdmin).toBe(false);
    expect(identity).toMatchObject({ authMode: 'local-bypass', tokenVia: null, rawClaims: null });
  });

  it('reads the allowlist from the current settings', () => {
    expect(identityOf(user('55'), team, jwt).isAdmin).toBe(false);
    resetSettings(isolated({ ADMIN_EXTERNAL_USER_IDS: '55' }));
    expect(identityOf(user('55'), team, jwt).isAdmin).toBe(true);
    expect(identityOf(user('7'), team, jwt).isAdmin).toBe(false);
  });

  it('uses the spec wording for the admin refusal', () => {
    expect(RESTRICTED).toBe('This page is restricted.');
  });
});
