/**
 * Live job logs (spec: last 1000 lines per job, 24 h lifetime, archived to
 * the job log archive at every terminal path). Lines are a ring buffer: an
 * atomic sequence number picks slot seq % JOB_LOG_BUFFER_LINES, so the table
 * never holds more than the last N lines and nothing needs trimming.
 */
import { gzipSync, gunzipSync } from 'node:zlib';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { db, tableName } from '../db/client';
import { logger } from '../observability/logger';

export interface LogLine {
  seq: number;
  at: string;
  level: 'info' | 'warn' | 'error';
  message: string;
}

const MAX_LINE_CHARS = 500;
const liveKey = (jobId: string) => `JOBLOG#${jobId}`;
const archiveKey = (jobId: string) => ({ pk: `JOBLOGARCHIVE#${jobId}`, sk: 'ARCHIVE' });

export async function appendLog(
  jobId: string,
  level: LogLine['level'],
  message: string,
  now = new Date(),
): Promise<void> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { pk: liveKey(jobId), sk: 'SEQ' },
      UpdateExpression: 'ADD seq :one SET expires_at = :exp',
      ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt(now) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const seq = Number(Attributes?.seq);
  const slot = seq % settings().JOB_LOG_BUFFER_LINES;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk: liveKey(jobId),
        sk: `LINE#${String(slot).padStart(6, '0')}`,
        entity: 'JobLogLine',
        seq,
        at: now.toISOString(),
        level,
        message: message.slice(0, MAX_LINE_CHARS),
        expires_at: expiresAt(now),
      },
    }),
  );
}

function expiresAt(now: Date): number {
  return Math.floor(now.getTime() / 1000 + settings().JOB_LOG_TTL_HOURS * 3600);
}

/** The live buffer, oldest first, optionally only lines after `afterSeq`. */
export async function readLiveLog(jobId: string, afterSeq = 0): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :line)',
        ExpressionAttributeValues: { ':pk': liveKey(jobId), ':line': 'LINE#' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (Number(item.seq) > afterSeq)
        lines.push({ seq: Number(item.seq), at: String(item.at), level: item.level, message: String(item.message) });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return lines.sort((a, b) => a.seq - b.seq);
}

/** Copies the live buffer into the job's archive row (gzip JSON); safe to repeat. */
export async function archiveLog(jobId: string): Promise<number> {
  const lines = await readLiveLog(jobId);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...archiveKey(jobId),
        entity: 'JobLogArchive',
        job_id: jobId,
        line_count: lines.length,
        archived_at: new Date().toISOString(),
        lines_gz: gzipSync(JSON.stringify(lines)),
      },
    }),
  );
  return lines.length;
}

export async function readArchivedLog(jobId: string): Promise<LogLine[] | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: archiveKey(jobId) }));
  if (!Item) return null;
  return JSON.parse(gunzipSync(Buffer.from(Item.lines_gz as Uint8Array)).toString('utf8')) as LogLine[];
}

/** A job-scoped logger: writes the live buffer and the function log; never throws. */
export class JobLog {
  constructor(readonly jobId: string) {}

  async write(level: LogLine['level'], message: string): Promise<void> {
    logger[level === 'info' ? 'info' : level === 'warn' ? 'warn' : 'error'](message, { job_id: this.jobId });
    await appendLog(this.jobId, level, message).catch((err) =>
      logger.warn('job log write failed', { job_id: this.jobId, error: String(err) }),
    );
  }

  info(message: string) {
    return this.write('info', message);
  }
  warn(message: string) {
    return this.write('warn', message);
  }
  error(message: string) {
    return this.write('error', message);
  }
}
