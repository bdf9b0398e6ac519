/** Team records (spec: Resources > Team). */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { teamKeys } from './keys';
import { setClauses, uniqueRowPut } from '../db/update';
import type { Team } from './team-record-rules';

export function teamTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function getTeam(id: string): Promise<Team | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: teamKeys.team(id) }));
  return Item ? (withoutKeys(Item) as unknown as Team) : null;
}

async function getUniqueTarget(key: { pk: string; sk: string }): Promise<string | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return (Item?.target_id as string | undefined) ?? null;
}

export async function findTeamByToken(token: string): Promise<Team | null> {
  const id = await getUniqueTarget(teamKeys.teamToken(teamTokenHash(token)));
  return id ? getTeam(id) : null;
}

export async function findTeamByExternalId(externalId: number): Promise<Team | null> {
  const id = await getUniqueTarget(teamKeys.teamExternal(externalId));
  return id ? getTeam(id) : null;
}

/**
 * Creates a team with its uniqueness rows in one transaction, so two first
 * requests racing each other cannot create two teams; the loser's transaction
 * is cancelled and it reads the winner's team.
 */
export async function createTeam(
  input: {
    external_id: number | null;
    name: string;
    team_token: string | null;
    estimation_platform_key: string | null;
  },
  at = new Date(),
): Promise<Team> {
  const now = at.toISOString();
  const team: Team = { id: randomUUID(), credit_rate: null, created_at: now, updated_at: now, ...input };
  const items: { Put: { TableName: string; Item: Record<string, unknown>; ConditionExpression: string } }[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...teamKeys.team(team.id), entity: 'Team', gsi1pk: 'TEAMS', gsi1sk: now, ...team },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (team.team_token) items.push(uniqueRowPut(teamKeys.teamToken(teamTokenHash(team.team_token)), team.id));
  if (team.external_id !== null) items.push(uniqueRowPut(teamKeys.teamExternal(team.external_id), team.id));
  await db().send(new TransactWriteCommand({ TransactItems: items }));
  return team;
}

/** Team sync at login: name, rotated token, estimation key. Only writes what changed. */
export async function syncTeam(
  team: Team,
  changes: Partial<Pick<Team, 'name' | 'team_token' | 'estimation_platform_key' | 'external_id'>>,
): Promise<Team> {
  const changed = Object.entries(changes).filter(([k, v]) => v !== undefined && team[k as keyof Team] !== v);
  if (changed.length === 0) return team;
  const now = new Date().toISOString();
  const next = { ...team, ...Object.fromEntries(changed), updated_at: now } as Team;
  const set = setClauses({ ...Object.fromEntries(changed), updated_at: now });
  const update = {
    Update: {
      TableName: tableName(),
      Key: teamKeys.team(team.id),
      UpdateExpression: `SET ${set.expression}`,
      ExpressionAttributeNames: set.names,
      ExpressionAttributeValues: set.values,
    },
  };
  const tokenChanged = changed.some(([k]) => k === 'team_token');
  if (!tokenChanged) {
    await db().send(new UpdateCommand(update.Update));
    return next;
  }
  // A rotated token moves the token uniqueness row in the same transaction.
  const transact: Record<string, unknown>[] = [update];
  if (next.team_token) transact.push(uniqueRowPut(teamKeys.teamToken(teamTokenHash(next.team_token)), team.id));
  if (team.team_token)
    transact.push({ Delete: { TableName: tableName(), Key: teamKeys.teamToken(teamTokenHash(team.team_token)) } });
  await db().send(new TransactWriteCommand({ TransactItems: transact as never }));
  return next;
}
