/**
 * The rows an authenticated request is resolved from, read in two batches
 * instead of four reads one after another: the uniqueness rows of the login
 * token's team token and user id (consistent, as the single lookups are),
 * then the team and user rows they point to. Provisioning starts from what
 * is found here and falls back to its own lookups for anything missing. A
 * warm instance keeps where the uniqueness rows point, so a signed-in request
 * it has seen before reads only the team and user rows.
 */
import { getRows, type RowKey } from '../db/batch';
import { withoutKeys } from '../db/keys';
import { teamKeys } from '../teams/keys';
import { userKeys } from '../users/keys';
import { teamTokenHash } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import type { User } from '../users/user-record-rules';

export interface SignedInRows {
  /** The team the team token names; null without a token or when the token is not known here. */
  team: Team | null;
  /** The user with this external id; null when there is none yet. */
  user: User | null;
}

const sameKey = (row: Record<string, unknown>, key: RowKey) => row.pk === key.pk && row.sk === key.sk;
const keyText = (key: RowKey) => `${key.pk}|${key.sk}`;

/**
 * Where a team token's and a user id's uniqueness rows point, kept by this warm instance: the team and user rows
 * are still read on every request, and a target is used only while its row still carries that token or that id
 * (a rotated token, or a user row gone, reads the uniqueness rows again). Saves one of a signed-in request's two
 * reads. Bounded: emptied when full.
 */
const targets = new Map<string, string>();
const TARGETS_KEPT = 10_000;

function remember(key: RowKey, target: string | null) {
  if (target === null) return;
  if (targets.size >= TARGETS_KEPT) targets.clear();
  targets.set(keyText(key), target);
}

/** The team and user rows by id (either absent when not asked for or not found). */
async function readTargets(teamId: string | null, userId: string | null): Promise<SignedInRows> {
  const teamKey = teamId === null ? null : teamKeys.team(teamId);
  const userKey = userId === null ? null : userKeys.user(userId);
  const wanted = [teamKey, userKey].filter((key): key is RowKey => key !== null);
  const rows = wanted.length > 0 ? await getRows(wanted) : [];
  const rowOf = (key: RowKey | null) => {
    const row = key ? rows.find((r) => sameKey(r, key)) : undefined;
    return row ? withoutKeys(row) : null;
  };
  return { team: rowOf(teamKey) as Team | null, user: rowOf(userKey) as User | null };
}

export async function readSignedInRows(teamToken: string | null, userExternalId: string): Promise<SignedInRows> {
  const tokenKey = teamToken ? teamKeys.teamToken(teamTokenHash(teamToken)) : null;
  const userExternalKey = userKeys.userExternal(userExternalId);
  const knownTeam = tokenKey ? targets.get(keyText(tokenKey)) : null;
  const knownUser = targets.get(keyText(userExternalKey));
  if (knownTeam !== undefined && knownUser !== undefined) {
    const known = await readTargets(knownTeam, knownUser);
    if (known.user?.external_id === userExternalId && (tokenKey === null || known.team?.team_token === teamToken))
      return known;
    if (tokenKey) targets.delete(keyText(tokenKey));
    targets.delete(keyText(userExternalKey));
  }
  const uniques = await getRows(tokenKey ? [tokenKey, userExternalKey] : [userExternalKey], { consistentRead: true });
  const targetOf = (key: RowKey | null) =>
    key ? ((uniques.find((row) => sameKey(row, key))?.target_id as string | undefined) ?? null) : null;
  const teamId = targetOf(tokenKey);
  const userId = targetOf(userExternalKey);
  const found = await readTargets(teamId, userId);
  // Kept only for rows found carrying the token and id they were looked up by.
  if (tokenKey && found.team?.team_token === teamToken) remember(tokenKey, teamId);
  if (found.user?.external_id === userExternalId) remember(userExternalKey, userId);
  return found;
}
