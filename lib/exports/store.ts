/**
 * Export records and files. An export row (EXPORT#<id>) follows one file
 * from request to download; a request row per team, scope, format and
 * filter names the latest export asked for, so a repeat while that one is
 * pending can reuse it (the two are written in one transaction that moves the
 * request row only if it still names what was read). Files are kept under the
 * claim's prefix in the bucket, so purging the claim removes them.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mediaBucket, s3 } from '../blob/client';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { exportKeys } from './keys';
import { roomIndexes } from '../rooms/keys';
import { queryAll, queryPartition } from '../db/query';
import type { InventoryItem } from '../inventory/item-record-rules';
import type { ExportFormat, ExportScope, ExportStatus } from './rules';

export interface ExportRecord {
  id: string;
  team_id: string;
  claim_id: string;
  scope: ExportScope;
  scope_id: string;
  format: ExportFormat;
  approved_only: boolean;
  status: ExportStatus;
  /** The download's file name, once built. */
  filename: string | null;
  /** Object key of the file in the media bucket. */
  object_key: string;
  item_count: number | null;
  error: string | null;
  /** Who asked (user id), for the logs. */
  requested_by: string;
  created_at: string;
  updated_at: string;
  /** TTL (epoch seconds). */
  expires_at: number;
}

const requestKey = (r: Pick<ExportRecord, 'team_id' | 'scope' | 'scope_id' | 'format' | 'approved_only'>) =>
  exportKeys.exportRequest(r.team_id, r.scope, r.scope_id, r.format, r.approved_only);

export async function getExport(id: string, consistent = false): Promise<ExportRecord | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: exportKeys.export(id), ConsistentRead: consistent }),
  );
  return Item ? (withoutKeys(Item) as unknown as ExportRecord) : null;
}

/** The export the latest request for this scope, format and filter made, or null. */
export async function getRequestedExportId(
  request: Pick<ExportRecord, 'team_id' | 'scope' | 'scope_id' | 'format' | 'approved_only'>,
): Promise<string | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: requestKey(request), ConsistentRead: true }),
  );
  return Item ? String(Item.export_id) : null;
}

/**
 * Writes a new export and points its request row at it, provided the request row still names
 * `previousId` (null: there was none). False when another request moved it first.
 */
export async function putExportRequest(record: ExportRecord, previousId: string | null): Promise<boolean> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...exportKeys.export(record.id), entity: 'Export', ...record },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...requestKey(record),
                entity: 'ExportRequest',
                export_id: record.id,
                created_at: record.created_at,
                expires_at: record.expires_at,
              },
              ConditionExpression:
                previousId === null ? 'attribute_not_exists(pk)' : 'attribute_exists(pk) AND export_id = :previous',
              ExpressionAttributeValues: previousId === null ? undefined : { ':previous': previousId },
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** Records the built file; a redelivered build marks it again with the same file. False when the row is gone. */
export async function setExportReady(
  id: string,
  file: { filename: string; itemCount: number },
  now = new Date(),
): Promise<boolean> {
  return setExportFields(id, 'SET #s = :ready, filename = :f, item_count = :n, #e = :null, updated_at = :at', {
    ':ready': 'ready',
    ':f': file.filename,
    ':n': file.itemCount,
    ':null': null,
    ':at': now.toISOString(),
  });
}

/** Marks a pending export failed with a message for the user; an export already ready stays ready. */
export async function setExportFailed(id: string, message: string, now = new Date()): Promise<boolean> {
  return setExportFields(
    id,
    'SET #s = :failed, #e = :message, updated_at = :at',
    { ':failed': 'failed', ':message': message, ':at': now.toISOString(), ':pending': 'pending' },
    '#s = :pending',
  );
}

async function setExportFields(
  id: string,
  expression: string,
  values: Record<string, unknown>,
  condition?: string,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: exportKeys.export(id),
        UpdateExpression: expression,
        ConditionExpression: condition ? `attribute_exists(pk) AND ${condition}` : 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Every item of a room across its jobs, by item number (the room's item index). */
export async function listRoomItems(roomId: string): Promise<InventoryItem[]> {
  return queryAll<InventoryItem>(roomIndexes.roomItems(roomId), { ScanIndexForward: true });
}

/**
 * Stores a built file in one PUT. The object carries its Content-Disposition, so a presigned GET
 * downloads it as an attachment under the export's file name.
 */
export async function putExportFile(
  key: string,
  body: Buffer,
  file: { contentType: string; disposition: string },
): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: key,
      Body: body,
      ContentType: file.contentType,
      ContentDisposition: file.disposition,
      CacheControl: 'private, no-store',
    }),
  );
}

/** How many exports were asked for on one scope (any format, any filter). */
export async function countExportRequests(teamId: string, scope: string, scopeId: string): Promise<number> {
  const rows = await queryPartition<Record<string, unknown>>(
    exportKeys.exportRequest(teamId, scope, scopeId, '', false).pk,
    '',
    {
      consistent: true,
    },
  );
  return rows.length;
}
