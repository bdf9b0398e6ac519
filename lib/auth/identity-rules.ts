/**
 * Who is calling, as the rest of the service sees it: the Identity every
 * signed-in handler gets, the Actor written on activity entries, and the
 * admin allowlist (spec: Authentication > Dependencies).
 */
import type { JWTPayload } from 'jose';
import { settings } from '../config';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';

/** The acting identity written on activity entries. */
export interface Actor {
  user_id: string;
  user_name: string;
  team_id: string;
  is_admin: boolean;
  /** The admin who really acts when the session is an impersonation (their external id), else null. */
  impersonated_by?: string | null;
}

export interface Identity {
  user: User;
  team: Team;
  isAdmin: boolean;
  actor: Actor;
  authMode: 'jwt' | 'local-bypass';
  /** How the token arrived; null under the local bypass. */
  tokenVia: 'bearer' | 'cookie' | null;
  /** Raw JWT claims when a token was used. */
  rawClaims: JWTPayload | null;
}

export const RESTRICTED = 'This page is restricted.';

export function isAdminUser(user: Pick<User, 'external_id'>): boolean {
  return user.external_id !== null && settings().ADMIN_EXTERNAL_USER_IDS.includes(String(user.external_id));
}

/** The identity of a provisioned user and team. */
export function identityOf(
  user: User,
  team: Team,
  rest: Pick<Identity, 'authMode' | 'tokenVia' | 'rawClaims'>,
): Identity {
  const isAdmin = isAdminUser(user);
  const impersonator = rest.rawClaims?.impersonated_by;
  const impersonatedBy = impersonator === undefined || impersonator === null ? null : String(impersonator);
  return {
    user,
    team,
    isAdmin,
    actor: {
      user_id: user.id,
      user_name: user.name,
      team_id: team.id,
      is_admin: isAdmin,
      impersonated_by: impersonatedBy,
    },
    ...rest,
  };
}
