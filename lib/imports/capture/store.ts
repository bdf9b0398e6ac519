/**
 * Storage connections (spec: Other records > Storage connection): one per
 * team and provider kind (capture_source), holding the organisation's id
 * (external_account_id) and its token (api_token, never returned to the
 * browser). A uniqueness row per (team, provider) makes it one; a row per
 * (organisation, team) lets the webhook find the connections of an
 * organisation. Connecting again replaces the connection in one transaction.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionRace, tableName } from '../../db/client';
import { withoutKeys } from '../../db/keys';
import { captureKeys } from './keys';
import { queryPartition } from '../../db/query';
import type { StorageConnection } from './connection-record-rules';

export const CAPTURE_SOURCE: StorageConnection['provider'] = 'capture_source';

const asConnection = (row: Record<string, unknown>) => withoutKeys(row) as unknown as StorageConnection;

export async function getConnection(id: string): Promise<StorageConnection | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: captureKeys.connection(id), ConsistentRead: true }),
  );
  return Item ? asConnection(Item) : null;
}

/** The team's connection of a provider kind, if any. */
export async function findTeamConnection(teamId: string, provider = CAPTURE_SOURCE): Promise<StorageConnection | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: captureKeys.teamConnection(teamId, provider), ConsistentRead: true }),
  );
  return Item?.target_id ? getConnection(String(Item.target_id)) : null;
}

/** The connections made to a capture source organisation (by any team), oldest first. */
async function listOrgConnections(orgId: string): Promise<StorageConnection[]> {
  const rows = await queryPartition<Record<string, unknown>>(captureKeys.orgConnection(orgId, '').pk, 'TEAM#', {
    consistent: true,
  });
  const found = await Promise.all(rows.map((r) => getConnection(String(r.target_id))));
  return found
    .filter((c): c is StorageConnection => c !== null)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

const rowsOf = (c: StorageConnection) => [
  { ...captureKeys.connection(c.id), entity: 'StorageConnection', ...c },
  { ...captureKeys.teamConnection(c.team_id, c.provider), entity: 'Unique', target_id: c.id },
  { ...captureKeys.orgConnection(c.external_account_id, c.team_id), entity: 'Unique', target_id: c.id },
  { ...captureKeys.orgOwner(c.external_account_id), entity: 'Unique', target_id: c.id, team_id: c.team_id },
];

/**
 * The team connected to an organisation, and its connection; null when none
 * is. One team per organisation: a connect by another team is refused while
 * this one stands. (Connections made before the rule have no owner row: the
 * oldest of the organisation's connections stands for it.)
 */
export async function findOrgConnection(orgId: string): Promise<StorageConnection | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: captureKeys.orgOwner(orgId), ConsistentRead: true }),
  );
  if (Item?.target_id) return getConnection(String(Item.target_id));
  return (await listOrgConnections(orgId))[0] ?? null;
}

/**
 * Stores the team's connection, replacing `previous` (its rows go in the
 * same transaction) so a team never has two.
 */
export async function saveConnection(
  connection: StorageConnection,
  previous: StorageConnection | null,
): Promise<boolean> {
  const puts = rowsOf(connection).map((Item) => ({ Put: { TableName: tableName(), Item } as Record<string, unknown> }));
  // The team's row decides between two racing connects: it must still be what was read.
  Object.assign(puts[1].Put, {
    ConditionExpression: previous ? 'target_id = :previous' : 'attribute_not_exists(pk)',
    ...(previous ? { ExpressionAttributeValues: { ':previous': previous.id } } : {}),
  });
  // The organisation's owner row decides between two teams: one team per organisation.
  Object.assign(puts[3].Put, {
    ConditionExpression: 'attribute_not_exists(pk) OR team_id = :team',
    ExpressionAttributeValues: { ':team': connection.team_id },
  });
  const replacedKeys = new Set(rowsOf(connection).map((r) => `${r.pk}|${r.sk}`));
  const deletes = previous
    ? (await ownRowsOf(previous))
        .filter((r) => !replacedKeys.has(`${r.pk}|${r.sk}`))
        .map((r) => ({ Delete: { TableName: tableName(), Key: { pk: r.pk, sk: r.sk } } }))
    : [];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [...puts, ...deletes] as never }));
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** Removes a connection and its lookup rows. */
export async function deleteConnection(connection: StorageConnection): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: (await ownRowsOf(connection)).map((r) => ({
        Delete: { TableName: tableName(), Key: { pk: r.pk, sk: r.sk } },
      })),
    }),
  );
}

/**
 * A connection's rows that are its own to remove: the organisation's owner
 * row only while it names this team (a connection made before the
 * one-team rule may share its organisation with the team that owns it now).
 */
async function ownRowsOf(connection: StorageConnection) {
  const owner = captureKeys.orgOwner(connection.external_account_id);
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: owner, ConsistentRead: true }));
  return rowsOf(connection).filter(
    (r) => r.sk !== owner.sk || r.pk !== owner.pk || Item?.team_id === connection.team_id,
  );
}
