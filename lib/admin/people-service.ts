/**
 * GET /api/admin/users and POST /api/admin/impersonate/{user_id} (spec:
 * Admin; Impersonation): the user directory across teams, and a short-lived
 * login token that signs an admin in as another user. The token carries
 * impersonated_by, so the impersonated session's activity records who
 * really acted (lib/activity/service.ts).
 */
import { recordActivity } from '../activity/service';
import { type Identity, isAdminUser } from '../auth/identity-rules';
import { settings } from '../config';
import { InvalidRequestError, NotFoundError, UnavailableError } from '../errors';
import { getTeam } from '../teams/store';
import { getUser } from '../users/store';
import { impersonationClaims, matchesQuery, signImpersonationToken, USER_SEARCH_CAP } from './rules';
import { getTeamsById, listAllUsers } from './store';
import { adminUserView } from './view';

/** Users whose name, email or external id contains `search`, newest first, at most USER_SEARCH_CAP. */
export async function listUsers(search: string | undefined) {
  const matching = (await listAllUsers()).filter((user) =>
    matchesQuery(search, [user.name, user.email, user.external_id, user.id]),
  );
  const users = matching.slice(0, USER_SEARCH_CAP);
  const teams = await getTeamsById(users.map((user) => user.team_id));
  return {
    users: users.map((user) => adminUserView(user, teams.get(user.team_id), isAdminUser(user))),
    capped: matching.length > USER_SEARCH_CAP,
  };
}

export async function startImpersonation(admin: Identity, userId: string, now = new Date()) {
  const user = await getUser(userId);
  if (!user) throw new NotFoundError('No such user');
  const team = await getTeam(user.team_id);
  if (!team) throw new NotFoundError('No such user');
  const claims = impersonationClaims(user, team, admin.user);
  if (!claims)
    throw new InvalidRequestError(
      user.external_id
        ? 'This user’s team has no external id, so the user cannot be impersonated'
        : 'This user has no external id and cannot be impersonated',
    );
  const secret = settings().CLAIMS_PLATFORM_JWT_SECRET;
  if (!secret) throw new UnavailableError('Impersonation needs CLAIMS_PLATFORM_JWT_SECRET, which is not set');
  const { token, expires_at } = await signImpersonationToken(claims, secret, now);
  // In the impersonated user's team feed, so that team sees who signed in as one of them.
  await recordActivity(
    admin.actor,
    {
      team_id: user.team_id,
      action_type: 'impersonate_user',
      action_label: `Signed in as ${user.name}`,
      target: user.name,
      entity_type: 'user',
      entity_id: user.id,
      restorable: false,
    },
    now,
  );
  return {
    token,
    expires_at,
    impersonated_by: claims.impersonated_by,
    user: adminUserView(user, team, isAdminUser(user)),
  };
}
