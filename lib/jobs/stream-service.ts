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
 * every stream function (the leases are in stream-slot-store.ts).
 */
import { getJob } from './job-store';
import { jobProgress } from './job-rules';
import { readLiveLog } from './log-store';
import { claimStreamSlot, type StreamSlot } from './stream-slot-store';
import { jobMetrics } from './view';

const STREAM_POLL_MS = 1500;
const STREAM_MAX_MS = 10 * 60_000;

/** Streams one job may have open at once; one more is answered 429. */
export const STREAM_MAX_CONNECTIONS_PER_JOB = 5;
/** Longer than any stream runs (and than the function's timeout), so only a dead holder's lease expires. */
const SLOT_LEASE_MS = STREAM_MAX_MS + 2 * 60_000;

export const TOO_MANY_STREAMS = `Too many open event streams for this job (at most ${STREAM_MAX_CONNECTIONS_PER_JOB}); close another page watching it and retry`;

/** Takes a free (or expired) stream slot of the job; null when all are held. */
export function acquireStreamSlot(jobId: string, now = Date.now()): Promise<StreamSlot | null> {
  return claimStreamSlot(jobId, { slots: STREAM_MAX_CONNECTIONS_PER_JOB, leaseMs: SLOT_LEASE_MS }, now);
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

export function formatSseEvent(event: string, data: unknown): string {
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
      sink.write(formatSseEvent('error', { detail: 'Job not found' }));
      return 'not-found';
    }
    const progress = { status: job.status, percent: jobProgress(job), current_stage: job.current_stage };
    if (JSON.stringify(progress) !== lastProgress) {
      lastProgress = JSON.stringify(progress);
      sink.write(formatSseEvent('progress', progress));
    }
    const lines = await readLiveLog(job.id, lastSeq);
    if (lines.length > 0) {
      lastSeq = lines[lines.length - 1].seq;
      sink.write(formatSseEvent('log', { lines }));
    }
    if (job.status === 'complete' || job.status === 'error') {
      sink.write(formatSseEvent('metrics', jobMetrics(job)));
      return 'finished';
    }
    if (Date.now() + pollMs > deadline) return 'time-limit';
    // A comment line keeps proxies from timing the connection out between events.
    sink.write(': keep-alive\n\n');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
