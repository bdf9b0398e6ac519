/**
 * The rows an authenticated request is resolved from, read in two batches
 * instead of four reads one after another: the uniqueness rows of the login
 * token's team token and user id (consistent, as the single lookups are),
 * then the team and user rows they point to. Provisioning starts from what
 * is found here and falls back to its own lookups for anything missing.
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

export async function readSignedInRows(teamToken: string | null, userExternalId: string): Promise<SignedInRows> {
  const tokenKey = teamToken ? teamKeys.teamToken(teamTokenHash(teamToken)) : null;
  const userExternalKey = userKeys.userExternal(userExternalId);
  const uniques = await getRows(tokenKey ? [tokenKey, userExternalKey] : [userExternalKey], { consistentRead: true });
  const targetOf = (key: RowKey | null) =>
    key ? ((uniques.find((row) => sameKey(row, key))?.target_id as string | undefined) ?? null) : null;
  const teamId = targetOf(tokenKey);
  const userId = targetOf(userExternalKey);
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
