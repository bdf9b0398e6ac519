/**
 * Room records (spec: Resources > Room). team_id is copied from the claim so
 * one read scopes a room. A write on a room that is gone answers null.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { roomIndexes, roomKeys } from './keys';
import { queryAll } from '../db/query';

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

export async function putNewRoom(
  claim: { id: string; team_id: string },
  name: string,
  id: string = randomUUID(),
): Promise<Room> {
  const now = new Date().toISOString();
  const room: Room = {
    id,
    claim_id: claim.id,
    team_id: claim.team_id,
    name,
    is_archived: false,
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  const index = roomIndexes.claimRooms(claim.id);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...roomKeys.room(room.id), entity: 'Room', gsi1pk: index.pk, gsi1sk: `${now}#${room.id}`, ...room },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return room;
}

/** Puts the room under a derived id unless it exists (a repeated import); returns the stored room either way. */
export async function putRoomOnce(claim: { id: string; team_id: string }, name: string, id: string): Promise<Room> {
  try {
    return await putNewRoom(claim, name, id);
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    const existing = await getRoom(id, true);
    if (!existing) throw err;
    return existing;
  }
}

export async function getRoom(id: string, consistent = false): Promise<Room | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: roomKeys.room(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as Room) : null;
}

export async function listClaimRooms(claimId: string, archived?: boolean): Promise<Room[]> {
  return queryAll<Room>(
    roomIndexes.claimRooms(claimId),
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
): Promise<Room | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: roomKeys.room(id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: extra.names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Room;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

export function setRoomName(roomId: string, name: string): Promise<Room | null> {
  // "name" is a DynamoDB reserved word, so it goes through a placeholder.
  return updateRoom(
    roomId,
    'SET updated_at = :now, #n = :name',
    { ':name': name, ':now': new Date().toISOString() },
    { names: { '#n': 'name' } },
  );
}

export function setRoomArchived(roomId: string, now = new Date()): Promise<Room | null> {
  const at = now.toISOString();
  return updateRoom(
    roomId,
    'SET is_archived = :true, archived_at = :at, archpk = :archpk, archsk = :archsk, updated_at = :at',
    { ':true': true, ':at': at, ':archpk': 'ARCHIVED', ':archsk': `${at}#room#${roomId}` },
  );
}

export function setRoomUnarchived(roomId: string, now = new Date()): Promise<Room | null> {
  const at = now.toISOString();
  return updateRoom(roomId, 'SET is_archived = :false, archived_at = :null, updated_at = :at REMOVE archpk, archsk', {
    ':false': false,
    ':null': null,
    ':at': at,
  });
}
