/**
 * The activity log (spec: Other records > Activity entry; Outbound signals).
 * Team-scoped through team_id; restorable entries carry the snapshot their
 * undo needs. Non-restorable actions: uploads, sign-in and sign-out, claims
 * platform submission, rename_room, impersonate_user, estimation lock toggles.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor } from '../auth/identity';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { decodeCursor, encodeCursor } from '../db/pagination';

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
  created_at: string;
}

export interface NewActivity {
  /**
   * The team whose feed the entry belongs to: the team that owns what was acted
   * on, which is not the actor's own team when an admin acts across teams.
   */
  team_id: string;
  action_type: string;
  action_label: string;
  target: string;
  entity_type?: string;
  entity_id?: string;
  snapshot?: Record<string, unknown>;
  restorable: boolean;
}

export async function recordActivity(actor: Actor, entry: NewActivity, now = new Date()): Promise<ActivityEntry> {
  const created_at = now.toISOString();
  const row: ActivityEntry = {
    id: randomUUID(),
    team_id: entry.team_id,
    user_id: actor.user_id,
    user_name: actor.user_name,
    action_type: entry.action_type,
    action_label: entry.action_label,
    target: entry.target,
    entity_type: entry.entity_type ?? null,
    entity_id: entry.entity_id ?? null,
    snapshot: entry.snapshot ?? null,
    restorable: entry.restorable,
    restored_at: null,
    restored_by_user_id: null,
    created_at,
  };
  const index = indexes.teamActivity(entry.team_id);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.activity(row.id),
        entity: 'Activity',
        gsi1pk: index.pk,
        gsi1sk: `${created_at}#${row.id}`,
        gsi2pk: 'ACTIVITY',
        gsi2sk: `${created_at}#${row.id}`,
        ...row,
      },
    }),
  );
  return row;
}

export async function getActivity(id: string): Promise<ActivityEntry | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.activity(id), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as ActivityEntry) : null;
}

/** The team's feed, newest first. */
export async function listTeamActivity(teamId: string, page: { limit: number; cursor?: string }) {
  const index = indexes.teamActivity(teamId);
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
        Key: keys.activity(id),
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
      Key: keys.activity(id),
      UpdateExpression: 'SET restored_at = :null, restored_by_user_id = :null',
      ExpressionAttributeValues: { ':null': null },
    }),
  );
}
