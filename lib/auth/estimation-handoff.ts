/**
 * Hand-off into the estimation platform (spec: Authentication > Hand-off).
 * An HS256 token signed with ESTIMATION_PLATFORM_SSO_SECRET (falling back to
 * CLAIMS_PLATFORM_JWT_SECRET), living ESTIMATION_PLATFORM_SSO_TTL_MINUTES.
 * The aud and purpose markers keep a token minted for one direction from
 * working in the other: login-token.ts refuses tokens carrying them.
 */
import { SignJWT } from 'jose';
import { baseUrl, settings } from '../config';
import { conflict, serviceUnavailable } from '../http/errors';
import type { Team } from '../teams/team';
import type { User } from '../users/user';

/** The fixed path segment naming this service on the estimation platform. */
export const SOURCE_APP = 'contents-inventory';
export const HANDOFF_AUDIENCE = 'estimation-platform';
export const HANDOFF_PURPOSE = 'contents-inventory-to-estimation-platform-sso';

/**
 * Who is handed off: the caller's user and team. Only these fields, so this
 * module needs nothing of identity.ts (which reaches it through login-token.ts).
 */
export interface HandoffIdentity {
  user: Pick<User, 'external_id' | 'email' | 'name'>;
  team: Pick<Team, 'external_id'>;
}

export async function estimationHandoff(
  identity: HandoffIdentity,
  now = new Date(),
): Promise<{ redirect_url: string }> {
  const config = settings();
  const secret = config.ESTIMATION_PLATFORM_SSO_SECRET || config.CLAIMS_PLATFORM_JWT_SECRET;
  const appUrl = baseUrl(config.ESTIMATION_PLATFORM_APP_URL);
  if (!secret || !appUrl) throw serviceUnavailable('The estimation platform hand-off is not configured.');
  if (!identity.user.external_id)
    throw conflict('Your account has no claims platform identity, so it cannot be handed to the estimation platform.');
  const issuedAt = Math.floor(now.getTime() / 1000);
  const token = await new SignJWT({
    user_id: identity.user.external_id,
    team_id: identity.team.external_id,
    email: identity.user.email,
    user_name: identity.user.name,
    purpose: HANDOFF_PURPOSE,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(HANDOFF_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + Math.round(config.ESTIMATION_PLATFORM_SSO_TTL_MINUTES * 60))
    .sign(new TextEncoder().encode(secret));
  return { redirect_url: `${appUrl}/auth/${SOURCE_APP}?token=${encodeURIComponent(token)}` };
}
