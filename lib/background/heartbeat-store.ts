/**
 * The worker heartbeat row: every queue worker stamps it when it runs (at
 * most every 30 s per container, sqs-worker.ts), and /api/health/pipeline
 * (lib/health) reads it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';

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
