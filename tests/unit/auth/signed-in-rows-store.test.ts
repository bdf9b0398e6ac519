/**
 * Covers: lib/auth/signed-in-rows-store.ts — a request signed in again on the
 * same warm instance reads only the team and user rows; a target whose row no
 * longer carries the token or the id it was found by (a rotated team token, a
 * user row gone) is forgotten and the uniqueness rows are read again.
 */
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { readSignedInRows } from '../../../lib/auth/signed-in-rows-store';
import { teamKeys } from '../../../lib/teams/keys';
import { teamTokenHash } from '../../../lib/teams/store';
import { userKeys } from '../../../lib/users/keys';
import { useIsolatedSettings } from '../../support/unit-settings';

const TABLE = 'signed-in-rows-table';
const ddb = mockClient(DynamoDBDocumentClient);
useIsolatedSettings({ TABLE_NAME: TABLE });

/** The table's rows; BatchGet answers those it has. */
let stored: Record<string, unknown>[] = [];
const table = (rows: Record<string, unknown>[]) => {
  stored = rows;
};
beforeEach(() => {
  ddb.reset();
  ddb.on(BatchGetCommand).callsFake((input) => {
    const keys = input.RequestItems[TABLE].Keys as { pk: string; sk: string }[];
    return { Responses: { [TABLE]: stored.filter((r) => keys.some((k) => k.pk === r.pk && k.sk === r.sk)) } };
  });
});
const batches = () => ddb.commandCalls(BatchGetCommand).length;

let n = 0;
function signedIn() {
  n += 1;
  const token = `team-token-${n}`;
  const userExternalId = `user-${n}`;
  const teamId = `team-id-${n}`;
  const userId = `user-id-${n}`;
  const team = { ...teamKeys.team(teamId), id: teamId, team_token: token };
  const user = { ...userKeys.user(userId), id: userId, external_id: userExternalId };
  const uniques = [
    { ...teamKeys.teamToken(teamTokenHash(token)), target_id: teamId },
    { ...userKeys.userExternal(userExternalId), target_id: userId },
  ];
  return { token, userExternalId, team, user, uniques };
}

describe('readSignedInRows', () => {
  it('reads the uniqueness rows once, then only the team and user rows', async () => {
    const s = signedIn();
    table([...s.uniques, s.team, s.user]);
    expect(await readSignedInRows(s.token, s.userExternalId)).toMatchObject({
      team: { id: s.team.id },
      user: { id: s.user.id },
    });
    expect(batches()).toBe(2);
    expect(await readSignedInRows(s.token, s.userExternalId)).toMatchObject({
      team: { id: s.team.id },
      user: { id: s.user.id },
    });
    expect(batches()).toBe(3);
  });

  it('reads the uniqueness rows again once the team row carries another token', async () => {
    const s = signedIn();
    table([...s.uniques, s.team, s.user]);
    await readSignedInRows(s.token, s.userExternalId);
    // The team's token was rotated: the old token's uniqueness row is gone and the team row carries the new one.
    table([s.uniques[1], { ...s.team, team_token: 'rotated' }, s.user]);
    // The kept rows (1 read), then the uniqueness rows and the user row (2 reads).
    expect(await readSignedInRows(s.token, s.userExternalId)).toEqual({ team: null, user: expect.any(Object) });
    expect(batches()).toBe(5);
    // Nothing is kept for a token that names no team: the next request reads the uniqueness rows again.
    await readSignedInRows(s.token, s.userExternalId);
    expect(batches()).toBe(7);
  });

  it('reads the uniqueness rows again once the user row is gone, and keeps nothing for an unknown user', async () => {
    const s = signedIn();
    table([...s.uniques, s.team, s.user]);
    await readSignedInRows(s.token, s.userExternalId);
    table([s.uniques[0], s.team]);
    expect(await readSignedInRows(s.token, s.userExternalId)).toMatchObject({ team: { id: s.team.id }, user: null });
    expect(batches()).toBe(5);
    await readSignedInRows(s.token, s.userExternalId);
    expect(batches()).toBe(7);
  });

  it('signs in without a team token from the user row alone', async () => {
    const s = signedIn();
    table([...s.uniques, s.user]);
    expect(await readSignedInRows(null, s.userExternalId)).toMatchObject({ team: null, user: { id: s.user.id } });
    expect(batches()).toBe(2);
    expect(await readSignedInRows(null, s.userExternalId)).toMatchObject({ team: null, user: { id: s.user.id } });
    expect(batches()).toBe(3);
  });
});
