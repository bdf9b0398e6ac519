/**
 * The hand-off token into the estimation platform (spec: Authentication >
 * Hand-off): its claims and the direction markers. The aud and purpose markers
 * keep a token minted for one direction from working in the other:
 * login-token-rules.ts refuses tokens carrying them.
 */
import { type JWTPayload, SignJWT } from 'jose';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';

/** The fixed path segment naming this service on the estimation platform. */
export const SOURCE_APP = 'contents-inventory';
export const HANDOFF_AUDIENCE = 'estimation-platform';
export const HANDOFF_PURPOSE = 'contents-inventory-to-estimation-platform-sso';

/**
 * Who is handed off: the caller's user and team. Only these fields, so the
 * hand-off needs nothing of the identity modules (which reach it through
 * login-token-rules.ts).
 */
export interface HandoffIdentity {
  user: Pick<User, 'external_id' | 'email' | 'name'>;
  team: Pick<Team, 'external_id'>;
}

/** A token minted for the estimation platform (by its purpose or audience). */
export function isHandoffToken(payload: JWTPayload): boolean {
  const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud ? [payload.aud] : [];
  return payload.purpose === HANDOFF_PURPOSE || audiences.includes(HANDOFF_AUDIENCE);
}

/** The HS256 hand-off token, living `ttlMinutes` from `now`. */
export async function signHandoffToken(
  identity: HandoffIdentity,
  secret: string,
  ttlMinutes: number,
  now: Date,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    user_id: identity.user.external_id,
    team_id: identity.team.external_id,
    email: identity.user.email,
    user_name: identity.user.name,
    purpose: HANDOFF_PURPOSE,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(HANDOFF_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + Math.round(ttlMinutes * 60))
    .sign(new TextEncoder().encode(secret));
}

/** Where the browser goes: the platform's entry for this service, carrying the token. */
export const handoffUrl = (appUrl: string, token: string) =>
  `${appUrl}/auth/${SOURCE_APP}?token=${encodeURIComponent(token)}`;
