/**
 * Resolving the caller (spec: Authentication > Dependencies): get_current_user
 * and require_admin, as the functions the HTTP layer calls per route
 * (lib/api/endpoint.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { JWTPayload } from 'jose';
import { settings } from '../config';
import { ForbiddenError, NotSignedInError } from '../errors';
import { analyticsEnabled, captureAnalytics } from '../observability/analytics';
import { sessionExpiredEvent } from '../observability/analytics-rules';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { findUserByExternalId } from '../users/store';
import { type Identity, identityOf, RESTRICTED } from './identity-rules';
import {
  ExpiredLoginTokenError,
  extractLoginToken,
  INVALID_TOKEN,
  type VerifiedLoginToken,
  verifyLoginToken,
} from './login-token-rules';
import { provisionLocalUser, provisionTeam, provisionUser } from './provisioning-service';
import { readSignedInRows } from './signed-in-rows-store';

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
  let verified: VerifiedLoginToken;
  try {
    verified = await verifyLoginToken(found.token, config.CLAIMS_PLATFORM_JWT_SECRET);
  } catch (err) {
    if (err instanceof ExpiredLoginTokenError) await reportExpiredSession(err.payload, found.via);
    throw err;
  }
  const { claims, raw } = verified;
  const known = await readSignedInRows(claims.current_team_token || null, claims.user_id);
  const team = await provisionTeam(claims, known.team);
  const user = await provisionUser(claims, team, known.user);
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

/**
 * A genuine login token past its expiry (spec: Outbound signals): a
 * session_expired analytics event, naming the user by our id when the token's
 * user is known here (looked up only when analytics is on), and an info-level
 * error-tracking message. The request is answered 401 whatever happens here.
 */
async function reportExpiredSession(payload: JWTPayload, via: 'bearer' | 'cookie'): Promise<void> {
  try {
    const externalId =
      typeof payload.user_id === 'string' || typeof payload.user_id === 'number' ? payload.user_id : null;
    const user = externalId !== null && analyticsEnabled() ? await findUserByExternalId(String(externalId)) : null;
    const expiredAt = typeof payload.exp === 'number' ? payload.exp : null;
    captureAnalytics(sessionExpiredEvent({ userId: user?.id ?? null, via, expiredAt, now: new Date() }));
    reportError({
      kind: 'session_expired',
      level: 'info',
      message: 'Session expired: a login token past its expiry was refused',
      tags: { token_via: via, user_id: user?.id },
    });
  } catch (err) {
    logger.warn('session expiry not reported', { error: String(err) });
  }
}
