/**
 * Hand-off into the estimation platform (spec: Authentication > Hand-off).
 * An HS256 token signed with ESTIMATION_PLATFORM_SSO_SECRET (falling back to
 * CLAIMS_PLATFORM_JWT_SECRET), living ESTIMATION_PLATFORM_SSO_TTL_MINUTES.
 */
import { baseUrl, settings } from '../config';
import { ConflictError, UnavailableError } from '../errors';
import { type HandoffIdentity, handoffUrl, signHandoffToken } from './handoff-rules';

/** GET /api/sso/estimation-platform/authorize: 503 when not configured, 409 for a user without an external id. */
export async function createEstimationHandoff(
  identity: HandoffIdentity,
  now = new Date(),
): Promise<{ redirect_url: string }> {
  const config = settings();
  const secret = config.ESTIMATION_PLATFORM_SSO_SECRET || config.CLAIMS_PLATFORM_JWT_SECRET;
  const appUrl = baseUrl(config.ESTIMATION_PLATFORM_APP_URL);
  if (!secret || !appUrl) throw new UnavailableError('The estimation platform hand-off is not configured.');
  if (!identity.user.external_id)
    throw new ConflictError(
      'Your account has no claims platform identity, so it cannot be handed to the estimation platform.',
    );
  const token = await signHandoffToken(identity, secret, config.ESTIMATION_PLATFORM_SSO_TTL_MINUTES, now);
  return { redirect_url: handoffUrl(appUrl, token) };
}
