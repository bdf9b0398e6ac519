/** Component overrides (spec: Team feature flags; Admin components): one global row and one row per team. */
import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { featureKeys } from './keys';
import { partitionRows } from '../db/query';
import { resolveComponents, type Features, type Overrides } from './rules';

/** The components the team sees, with the overrides applied. */
export async function teamFeatures(teamId: string): Promise<Features> {
  const globalKey = featureKeys.components(null);
  const teamKey = featureKeys.components(teamId);
  const { Responses } = await db().send(
    new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [globalKey, teamKey] } } }),
  );
  const rows = Responses?.[tableName()] ?? [];
  const find = (sk: string) => (rows.find((r) => r.sk === sk)?.visible ?? {}) as Overrides;
  return resolveComponents(find(globalKey.sk), find(teamKey.sk));
}

/** Every override row: the global one (team_id null) and one per team that has any. */
export async function listComponentOverrides(): Promise<Array<{ team_id: string | null; visible: Overrides }>> {
  const out: Array<{ team_id: string | null; visible: Overrides }> = [];
  for await (const row of partitionRows(featureKeys.components(null).pk, { consistent: true })) {
    const sk = row.sk as string;
    out.push({
      team_id: sk.startsWith('TEAM#') ? sk.slice('TEAM#'.length) : null,
      visible: (row.visible as Overrides | undefined) ?? {},
    });
  }
  return out;
}

/**
 * Sets one component's override for a team (or globally when teamId is null);
 * null clears it. One conditional write: the map is created with the first
 * override, and a component is set or removed inside it otherwise.
 */
export async function setComponentOverride(
  teamId: string | null,
  component: keyof Features,
  visible: boolean | null,
): Promise<void> {
  const Key = featureKeys.components(teamId);
  const names = { '#visible': 'visible', '#c': component };
  if (visible === null) {
    await db()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'REMOVE #visible.#c',
          ConditionExpression: 'attribute_exists(#visible)',
          ExpressionAttributeNames: names,
        }),
      )
      .catch((err) => {
        // No override row: nothing to clear.
        if (!isConditionalCheckFailed(err)) throw err;
      });
    return;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET #visible.#c = :v',
        ConditionExpression: 'attribute_exists(#visible)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':v': visible },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    // The first override of this row: create the map. A racing first write makes this one fail; try the set again.
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET #visible = :map',
          ConditionExpression: 'attribute_not_exists(#visible)',
          ExpressionAttributeNames: { '#visible': 'visible' },
          ExpressionAttributeValues: { ':map': { [component]: visible } },
        }),
      );
    } catch (raced) {
      if (!isConditionalCheckFailed(raced)) throw raced;
      await setComponentOverride(teamId, component, visible);
    }
  }
}
