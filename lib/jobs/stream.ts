/**
 * Server-sent events for one job (spec: Events > GET /api/jobs/{id}/stream):
 * the job is polled about every 1.5 s for up to about 10 minutes, emitting
 * `progress` (status, percent, current stage) when it changes, `log` with new
 * log lines, and `metrics` (the final summary) when the job reaches complete or
 * error, after which the stream ends. Nothing is buffered: each event is
 * written as soon as it is known.
 *
 * Each job has a few stream slots (STREAM_MAX_CONNECTIONS_PER_JOB): a stream
 * holds one while it is open, so one job id in a client's hands cannot hold
 * every stream function. A slot is a lease row taken with a conditional put
 * and deleted on close; a function that dies without closing frees its slot
 * when the lease runs out (TTL then removes the row).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { keys } from '../db/keys';
import { getJob, jobProgress } from './job';
import { readLiveLog } from './logs';
import { jobMetrics } from './view';

export const STREAM_POLL_MS = 1500;
export const STREAM_MAX_MS = 10 * 60_000;

/** Streams one job may have open at once; one more is answered 429. */
export const STREAM_MAX_CONNECTIONS_PER_JOB = 5;
/** Longer than any stream runs (and than the function's timeout), so only a dead holder's lease expires. */
const SLOT_LEASE_MS = STREAM_MAX_MS + 2 * 60_000;

export const TOO_MANY_STREAMS = `Too many open event streams for this job (at most ${STREAM_MAX_CONNECTIONS_PER_JOB}); close another page watching it and retry`;

export interface StreamSlot {
  release(): Promise<void>;
}

/** Takes a free (or expired) stream slot of the job; null when all are held. */
export async function acquireStreamSlot(jobId: string, now = Date.now()): Promise<StreamSlot | null> {
  const holder = randomUUID();
  // Starting at a random slot keeps simultaneous openers from racing for the same row.
  const first = randomInt(STREAM_MAX_CONNECTIONS_PER_JOB);
  for (let i = 0; i < STREAM_MAX_CONNECTIONS_PER_JOB; i++) {
    const key = keys.jobStreamSlot(jobId, (first + i) % STREAM_MAX_CONNECTIONS_PER_JOB);
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            entity: 'JobStreamSlot',
            holder,
            lease_until_ms: now + SLOT_LEASE_MS,
            expires_at: Math.ceil((now + SLOT_LEASE_MS) / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR lease_until_ms < :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
    } catch (err) {
      if (isConditionalCheckFailed(err)) continue;
      throw err;
    }
    return {
      release: async () => {
        try {
          await db().send(
            new DeleteCommand({
              TableName: tableName(),
              Key: key,
              ConditionExpression: 'holder = :holder',
              ExpressionAttributeValues: { ':holder': holder },
            }),
          );
        } catch (err) {
          // Our lease ran out and another stream took the slot: it is theirs now.
          if (!isConditionalCheckFailed(err)) throw err;
        }
      },
    };
  }
  return null;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface EventSink {
  write(chunk: string): unknown;
  /** True once the client has gone; the loop stops. */
  closed(): boolean;
}

/** Streams until the job finishes, the client leaves, or maxMs passes. Returns why it stopped. */
export async function streamJobEvents(
  jobId: string,
  sink: EventSink,
  options: { pollMs?: number; maxMs?: number } = {},
): Promise<'finished' | 'client-closed' | 'time-limit' | 'not-found'> {
  const pollMs = options.pollMs ?? STREAM_POLL_MS;
  const deadline = Date.now() + (options.maxMs ?? STREAM_MAX_MS);
  let lastProgress = '';
  let lastSeq = 0;
  for (;;) {
    if (sink.closed()) return 'client-closed';
    const job = await getJob(jobId);
    if (!job) {
      sink.write(sseEvent('error', { detail: 'Job not found' }));
      return 'not-found';
    }
    const progress = { status: job.status, percent: jobProgress(job), current_stage: job.current_stage };
    if (JSON.stringify(progress) !== lastProgress) {
      lastProgress = JSON.stringify(progress);
      sink.write(sseEvent('progress', progress));
    }
    const lines = await readLiveLog(job.id, lastSeq);
    if (lines.length > 0) {
      lastSeq = lines[lines.length - 1].seq;
      sink.write(sseEvent('log', { lines }));
    }
    if (job.status === 'complete' || job.status === 'error') {
      sink.write(sseEvent('metrics', jobMetrics(job)));
      return 'finished';
    }
    if (Date.now() + pollMs > deadline) return 'time-limit';
    // A comment line keeps proxies from timing the connection out between events.
    sink.write(': keep-alive\n\n');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
