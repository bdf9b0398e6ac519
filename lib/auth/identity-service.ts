/**
 * Resolving the caller (spec: Authentication > Dependencies): get_current_user
 * and require_admin, as the functions the HTTP layer calls per route
 * (lib/api/endpoint.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { settings } from '../config';
import { ForbiddenError, NotSignedInError } from '../errors';
import { type Identity, identityOf, RESTRICTED } from './identity-rules';
import { extractLoginToken, INVALID_TOKEN, verifyLoginToken } from './login-token-rules';
import { provisionLocalUser, provisionTeam, provisionUser } from './provisioning-service';

/** get_current_user: NotSignedInError (401) without a valid token (or the local bypass). */
export async function resolveIdentity(event: Pick<APIGatewayProxyEventV2, 'headers' | 'cookies'>): Promise<Identity> {
  const config = settings();
  const found = extractLoginToken(event.headers ?? {}, event.cookies, config.CLAIMS_PLATFORM_COOKIE_NAME);
  if (!found) {
    if (config.APP_ENV === 'local' && config.LOCAL_AUTH_USER_EMAIL) {
      const { team, user } = await provisionLocalUser(config.LOCAL_AUTH_USER_EMAIL);
      return identityOf(user, team, { authMode: 'local-bypass', tokenVia: null, rawClaims: null });
    }
    throw new NotSignedInError(INVALID_TOKEN);
  }
  const { claims, raw } = await verifyLoginToken(found.token, config.CLAIMS_PLATFORM_JWT_SECRET);
  const team = await provisionTeam(claims);
  const user = await provisionUser(claims, team);
  return identityOf(user, team, { authMode: 'jwt', tokenVia: found.via, rawClaims: raw });
}

/** require_admin: ForbiddenError (403) 'This page is restricted.' unless the user is allowlisted. */
export async function resolveAdminIdentity(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'cookies'>,
): Promise<Identity> {
  const identity = await resolveIdentity(event);
  if (!identity.isAdmin) throw new ForbiddenError(RESTRICTED);
  return identity;
}
