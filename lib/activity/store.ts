/**
 * Activity entries (spec: Other records > Activity entry). Team-scoped through
 * team_id; restorable entries carry the snapshot their undo needs.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { activityIndexes, activityKeys } from './keys';
import { decodeCursor, encodeCursor } from '../db/pagination';
import { indexRows } from '../db/query';

export interface ActivityEntry {
  id: string;
  team_id: string;
  user_id: string;
  user_name: string;
  action_type: string;
  action_label: string;
  /** What the action was done to, as a person reads it (claim number, room name...). */
  target: string;
  entity_type: string | null;
  entity_id: string | null;
  snapshot: Record<string, unknown> | null;
  restorable: boolean;
  restored_at: string | null;
  restored_by_user_id: string | null;
  /** Set when an admin acted through an impersonation token: who really acted (their external id). */
  impersonated_by?: string | null;
  created_at: string;
}

/** Writes a new entry to the feed of its team (and the all-teams feed the admin reads). */
export async function putActivity(entry: ActivityEntry): Promise<void> {
  const index = activityIndexes.teamActivity(entry.team_id);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...activityKeys.activity(entry.id),
        entity: 'Activity',
        gsi1pk: index.pk,
        gsi1sk: `${entry.created_at}#${entry.id}`,
        gsi2pk: 'ACTIVITY',
        gsi2sk: `${entry.created_at}#${entry.id}`,
        ...entry,
      },
    }),
  );
}

export async function getActivity(id: string): Promise<ActivityEntry | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: activityKeys.activity(id), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as ActivityEntry) : null;
}

/** The team's feed, newest first. */
export async function listTeamActivity(teamId: string, page: { limit: number; cursor?: string }) {
  const index = activityIndexes.teamActivity(teamId);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.index,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': index.pk },
      ScanIndexForward: false,
      Limit: page.limit,
      ExclusiveStartKey: decodeCursor(page.cursor, index),
    }),
  );
  return {
    items: (result.Items ?? []).map((i) => withoutKeys(i) as unknown as ActivityEntry),
    next_cursor: encodeCursor(result.LastEvaluatedKey),
  };
}

/** Marks an entry restored; false when someone restored it first. */
export async function markRestored(id: string, userId: string, now = new Date()): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: activityKeys.activity(id),
        UpdateExpression: 'SET restored_at = :now, restored_by_user_id = :user',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(restored_at) OR restored_at = :null)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':user': userId, ':null': null },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Undoes markRestored when the restore itself failed, so it can be tried again. */
export async function unmarkRestored(id: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: activityKeys.activity(id),
      UpdateExpression: 'SET restored_at = :null, restored_by_user_id = :null',
      ExpressionAttributeValues: { ':null': null },
    }),
  );
}

/** One team's feed, or every team's (teamId null), newest first, read a page at a time. */
export async function* activityRows(teamId: string | null): AsyncGenerator<ActivityEntry> {
  const index = teamId ? activityIndexes.teamActivity(teamId) : { index: 'gsi2', pk: 'ACTIVITY' };
  for await (const row of indexRows(index, { ScanIndexForward: false }))
    yield withoutKeys(row) as unknown as ActivityEntry;
}
