/**
 * The signed-in session as the SPA sees it: GET/PUT /api/auth/me, logout,
 * login URL and the debug view.
 */
import { recordActivity } from '../activity/service';
import { baseUrl, settings } from '../config';
import { teamFeatures } from '../features/store';
import { maskSecret, publicTeam } from '../teams/view';
import { setUserTimezone } from '../users/store';
import { userView } from '../users/view';
import type { Identity } from '../auth/identity-rules';

/** The answer of GET/PUT /api/auth/me. */
async function describeMe(identity: Identity) {
  return {
    user: userView(identity.user),
    team: publicTeam(identity.team),
    is_admin: identity.isAdmin,
    timezone: identity.user.timezone ?? '',
    features: await teamFeatures(identity.team.id),
  };
}

/** GET /api/auth/me writes a login activity only when called with a bearer token (the login callback). */
export async function getMe(identity: Identity) {
  if (identity.tokenVia === 'bearer') {
    await recordActivity(identity.actor, {
      team_id: identity.team.id,
      action_type: 'login',
      action_label: 'Signed in',
      target: identity.user.email ?? identity.user.name,
      restorable: false,
    });
  }
  return describeMe(identity);
}

export async function updateMe(identity: Identity, timezone: string) {
  const user = await setUserTimezone(identity.user.id, timezone);
  return describeMe({ ...identity, user });
}

export async function logOut(identity: Identity) {
  await recordActivity(identity.actor, {
    team_id: identity.team.id,
    action_type: 'logout',
    action_label: 'Signed out',
    target: identity.user.email ?? identity.user.name,
    restorable: false,
  });
  return { ok: true };
}

export function getAuthConfig() {
  const config = settings();
  const returnTo = `${baseUrl(config.PUBLIC_APP_BASE_URL)}/auth/callback`;
  const login = new URL(config.CLAIMS_PLATFORM_LOGIN_URL);
  login.searchParams.set('return_to', returnTo);
  return { login_url: login.toString(), return_to: returnTo, cookie_name: config.CLAIMS_PLATFORM_COOKIE_NAME };
}

/** Secrets inside raw claims are masked like everywhere else. */
const SECRET_CLAIMS = ['current_team_token', 'current_team_estimation_intake_key'];

export function getAuthDebug(identity: Identity) {
  const config = settings();
  const claims = identity.rawClaims
    ? Object.fromEntries(
        Object.entries(identity.rawClaims).map(([k, v]) => [
          k,
          SECRET_CLAIMS.includes(k) ? maskSecret(String(v ?? '')) : v,
        ]),
      )
    : null;
  const publicBaseUrl = baseUrl(config.PUBLIC_BASE_URL);
  return {
    auth_mode: identity.authMode === 'local-bypass' ? 'local bypass' : 'JWT',
    token_via: identity.tokenVia,
    identity: { user: userView(identity.user), team: publicTeam(identity.team), is_admin: identity.isAdmin },
    jwt_claims: claims,
    claims_platform: {
      base_url_configured: Boolean(config.CLAIMS_PLATFORM_BASE_URL),
      team_token: maskSecret(identity.team.team_token),
      ready: Boolean(
        config.CLAIMS_PLATFORM_BASE_URL && (identity.team.team_token || config.CLAIMS_PLATFORM_BEARER_TOKEN),
      ),
    },
    estimation_platform: {
      public_base_url: publicBaseUrl || null,
      photos_will_be_sent: Boolean(publicBaseUrl),
      ready_to_submit: Boolean(config.ESTIMATION_PLATFORM_BASE_URL && identity.team.estimation_platform_key),
    },
  };
}
