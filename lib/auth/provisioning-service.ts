/**
 * Provisioning, on every authenticated request (spec: Authentication >
 * Provisioning): team by team_token (then by external id, so a rotated token
 * does not split a team), user by external_id then email, team sync, the
 * estimation key overwrite rule, last_seen_at at most once a minute.
 *
 * First-sight creation is a transaction over uniqueness rows, so concurrent
 * first requests converge on one team and one user: the loser retries and
 * finds the winner's rows.
 */
import { settings } from '../config';
import { isConditionRace } from '../db/client';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import { createTeam, findTeamByExternalId, findTeamByToken, getTeam, syncTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { createUser, findUserByEmail, findUserByExternalId, syncUser, touchLastSeen } from '../users/store';
import type { User } from '../users/user-record-rules';
import type { LoginClaims } from './login-token-rules';

/** Attempts at a first-sight creation; a lost race is retried at once, as the winner's rows are already there. */
const RACE_ATTEMPTS = 4;

const retryOnRace = <T>(work: () => Promise<T>): Promise<T> =>
  withRetry(work, { attempts: RACE_ATTEMPTS, backoffMs: 0, retryable: isConditionRace });

/**
 * `known`: the team already read for the token (lib/auth/signed-in-rows-store.ts; null when it found none),
 * used on the first attempt only: an attempt after a lost race reads again.
 */
export async function provisionTeam(claims: LoginClaims, known?: Team | null): Promise<Team> {
  let prefetched = known;
  return retryOnRace(async () => {
    const token = claims.current_team_token || null;
    let team = prefetched !== undefined ? prefetched : token ? await findTeamByToken(token) : null;
    prefetched = undefined;
    team ??= await findTeamByExternalId(claims.current_team_id);
    if (!team) {
      return createTeam({
        external_id: claims.current_team_id,
        name: claims.current_team_name || `Team ${claims.current_team_id}`,
        team_token: token,
        estimation_platform_key: claims.current_team_estimation_intake_key || null,
      });
    }
    return syncTeam(team, {
      name: claims.current_team_name || undefined,
      team_token: token ?? undefined,
      // Overwritten at every login when the claim is non-empty; an empty claim leaves the stored key.
      estimation_platform_key: claims.current_team_estimation_intake_key || undefined,
    });
  });
}

/** `known`: the user already read for the external id (null when none was found), used on the first attempt only. */
export async function provisionUser(claims: LoginClaims, team: Team, known?: User | null): Promise<User> {
  let prefetched = known;
  const user = await retryOnRace(async () => {
    const existing = prefetched !== undefined ? prefetched : await findUserByExternalId(claims.user_id);
    prefetched = undefined;
    if (existing) return syncUser(existing, { team_id: team.id, name: claims.user_name || undefined });
    const emailOwner = claims.email ? await findUserByEmail(claims.email) : null;
    // The email is a fallback key for users who have no external id yet
    // (e.g. created by the local bypass); it never merges two external ids.
    if (emailOwner && !emailOwner.external_id) {
      return syncUser(emailOwner, {
        external_id: claims.user_id,
        team_id: team.id,
        name: claims.user_name || undefined,
      });
    }
    return createUser(
      {
        external_id: claims.user_id,
        name: claims.user_name || claims.email || claims.user_id,
        email: claims.email || null,
        team_id: team.id,
      },
      !emailOwner,
    );
  });
  await touchLastSeen(user).catch((err) => logger.warn('last_seen_at stamp failed', { error: String(err) }));
  return user;
}

/** The local development bypass (APP_ENV=local with LOCAL_AUTH_USER_EMAIL). */
const LOCAL_TEAM_EXTERNAL_ID = 0;

export async function provisionLocalUser(email: string): Promise<{ team: Team; user: User }> {
  return retryOnRace(async () => {
    // A user who has signed in for real keeps their own team under the bypass.
    const existing = await findUserByEmail(email);
    const team =
      (existing && (await getTeam(existing.team_id))) ||
      (await findTeamByExternalId(LOCAL_TEAM_EXTERNAL_ID)) ||
      (await createTeam({
        external_id: LOCAL_TEAM_EXTERNAL_ID,
        name: 'Local team',
        team_token: null,
        estimation_platform_key: null,
      }));
    const user =
      existing ??
      (await createUser({ external_id: null, name: email.split('@')[0] || email, email, team_id: team.id }));
    await touchLastSeen(user).catch((err) => logger.warn('last_seen_at stamp failed', { error: String(err) }));
    // What a login token would carry for the team, so the sends can be tried locally (docs/local-demos.md).
    const config = settings();
    const synced = await syncTeam(team, {
      team_token: config.LOCAL_AUTH_TEAM_TOKEN || undefined,
      estimation_platform_key: config.LOCAL_AUTH_ESTIMATION_KEY || undefined,
    });
    return { team: synced, user };
  });
}
