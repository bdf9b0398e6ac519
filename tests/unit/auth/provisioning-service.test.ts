import { TransactionCanceledException, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type GetCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { loginClaimsSchema, type LoginClaims } from '../../../lib/auth/login-token-rules';
import { provisionTeam, provisionUser } from '../../../lib/auth/provisioning-service';
import { loadSettings, resetSettings } from '../../../lib/config';
import { logger } from '../../../lib/observability/logger';
import { teamTokenHash } from '../../../lib/teams/store';
import type { Team } from '../../../lib/teams/team-record-rules';
import { touchLastSeen } from '../../../lib/users/store';
import type { User } from '../../../lib/users/user-record-rules';

const TABLE = 'unit-provisioning-table';
const ddb = mockClient(DynamoDBDocumentClient);

/** A tiny in-memory view of the table that GetCommand reads from. */
let rows: Map<string, Record<string, unknown>>;
const rowKey = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}|${String(k.sk)}`;
const putRow = (row: Record<string, unknown>) => rows.set(rowKey(row as { pk: string; sk: string }), row);

function seedTeam(team: Team) {
  putRow({ pk: `TEAM#${team.id}`, sk: 'TEAM', entity: 'Team', ...team });
  if (team.team_token)
    putRow({ pk: `TEAMTOKEN#${teamTokenHash(team.team_token)}`, sk: 'UNIQUE', entity: 'Unique', target_id: team.id });
  if (team.external_id !== null)
    putRow({ pk: `TEAMEXT#${team.external_id}`, sk: 'UNIQUE', entity: 'Unique', target_id: team.id });
}

function seedUser(user: User) {
  putRow({ pk: `USER#${user.id}`, sk: 'USER', entity: 'User', gsi1pk: `TEAM#${user.team_id}#USERS`, ...user });
  if (user.external_id)
    putRow({ pk: `USEREXT#${user.external_id}`, sk: 'UNIQUE', entity: 'Unique', target_id: user.id });
  if (user.email)
    putRow({ pk: `USEREMAIL#${user.email.toLowerCase()}`, sk: 'UNIQUE', entity: 'Unique', target_id: user.id });
}

function team(overrides: Partial<Team> = {}): Team {
  return {
    id: 'team-1',
    external_id: 42,
    name: 'Acme Adjusters',
    team_token: 'tok-current',
    estimation_platform_key: 'est-stored',
    credit_rate: null,
    created_at: '2024-01-01T00:00:00.000Z',
    updated_at: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function user(overrides: Partial<User> = {}): User {
  return {
    id: 'user-1',
    external_id: '101',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    team_id: 'team-1',
    // Seen 10 seconds ago, so provisioning does not stamp it unless a test says otherwise.
    last_seen_at: new Date(Date.now() - 10_000).toISOString(),
    created_at: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function claims(overrides: Record<string, unknown> = {}): LoginClaims {
  return loginClaimsSchema.parse({
    user_id: 101,
    user_name: 'Ada Lovelace',
    email: 'ada@example.com',
    current_team_id: 42,
    current_team_name: 'Acme Adjusters',
    current_team_token: 'tok-current',
    ...overrides,
  });
}

function raceError(codes: string[] = ['None', 'ConditionalCheckFailed', 'None']) {
  return new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

const transactInputs = () =>
  ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input as TransactWriteCommandInput);
const updateInputs = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input as UpdateCommandInput);

beforeAll(() => {
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: TABLE },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
});
afterAll(() => resetSettings());

beforeEach(() => {
  rows = new Map();
  ddb.reset();
  ddb
    .on(GetCommand)
    .callsFake((input: GetCommandInput) => ({ Item: rows.get(rowKey(input.Key as { pk: string; sk: string })) }));
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('provisionTeam', () => {
  it('(a) creates an unknown team with its token and external-id uniqueness rows in one conditional transaction', async () => {
    const created = await provisionTeam(claims({ current_team_estimation_intake_key: 'est-new' }));

    expect(created).toMatchObject({
      external_id: 42,
      name: 'Acme Adjusters',
      team_token: 'tok-current',
      estimation_platform_key: 'est-new',
      credit_rate: null,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);

    const items = transactInputs()[0].TransactItems!;
    expect(items).toHaveLength(3);
    for (const item of items) {
      expect(item.Put?.TableName).toBe(TABLE);
      expect(item.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
    const byPk = Object.fromEntries(items.map((i) => [String(i.Put!.Item!.pk), i.Put!.Item!]));
    expect(byPk[`TEAM#${created.id}`]).toMatchObject({
      sk: 'TEAM',
      entity: 'Team',
      id: created.id,
      external_id: 42,
      name: 'Acme Adjusters',
      team_token: 'tok-current',
    });
    expect(byPk[`TEAMTOKEN#${teamTokenHash('tok-current')}`]).toEqual({
      pk: `TEAMTOKEN#${teamTokenHash('tok-current')}`,
      sk: 'UNIQUE',
      entity: 'Unique',
      target_id: created.id,
    });
    expect(byPk['TEAMEXT#42']).toEqual({ pk: 'TEAMEXT#42', sk: 'UNIQUE', entity: 'Unique', target_id: created.id });
  });

  it('looks the team up by token hash and then by external id before creating it', async () => {
    await provisionTeam(claims());
    const gets = ddb.commandCalls(GetCommand).map((c) => (c.args[0].input as GetCommandInput).Key);
    expect(gets).toEqual([
      { pk: `TEAMTOKEN#${teamTokenHash('tok-current')}`, sk: 'UNIQUE' },
      { pk: 'TEAMEXT#42', sk: 'UNIQUE' },
    ]);
  });

  it('names a new team "Team <id>" when the token has no team name, and writes no token row without a token', async () => {
    const created = await provisionTeam(claims({ current_team_name: undefined, current_team_token: undefined }));
    expect(created.name).toBe('Team 42');
    expect(created.team_token).toBeNull();
    const pks = transactInputs()[0].TransactItems!.map((i) => String(i.Put!.Item!.pk));
    expect(pks).toEqual([`TEAM#${created.id}`, 'TEAMEXT#42']);
  });

  it('(b) a team found by token with a new name gets an update of the name only', async () => {
    seedTeam(team());
    const synced = await provisionTeam(claims({ current_team_name: 'Acme Renamed' }));

    expect(synced).toMatchObject({
      id: 'team-1',
      name: 'Acme Renamed',
      team_token: 'tok-current',
      estimation_platform_key: 'est-stored',
    });
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
    expect(ddb).toHaveReceivedCommandTimes(UpdateCommand, 1);
    const update = updateInputs()[0];
    expect(update.TableName).toBe(TABLE);
    expect(update.Key).toEqual({ pk: 'TEAM#team-1', sk: 'TEAM' });
    expect(update.ExpressionAttributeNames).toEqual({ '#updated_at': 'updated_at', '#name': 'name' });
    expect(update.ExpressionAttributeValues).toMatchObject({ ':name': 'Acme Renamed' });
    expect(Object.keys(update.ExpressionAttributeValues!).sort()).toEqual([':name', ':updated_at']);
  });

  it('a team found by token with nothing changed is not written at all', async () => {
    seedTeam(team());
    const found = await provisionTeam(claims());
    expect(found).toEqual(team());
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('(c) a non-empty estimation intake key overwrites the stored key', async () => {
    seedTeam(team());
    const synced = await provisionTeam(claims({ current_team_estimation_intake_key: 'est-rotated' }));
    expect(synced.estimation_platform_key).toBe('est-rotated');
    expect(ddb).toHaveReceivedCommandTimes(UpdateCommand, 1);
    const update = updateInputs()[0];
    expect(update.ExpressionAttributeNames).toEqual({
      '#updated_at': 'updated_at',
      '#estimation_platform_key': 'estimation_platform_key',
    });
    expect(update.ExpressionAttributeValues).toMatchObject({ ':estimation_platform_key': 'est-rotated' });
  });

  it.each([
    ['empty', { current_team_estimation_intake_key: '' }],
    ['missing', {}],
    ['null', { current_team_estimation_intake_key: null }],
  ])('(c) estimation intake key %s: the stored key is left (no update)', async (_label, extra) => {
    seedTeam(team());
    const synced = await provisionTeam(claims(extra));
    expect(synced.estimation_platform_key).toBe('est-stored');
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('(d) a rotated token (found by external id) moves the token uniqueness row in one transaction', async () => {
    seedTeam(team({ team_token: 'tok-old' }));
    const synced = await provisionTeam(claims({ current_team_token: 'tok-new' }));

    expect(synced).toMatchObject({ id: 'team-1', team_token: 'tok-new' });
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const items = transactInputs()[0].TransactItems!;
    expect(items).toHaveLength(3);

    const update = items.find((i) => i.Update)!.Update!;
    expect(update.Key).toEqual({ pk: 'TEAM#team-1', sk: 'TEAM' });
    expect(update.ExpressionAttributeNames).toMatchObject({ '#team_token': 'team_token' });
    expect(update.ExpressionAttributeValues).toMatchObject({ ':team_token': 'tok-new' });

    const put = items.find((i) => i.Put)!.Put!;
    expect(put.Item).toEqual({
      pk: `TEAMTOKEN#${teamTokenHash('tok-new')}`,
      sk: 'UNIQUE',
      entity: 'Unique',
      target_id: 'team-1',
    });
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');

    const del = items.find((i) => i.Delete)!.Delete!;
    expect(del.Key).toEqual({ pk: `TEAMTOKEN#${teamTokenHash('tok-old')}`, sk: 'UNIQUE' });
  });

  it('(d) a team that had no token gets one: update plus the new token row, nothing to delete', async () => {
    seedTeam(team({ team_token: null }));
    const synced = await provisionTeam(claims({ current_team_token: 'tok-first' }));
    expect(synced.team_token).toBe('tok-first');
    const items = transactInputs()[0].TransactItems!;
    expect(items.map((i) => Object.keys(i)[0])).toEqual(['Update', 'Put']);
    expect(items[1].Put!.Item).toMatchObject({ pk: `TEAMTOKEN#${teamTokenHash('tok-first')}`, target_id: 'team-1' });
  });

  it('a token without current_team_token never clears the stored token', async () => {
    seedTeam(team());
    const found = await provisionTeam(claims({ current_team_token: undefined }));
    expect(found.team_token).toBe('tok-current');
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('(e) a lost creation race retries and returns the winner’s team', async () => {
    const winner = team({ id: 'team-winner' });
    ddb.on(TransactWriteCommand).callsFakeOnce(() => {
      // The other request committed first: its rows exist now and our conditions fail.
      seedTeam(winner);
      throw raceError(['ConditionalCheckFailed', 'ConditionalCheckFailed', 'ConditionalCheckFailed']);
    });

    const result = await provisionTeam(claims());
    expect(result.id).toBe('team-winner');
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
  });

  it('starts from a team already read for the token: no lookup of its own', async () => {
    seedTeam(team());
    await expect(provisionTeam(claims(), team())).resolves.toEqual(team());
    expect(ddb).not.toHaveReceivedCommand(GetCommand);
  });

  it('with the token already known to name no team, looks it up by external id only', async () => {
    await provisionTeam(claims(), null);
    const gets = ddb.commandCalls(GetCommand).map((c) => (c.args[0].input as GetCommandInput).Key);
    expect(gets).toEqual([{ pk: 'TEAMEXT#42', sk: 'UNIQUE' }]);
  });

  it('(e) after a lost creation race, reads again instead of trusting what was read before it', async () => {
    const winner = team({ id: 'team-winner' });
    ddb.on(TransactWriteCommand).callsFakeOnce(() => {
      seedTeam(winner);
      throw raceError(['ConditionalCheckFailed', 'ConditionalCheckFailed', 'ConditionalCheckFailed']);
    });
    await expect(provisionTeam(claims(), null)).resolves.toMatchObject({ id: 'team-winner' });
    const gets = ddb.commandCalls(GetCommand).map((c) => String((c.args[0].input as GetCommandInput).Key!.pk));
    expect(gets).toEqual(['TEAMEXT#42', `TEAMTOKEN#${teamTokenHash('tok-current')}`, 'TEAM#team-winner']);
  });

  it('(e) a bare ConditionalCheckFailedException is a race too', async () => {
    const winner = team({ id: 'team-winner' });
    ddb.on(TransactWriteCommand).callsFakeOnce(() => {
      seedTeam(winner);
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    });
    await expect(provisionTeam(claims())).resolves.toMatchObject({ id: 'team-winner' });
  });

  it('(e) the 4th consecutive race is rethrown (no endless loop)', async () => {
    const err = raceError();
    ddb.on(TransactWriteCommand).rejects(err);
    await expect(provisionTeam(claims())).rejects.toBe(err);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 4);
  });

  it('a cancelled transaction that is not only a condition failure is rethrown at once', async () => {
    const err = raceError(['ConditionalCheckFailed', 'ThrottlingError']);
    ddb.on(TransactWriteCommand).rejects(err);
    await expect(provisionTeam(claims())).rejects.toBe(err);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });

  it('an unrelated error is rethrown at once', async () => {
    const err = new Error('network down');
    ddb.on(TransactWriteCommand).rejects(err);
    await expect(provisionTeam(claims())).rejects.toBe(err);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });
});

describe('provisionUser', () => {
  const currentTeam = team({ id: 'team-now' });

  it('(f) a user found by external id on another team is moved to the token’s team', async () => {
    seedUser(user({ team_id: 'team-before' }));
    const synced = await provisionUser(claims(), currentTeam);

    expect(synced).toMatchObject({ id: 'user-1', team_id: 'team-now', external_id: '101' });
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
    expect(ddb).toHaveReceivedCommandTimes(UpdateCommand, 1);
    const update = updateInputs()[0];
    expect(update.Key).toEqual({ pk: 'USER#user-1', sk: 'USER' });
    expect(update.ExpressionAttributeNames).toEqual({ '#team_id': 'team_id', '#gsi1pk': 'gsi1pk' });
    expect(update.ExpressionAttributeValues).toEqual({ ':team_id': 'team-now', ':gsi1pk': 'TEAM#team-now#USERS' });
    // Found by external id: the email lookup is never made.
    const gets = ddb.commandCalls(GetCommand).map((c) => String((c.args[0].input as GetCommandInput).Key!.pk));
    expect(gets).toEqual(['USEREXT#101', 'USER#user-1']);
  });

  it('(f) a known user whose name changed in the token gets the new name', async () => {
    seedUser(user({ team_id: 'team-now' }));
    const synced = await provisionUser(claims({ user_name: 'Ada King' }), currentTeam);
    expect(synced.name).toBe('Ada King');
    expect(updateInputs()).toHaveLength(1);
    expect(updateInputs()[0].ExpressionAttributeNames).toEqual({ '#name': 'name' });
    expect(updateInputs()[0].ExpressionAttributeValues).toEqual({ ':name': 'Ada King' });
  });

  it('(f) a user found by external id on the same team with the same name is not written', async () => {
    seedUser(user({ team_id: 'team-now' }));
    const found = await provisionUser(claims(), currentTeam);
    expect(found.id).toBe('user-1');
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('(f) an email owner with no external id adopts the token’s external id with its uniqueness row', async () => {
    seedUser(user({ id: 'local-user', external_id: null, email: 'ada@example.com', team_id: 'team-before' }));
    // The email lookup key is case-insensitive.
    const adopted = await provisionUser(claims({ email: 'Ada@Example.COM' }), currentTeam);

    expect(adopted).toMatchObject({ id: 'local-user', external_id: '101', team_id: 'team-now' });
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const items = transactInputs()[0].TransactItems!;
    expect(items).toHaveLength(2);
    const update = items[0].Update!;
    expect(update.Key).toEqual({ pk: 'USER#local-user', sk: 'USER' });
    expect(update.ExpressionAttributeValues).toMatchObject({ ':external_id': '101', ':team_id': 'team-now' });
    expect(items[1].Put).toEqual({
      TableName: TABLE,
      Item: { pk: 'USEREXT#101', sk: 'UNIQUE', entity: 'Unique', target_id: 'local-user' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('(f) an email owner with a different external id is not merged: a new user is created without claiming the email row', async () => {
    seedUser(user({ id: 'other-user', external_id: '999', email: 'ada@example.com' }));
    const created = await provisionUser(claims(), currentTeam);

    expect(created.id).not.toBe('other-user');
    expect(created).toMatchObject({
      external_id: '101',
      email: 'ada@example.com',
      team_id: 'team-now',
      name: 'Ada Lovelace',
      last_seen_at: null,
    });
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
    const items = transactInputs()[0].TransactItems!;
    const pks = items.map((i) => String(i.Put!.Item!.pk));
    expect(pks).toEqual([`USER#${created.id}`, 'USEREXT#101']);
    expect(pks.some((pk) => pk.startsWith('USEREMAIL#'))).toBe(false);
    for (const item of items) expect(item.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('(f) a brand-new user is created with user, external-id and (lower-cased) email rows', async () => {
    const created = await provisionUser(
      claims({ email: 'New.Person@Example.com', user_id: 'b1c2d3e4-0000-4000-8000-000000000001' }),
      currentTeam,
    );
    const items = transactInputs()[0].TransactItems!;
    expect(items.map((i) => String(i.Put!.Item!.pk))).toEqual([
      `USER#${created.id}`,
      'USEREXT#b1c2d3e4-0000-4000-8000-000000000001',
      'USEREMAIL#new.person@example.com',
    ]);
    expect(items[0].Put!.Item).toMatchObject({
      entity: 'User',
      gsi1pk: 'TEAM#team-now#USERS',
      external_id: 'b1c2d3e4-0000-4000-8000-000000000001',
    });
  });

  it('starts from a user already read for the external id: no lookup of its own', async () => {
    const known = user({ team_id: 'team-now' });
    seedUser(known);
    await expect(provisionUser(claims(), currentTeam, known)).resolves.toEqual(known);
    expect(ddb).not.toHaveReceivedCommand(GetCommand);
    expect(ddb).not.toHaveReceivedCommand(TransactWriteCommand);
  });

  it('(f) after a lost creation race with no user read before, reads again and returns the winner', async () => {
    const winner = user({ id: 'user-winner', team_id: 'team-now' });
    ddb.on(TransactWriteCommand).callsFakeOnce(() => {
      seedUser(winner);
      throw raceError(['ConditionalCheckFailed', 'ConditionalCheckFailed', 'None']);
    });
    await expect(provisionUser(claims(), currentTeam, null)).resolves.toMatchObject({ id: 'user-winner' });
    const gets = ddb.commandCalls(GetCommand).map((c) => String((c.args[0].input as GetCommandInput).Key!.pk));
    expect(gets).toEqual(['USEREMAIL#ada@example.com', 'USEREXT#101', 'USER#user-winner']);
  });

  it('(f) a lost user-creation race retries and returns the winner', async () => {
    const winner = user({ id: 'user-winner', team_id: 'team-now' });
    ddb.on(TransactWriteCommand).callsFakeOnce(() => {
      seedUser(winner);
      throw raceError(['ConditionalCheckFailed', 'ConditionalCheckFailed', 'None']);
    });
    const result = await provisionUser(claims(), currentTeam);
    expect(result.id).toBe('user-winner');
    expect(ddb).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
  });
});

describe('last_seen_at', () => {
  const currentTeam = team({ id: 'team-1' });
  const lastSeenUpdates = () => updateInputs().filter((u) => u.UpdateExpression === 'SET last_seen_at = :now');

  it('(g) is not stamped when it was stamped less than 60 seconds ago', async () => {
    seedUser(user({ last_seen_at: new Date(Date.now() - 30_000).toISOString() }));
    await provisionUser(claims(), currentTeam);
    expect(lastSeenUpdates()).toHaveLength(0);
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
  });

  it('(g) is stamped with a conditional update when older than a minute', async () => {
    seedUser(user({ last_seen_at: new Date(Date.now() - 120_000).toISOString() }));
    const before = Date.now();
    await provisionUser(claims(), currentTeam);
    const stamps = lastSeenUpdates();
    expect(stamps).toHaveLength(1);
    const stamp = stamps[0];
    expect(stamp.TableName).toBe(TABLE);
    expect(stamp.Key).toEqual({ pk: 'USER#user-1', sk: 'USER' });
    expect(stamp.ConditionExpression).toBe(
      'attribute_not_exists(last_seen_at) OR last_seen_at = :null OR last_seen_at < :cutoff',
    );
    const values = stamp.ExpressionAttributeValues!;
    const now = Date.parse(values[':now'] as string);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now - Date.parse(values[':cutoff'] as string)).toBe(60_000);
    expect(values[':null']).toBeNull();
  });

  it('(g) is stamped for a user never seen before', async () => {
    seedUser(user({ last_seen_at: null }));
    await provisionUser(claims(), currentTeam);
    expect(lastSeenUpdates()).toHaveLength(1);
  });

  it('(g) touchLastSeen uses exact 60 s resolution', async () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    await touchLastSeen(user({ last_seen_at: '2025-06-01T11:59:00.001Z' }), now);
    expect(ddb).not.toHaveReceivedCommand(UpdateCommand);
    await touchLastSeen(user({ last_seen_at: '2025-06-01T11:58:59.000Z' }), now);
    expect(ddb).toHaveReceivedCommandWith(UpdateCommand, {
      ExpressionAttributeValues: {
        ':now': '2025-06-01T12:00:00.000Z',
        ':cutoff': '2025-06-01T11:59:00.000Z',
        ':null': null,
      },
    });
  });

  it('(g) a ConditionalCheckFailed on the stamp is swallowed', async () => {
    seedUser(user({ last_seen_at: null }));
    ddb
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    await expect(touchLastSeen(user({ last_seen_at: null }))).resolves.toBeUndefined();
    await expect(provisionUser(claims(), currentTeam)).resolves.toMatchObject({ id: 'user-1' });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('(g) any other stamp failure does not fail provisioning (best-effort, logged)', async () => {
    seedUser(user({ last_seen_at: null }));
    ddb.on(UpdateCommand).rejects(new Error('throttled'));
    await expect(touchLastSeen(user({ last_seen_at: null }))).rejects.toThrow('throttled');
    await expect(provisionUser(claims(), currentTeam)).resolves.toMatchObject({ id: 'user-1' });
    expect(logger.warn).toHaveBeenCalledWith(
      'last_seen_at stamp failed',
      expect.objectContaining({ error: expect.stringContaining('throttled') }),
    );
  });
});
