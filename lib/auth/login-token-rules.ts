/**
 * The login token from the claims platform (spec: Authentication > Login token).
 * HS256 with CLAIMS_PLATFORM_JWT_SECRET; audience and subject are not checked;
 * user_id may be an integer (normalized to its string form) or a string.
 * No I/O: a refused token is a NotSignedInError (401) with INVALID_TOKEN.
 */
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import * as z from 'zod';
import { NotSignedInError } from '../errors';
import { logger } from '../observability/logger';
import { isHandoffToken } from './handoff-rules';

export const INVALID_TOKEN = 'Invalid or expired token';

const optionalText = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined ? undefined : String(v)));

/** The claims this service reads, mapped as the spec's claim table says. */
export const loginClaimsSchema = z.object({
  user_id: z.union([z.number().int(), z.string().trim().min(1)]).transform((v) => String(v)),
  user_name: optionalText,
  email: optionalText,
  current_team_id: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^-?\d+$/)
      .transform(Number),
  ]),
  current_team_name: optionalText,
  current_team_token: optionalText,
  current_team_estimation_intake_key: optionalText,
  impersonated_by: optionalText,
});

export type LoginClaims = z.output<typeof loginClaimsSchema>;

export interface VerifiedLoginToken {
  claims: LoginClaims;
  raw: JWTPayload;
}

/**
 * A genuine login token past its `exp` (its signature checked first): refused
 * like any other (401, INVALID_TOKEN), told apart so the sign-in can report
 * the expired session. `payload` is the token's verified claims.
 */
export class ExpiredLoginTokenError extends NotSignedInError {
  constructor(readonly payload: JWTPayload) {
    super(INVALID_TOKEN);
  }
}

export async function verifyLoginToken(token: string, secret: string): Promise<VerifiedLoginToken> {
  if (!secret) {
    // Every token fails while the secret is unset; say so loudly, once per call.
    logger.error('CLAIMS_PLATFORM_JWT_SECRET is not set: every login token is rejected');
    throw new NotSignedInError(INVALID_TOKEN);
  }
  let raw: JWTPayload;
  try {
    // exp is required: a login token without one would never expire.
    ({ payload: raw } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    if (!(err instanceof joseErrors.JOSEError) && !(err instanceof TypeError)) throw err;
    // An expired hand-off token is no session of ours.
    if (err instanceof joseErrors.JWTExpired && !isHandoffToken(err.payload))
      throw new ExpiredLoginTokenError(err.payload);
    throw new NotSignedInError(INVALID_TOKEN);
  }
  // A hand-off token minted for the estimation platform must never log in here.
  if (isHandoffToken(raw)) throw new NotSignedInError(INVALID_TOKEN);
  const parsed = loginClaimsSchema.safeParse(raw);
  if (!parsed.success) throw new NotSignedInError(INVALID_TOKEN);
  return { claims: parsed.data, raw };
}

/** The token from `Authorization: Bearer` or, failing that, the shared cookie. */
export function extractLoginToken(
  headers: Record<string, string | undefined>,
  cookies: string[] | undefined,
  cookieName: string,
): { token: string; via: 'bearer' | 'cookie' } | null {
  const authorization = headers.authorization ?? headers.Authorization;
  const bearer = authorization?.match(/^\s*Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return { token: bearer, via: 'bearer' };
  const cookieHeader = [...(cookies ?? []), headers.cookie ?? headers.Cookie ?? ''].join(';');
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === cookieName) {
      const value = tokenFromCookieValue(part.slice(eq + 1));
      if (value) return { token: value, via: 'cookie' };
    }
  }
  return null;
}

/** The shared cookie holds the JWT itself or a JSON object carrying it as `token`. */
function tokenFromCookieValue(rawValue: string): string | null {
  let value: string;
  try {
    value = decodeURIComponent(rawValue.trim().replace(/^"|"$/g, ''));
  } catch {
    return null;
  }
  if (value.startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as { token?: unknown; access_token?: unknown };
      const token = parsed.token ?? parsed.access_token;
      return typeof token === 'string' && token ? token : null;
    } catch {
      return null;
    }
  }
  return value || null;
}
