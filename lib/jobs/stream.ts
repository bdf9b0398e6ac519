/**
 * Server-sent events for one job (spec: Events > GET /api/jobs/{id}/stream):
 * the job is polled about every 1.5 s for up to about 10 minutes, emitting
 * `progress` (status, percent, current stage) when it changes, `log` with new
 * log lines, and `metrics` (the final summary) when the job reaches complete or
 * error, after which the stream ends. Nothing is buffered: each event is
 * written as soon as it is known.
 */
import { getJob, jobProgress } from './job';
import { readLiveLog } from './logs';
import { jobMetrics } from './view';

export const STREAM_POLL_MS = 1500;
export const STREAM_MAX_MS = 10 * 60_000;

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
