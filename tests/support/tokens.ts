/** Login tokens as the claims platform mints them, for tests. */
import { randomInt, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

/** The secret the test service is started with (tests/support/service-env.ts). */
export const TEST_JWT_SECRET = 'test-claims-platform-secret-0123456789';

export interface LoginClaimsInput {
  user_id: string | number;
  current_team_id: number;
  user_name?: string;
  email?: string;
  current_team_name?: string;
  current_team_token?: string;
  current_team_estimation_intake_key?: string;
  [extra: string]: unknown;
}

export async function signLoginToken(
  claims: Partial<LoginClaimsInput>,
  options: { secret?: string; expiresInSeconds?: number; alg?: 'HS256' | 'HS512' } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims as Record<string, unknown>)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresInSeconds ?? 12 * 3600))
    .sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}

/** A fresh team and user that no other test uses. */
export function newTeamMember(overrides: Partial<LoginClaimsInput> = {}): LoginClaimsInput {
  const teamId = randomInt(100_000, 2_000_000_000);
  const userId = randomInt(100_000, 2_000_000_000);
  return {
    user_id: userId,
    user_name: `User ${userId}`,
    email: `user-${userId}@example.test`,
    current_team_id: teamId,
    current_team_name: `Team ${teamId}`,
    current_team_token: `team-token-${randomUUID()}`,
    ...overrides,
  };
}

/** A second member of the same team. */
export function teammateOf(member: LoginClaimsInput): LoginClaimsInput {
  const userId = randomInt(100_000, 2_000_000_000);
  return { ...member, user_id: userId, user_name: `User ${userId}`, email: `user-${userId}@example.test` };
}

/** An alg:none token (unsigned), which must always be refused. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 })}.`;
}
