/**
 * Worker liveness: every queue worker stamps one row when it runs (at most
 * every HEARTBEAT_EVERY_MS per container), and the watchdog pings the stages
 * queue every minute so a healthy deployment is seen every minute.
 * /api/health/pipeline (lib/health) reads the row.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';

/** Sent through the stages queue by the watchdog every minute. */
export const PING_BODY = JSON.stringify({ kind: 'ping' });

const HEARTBEAT_KEY = { pk: 'WORKER', sk: 'HEARTBEAT' };

export async function recordWorkerHeartbeat(worker: string, now = new Date()): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...HEARTBEAT_KEY, entity: 'WorkerHeartbeat', worker, seen_at: now.toISOString() },
    }),
  );
}

/** When a worker last ran (ISO time), or null if never. */
export async function lastWorkerHeartbeat(): Promise<string | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: HEARTBEAT_KEY }));
  return Item?.seen_at ? String(Item.seen_at) : null;
}
