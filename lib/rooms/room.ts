/** Rooms (spec: Resources > Room). team_id is copied from the claim so one read scopes a room. */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { queryAll } from '../db/query';
import { badRequest, notFound } from '../http/errors';
import { roomHasSubmittedItem } from './counts';

export const ROOM_SUBMITTED = 'This room holds submitted items and cannot be archived.';

export interface Room {
  id: string;
  claim_id: string;
  team_id: string;
  name: string;
  is_archived: boolean;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export async function createRoom(claim: { id: string; team_id: string }, name: string): Promise<Room> {
  const now = new Date().toISOString();
  const room: Room = {
    id: randomUUID(),
    claim_id: claim.id,
    team_id: claim.team_id,
    name,
    is_archived: false,
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  const index = indexes.claimRooms(claim.id);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.room(room.id), entity: 'Room', gsi1pk: index.pk, gsi1sk: `${now}#${room.id}`, ...room },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return room;
}

export async function getRoom(id: string, consistent = false): Promise<Room | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.room(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as Room) : null;
}

export async function listClaimRooms(claimId: string, archived?: boolean): Promise<Room[]> {
  return queryAll<Room>(
    indexes.claimRooms(claimId),
    archived === undefined
      ? {}
      : { FilterExpression: 'is_archived = :archived', ExpressionAttributeValues: { ':archived': archived } },
  );
}

async function updateRoom(
  id: string,
  expression: string,
  values: Record<string, unknown>,
  extra: { names?: Record<string, string> } = {},
): Promise<Room> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.room(id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: extra.names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Room;
  } catch (err) {
    if (isConditionalCheckFailed(err)) throw notFound('Room not found');
    throw err;
  }
}

export function renameRoom(room: Room, name: string): Promise<Room> {
  // "name" is a DynamoDB reserved word, so it goes through a placeholder.
  return updateRoom(
    room.id,
    'SET updated_at = :now, #n = :name',
    { ':name': name, ':now': new Date().toISOString() },
    { names: { '#n': 'name' } },
  );
}

/**
 * Archives a room (spec: States, archive: 400 for a room holding a submitted
 * item). The one way a room is archived, so the archive route and every undo
 * that archives (undo of create_room or unarchive_room) obey the rule.
 */
export async function archiveRoom(room: Room, now = new Date()): Promise<Room> {
  if (await roomHasSubmittedItem(room.id)) throw badRequest(ROOM_SUBMITTED);
  const at = now.toISOString();
  return updateRoom(
    room.id,
    'SET is_archived = :true, archived_at = :at, archpk = :archpk, archsk = :archsk, updated_at = :at',
    {
      ':true': true,
      ':at': at,
      ':archpk': 'ARCHIVED',
      ':archsk': `${at}#room#${room.id}`,
    },
  );
}

export function unarchiveRoom(room: Room, now = new Date()): Promise<Room> {
  const at = now.toISOString();
  return updateRoom(room.id, 'SET is_archived = :false, archived_at = :null, updated_at = :at REMOVE archpk, archsk', {
    ':false': false,
    ':null': null,
    ':at': at,
  });
}
