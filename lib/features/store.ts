/** Component overrides (spec: Team feature flags; Admin components): one global row and one row per team. */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { resolveComponents, type Features, type Overrides } from './rules';

/** The components the team sees, with the overrides applied. */
export async function teamFeatures(teamId: string): Promise<Features> {
  const globalKey = keys.components(null);
  const teamKey = keys.components(teamId);
  const { Responses } = await db().send(
    new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [globalKey, teamKey] } } }),
  );
  const rows = Responses?.[tableName()] ?? [];
  const find = (sk: string) => (rows.find((r) => r.sk === sk)?.visible ?? {}) as Overrides;
  return resolveComponents(find(globalKey.sk), find(teamKey.sk));
}
