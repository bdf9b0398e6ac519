/** User records (spec: Resources > User). */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { userKeys } from './keys';
import { statsKeys } from '../stats/keys';
import { setClauses, uniqueRowPut } from '../db/update';
import { presenceMinute } from '../stats/rules';
import type { User } from './user-record-rules';

/** How often last_seen_at is stamped at most. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

export async function getUser(id: string): Promise<User | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: userKeys.user(id) }));
  return Item ? (withoutKeys(Item) as unknown as User) : null;
}

async function target(key: { pk: string; sk: string }): Promise<string | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return (Item?.target_id as string | undefined) ?? null;
}

export async function findUserByExternalId(externalId: string): Promise<User | null> {
  const id = await target(userKeys.userExternal(externalId));
  return id ? getUser(id) : null;
}

export async function findUserByEmail(email: string): Promise<User | null> {
  const id = await target(userKeys.userEmail(email));
  return id ? getUser(id) : null;
}

/** Creates the user and its uniqueness rows atomically (a lost race cancels the transaction). */
export async function createUser(
  input: { external_id: string | null; name: string; email: string | null; team_id: string },
  /** False when another user already owns the email: the new user keeps it as data but not as a lookup key. */
  registerEmail = true,
): Promise<User> {
  const now = new Date().toISOString();
  const user: User = { id: randomUUID(), last_seen_at: null, created_at: now, ...input };
  const items: Record<string, unknown>[] = [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...userKeys.user(user.id),
          entity: 'User',
          gsi1pk: `TEAM#${user.team_id}#USERS`,
          gsi1sk: now,
          gsi2pk: 'USERS',
          gsi2sk: now,
          ...user,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (user.external_id) items.push(uniqueRowPut(userKeys.userExternal(user.external_id), user.id));
  if (user.email && registerEmail) items.push(uniqueRowPut(userKeys.userEmail(user.email), user.id));
  await db().send(new TransactWriteCommand({ TransactItems: items as never }));
  return user;
}

/** Keeps team, name and email in step with the token; adopts an external id for a user found by email. */
export async function syncUser(
  user: User,
  changes: Partial<Pick<User, 'team_id' | 'name' | 'external_id'>>,
): Promise<User> {
  const changed = Object.entries(changes).filter(
    ([k, v]) => v !== undefined && v !== null && user[k as keyof User] !== v,
  );
  if (changed.length === 0) return user;
  const next = { ...user, ...Object.fromEntries(changed) } as User;
  const moved = changes.team_id && changes.team_id !== user.team_id;
  // A moved user also moves to the new team's user list.
  const set = setClauses({
    ...Object.fromEntries(changed),
    ...(moved ? { gsi1pk: `TEAM#${changes.team_id}#USERS` } : {}),
  });
  const update = {
    TableName: tableName(),
    Key: userKeys.user(user.id),
    UpdateExpression: `SET ${set.expression}`,
    ExpressionAttributeNames: set.names,
    ExpressionAttributeValues: set.values,
  };
  const adopting = changed.some(([k]) => k === 'external_id');
  if (adopting && next.external_id) {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [{ Update: update }, uniqueRowPut(userKeys.userExternal(next.external_id), user.id)] as never,
      }),
    );
  } else {
    await db().send(new UpdateCommand(update));
  }
  return next;
}

/** Stamps last_seen_at at most once a minute; best-effort, never fails the request. */
export async function touchLastSeen(user: User, now = new Date()): Promise<void> {
  const cutoff = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS).toISOString();
  if (user.last_seen_at && user.last_seen_at > cutoff) return;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKeys.user(user.id),
        UpdateExpression: 'SET last_seen_at = :now',
        ConditionExpression: 'attribute_not_exists(last_seen_at) OR last_seen_at = :null OR last_seen_at < :cutoff',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff, ':null': null },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return;
  }
  await putPresence(user.id, now);
}

/** Presence rows outlive the 5-minute active window comfortably, then expire. */
const PRESENCE_KEEP_SECONDS = 3600;

/** The user's sighting in this minute: the admin overview counts active users from these (lib/stats). */
async function putPresence(userId: string, now: Date): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...statsKeys.presence(presenceMinute(now), userId),
        entity: 'Presence',
        user_id: userId,
        seen_at: now.toISOString(),
        expires_at: Math.floor(now.getTime() / 1000) + PRESENCE_KEEP_SECONDS,
      },
    }),
  );
}

export async function setUserTimezone(userId: string, timezone: string): Promise<User> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: userKeys.user(userId),
      // TIMEZONE is a DynamoDB reserved word.
      UpdateExpression: 'SET #tz = :tz',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#tz': 'timezone' },
      ExpressionAttributeValues: { ':tz': timezone },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return withoutKeys(Attributes ?? {}) as unknown as User;
}
