/**
 * Who is calling (spec: Authentication > Dependencies): get_current_user,
 * get_actor and require_admin, as one function the HTTP layer calls per route.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { JWTPayload } from 'jose';
import { settings } from '../config';
import { forbidden, unauthorized } from '../http/errors';
import type { Team } from '../teams/team';
import type { User } from '../users/user';
import { extractLoginToken, INVALID_TOKEN, verifyLoginToken } from './login-token';
import { provisionLocalUser, provisionTeam, provisionUser } from './provisioning';

/** The acting identity written on activity entries. */
export interface Actor {
  user_id: string;
  user_name: string;
  team_id: string;
  is_admin: boolean;
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

function identityOf(user: User, team: Team, rest: Pick<Identity, 'authMode' | 'tokenVia' | 'rawClaims'>): Identity {
  const isAdmin = isAdminUser(user);
  return {
    user,
    team,
    isAdmin,
    actor: { user_id: user.id, user_name: user.name, team_id: team.id, is_admin: isAdmin },
    ...rest,
  };
}

/** get_current_user: 401 without a valid token (or the local bypass). */
export async function currentIdentity(event: Pick<APIGatewayProxyEventV2, 'headers' | 'cookies'>): Promise<Identity> {
  const config = settings();
  const found = extractLoginToken(event.headers ?? {}, event.cookies, config.CLAIMS_PLATFORM_COOKIE_NAME);
  if (!found) {
    if (config.APP_ENV === 'local' && config.LOCAL_AUTH_USER_EMAIL) {
      const { team, user } = await provisionLocalUser(config.LOCAL_AUTH_USER_EMAIL);
      return identityOf(user, team, { authMode: 'local-bypass', tokenVia: null, rawClaims: null });
    }
    throw unauthorized(INVALID_TOKEN);
  }
  const { claims, raw } = await verifyLoginToken(found.token, config.CLAIMS_PLATFORM_JWT_SECRET);
  const team = await provisionTeam(claims);
  const user = await provisionUser(claims, team);
  return identityOf(user, team, { authMode: 'jwt', tokenVia: found.via, rawClaims: raw });
}

/** require_admin: 403 'This page is restricted.' unless the user is allowlisted. */
export async function adminIdentity(event: Pick<APIGatewayProxyEventV2, 'headers' | 'cookies'>): Promise<Identity> {
  const identity = await currentIdentity(event);
  if (!identity.isAdmin) throw forbidden(RESTRICTED);
  return identity;
}
