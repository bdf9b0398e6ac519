/**
 * Insured links (spec: Other records > Insured link). A link row holds only
 * the SHA-256 of its token; a uniqueness row per current token
 * (INSUREDTOKEN#<hash>) resolves the public URL to the link, and is swapped
 * in the same transaction that rotates the token, so the old URL stops
 * working the moment the new one exists.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys, partitionKeys } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { insuredIndexes, insuredKeys } from './keys';
import { indexRows, queryAll, queryPartition } from '../db/query';
import { derivedId } from '../inventory/item-rules';
import { setClauses, uniqueRowPut } from '../db/update';
import type { InsuredLink } from './link-record-rules';

const asLink = (row: Record<string, unknown>) => withoutKeys(row) as unknown as InsuredLink;

function linkRow(link: InsuredLink) {
  const index = insuredIndexes.claimInsuredLinks(link.claim_id);
  return {
    ...insuredKeys.insuredLink(link.id),
    entity: 'InsuredLink',
    gsi1pk: index.pk,
    gsi1sk: `${link.created_at}#${link.id}`,
    ...link,
  };
}

/** Writes a new link and its token row together. */
export async function putNewInsuredLink(link: InsuredLink): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName(), Item: linkRow(link), ConditionExpression: 'attribute_not_exists(pk)' } },
        uniqueRowPut(insuredKeys.insuredToken(link.token_hash), link.id),
      ],
    }),
  );
}

export async function getInsuredLink(id: string): Promise<InsuredLink | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredLink(id), ConsistentRead: true }),
  );
  return Item ? asLink(Item) : null;
}

/** The link a token opens, if the token is its current one. */
export async function findLinkByTokenHash(tokenHash: string): Promise<InsuredLink | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredToken(tokenHash), ConsistentRead: true }),
  );
  if (!Item?.target_id) return null;
  const link = await getInsuredLink(String(Item.target_id));
  return link?.token_hash === tokenHash ? link : null;
}

export async function listClaimInsuredLinks(claimId: string): Promise<InsuredLink[]> {
  const rows = await queryAll<Record<string, unknown>>(insuredIndexes.claimInsuredLinks(claimId), {
    ScanIndexForward: false,
  });
  return rows.map(asLink);
}

/**
 * Swaps the link's token: the old token row goes, the new one comes, and the
 * link records the new hash (and `fields`), all conditional on the token it
 * had, so two rotations cannot both win. Null when another rotation won.
 */
export async function rotateLinkToken(
  link: InsuredLink,
  newHash: string,
  fields: Partial<InsuredLink>,
): Promise<InsuredLink | null> {
  const set = setClauses({ ...fields, token_hash: newHash, updated_at: new Date().toISOString() });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(link.id),
              UpdateExpression: `SET ${set.expression}`,
              ConditionExpression: 'token_hash = :old_hash',
              ExpressionAttributeNames: set.names,
              ExpressionAttributeValues: { ...set.values, ':old_hash': link.token_hash },
            },
          },
          { Delete: { TableName: tableName(), Key: insuredKeys.insuredToken(link.token_hash) } },
          uniqueRowPut(insuredKeys.insuredToken(newHash), link.id),
        ],
      }),
    );
  } catch (err) {
    if (isConditionRace(err)) return null;
    throw err;
  }
  return getInsuredLink(link.id);
}

/** Writes fields to a link; null when it is gone. */
export async function updateInsuredLink(id: string, fields: Partial<InsuredLink>): Promise<InsuredLink | null> {
  const set = setClauses({ ...fields, updated_at: new Date().toISOString() });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: insuredKeys.insuredLink(id),
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: set.names,
        ExpressionAttributeValues: set.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asLink(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Records an open of the public wizard: the count and the latest always, the first time once. */
export async function recordLinkOpened(id: string, at: string): Promise<void> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: insuredKeys.insuredLink(id),
      UpdateExpression: 'SET last_opened_at = :at, updated_at = :at ADD open_count :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  if (Attributes?.opened_at) return;
  // The first open (opened_at is stored as null until then); a racing first open keeps the earlier time.
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: insuredKeys.insuredLink(id),
        UpdateExpression: 'SET opened_at = :at',
        ConditionExpression: 'opened_at = :none',
        ExpressionAttributeValues: { ':at': at, ':none': null },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** Points the invitation mail's message id at the link, for the mail-events webhook. */
export async function putLinkMailRow(messageId: string, linkId: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...insuredKeys.insuredMail(messageId), entity: 'Unique', target_id: linkId },
    }),
  );
}

export async function findLinkIdByMessageId(messageId: string): Promise<string | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredMail(messageId) }));
  return Item?.target_id ? String(Item.target_id) : null;
}

/** Marks a mail event's signing token seen; false when it was seen before (a replay). */
export async function markMailEventSeen(token: string, expiresAtEpoch: number): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...insuredKeys.mailEventToken(token), entity: 'MailEvent', expires_at: expiresAtEpoch },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** The purge's part: a claim's links go with it, with their token and mail rows. */
export async function deleteClaimInsuredLinks(claimId: string): Promise<number> {
  const links = await listClaimInsuredLinks(claimId);
  const rows = links.flatMap((l) => [
    insuredKeys.insuredToken(l.token_hash),
    ...(l.mail_message_id ? [insuredKeys.insuredMail(l.mail_message_id)] : []),
  ]);
  // The link's partition (the link row and its drafts) and its submit rounds' rows.
  for (const link of links) {
    rows.push(...(await partitionKeys(insuredKeys.insuredLink(link.id).pk)));
    for (let round = 1; round <= (link.submit_round ?? 0); round++)
      rows.push(insuredKeys.insuredRound(derivedId('insured-round', link.id, round)));
  }
  await deleteKeys(rows);
  return links.length;
}

/** A room the homeowner added; it becomes (or joins) a claim room at submit. */
export interface InsuredRoom {
  id: string;
  link_id: string;
  name: string;
  created_at: string;
}

export async function listInsuredRooms(linkId: string): Promise<InsuredRoom[]> {
  const rows = await queryPartition<Record<string, unknown>>(insuredKeys.insuredLink(linkId).pk, 'ROOM#', {
    consistent: true,
  });
  return rows
    .map((r) => withoutKeys(r) as unknown as InsuredRoom)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/**
 * Adds a draft room unless the link has one of that name (case-insensitive):
 * the room and its name row are written together, so two racing adds of one
 * name make one room. Answers the room that holds the name.
 */
export async function putInsuredRoomOnce(room: InsuredRoom): Promise<{ room: InsuredRoom; created: boolean }> {
  const nameKey = insuredKeys.insuredRoomName(room.link_id, room.name.toLowerCase());
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...nameKey, entity: 'Unique', target_id: room.id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...insuredKeys.insuredRoom(room.link_id, room.id), entity: 'InsuredRoom', ...room },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return { room, created: true };
  } catch (err) {
    if (!isConditionRace(err)) throw err;
  }
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: nameKey, ConsistentRead: true }));
  const existing = Item
    ? await db().send(
        new GetCommand({
          TableName: tableName(),
          Key: insuredKeys.insuredRoom(room.link_id, String(Item.target_id)),
          ConsistentRead: true,
        }),
      )
    : null;
  if (!existing?.Item) throw new Error(`insured room name row without its room (link ${room.link_id})`);
  return { room: withoutKeys(existing.Item) as unknown as InsuredRoom, created: false };
}

/**
 * The links whose round was being made under the shape before rounds ran on
 * the engine (they sat on the open-submits index): what the migration moves
 * on (lib/insured/submit-round-migration-service.ts).
 */
export async function listLegacyOpenSubmitLinkIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of indexRows(insuredIndexes.openInsuredSubmits()))
    ids.push(String(row.activesk).slice(String(row.activesk).indexOf('#') + 1));
  return ids;
}
