/**
 * GET /api/jobs/{id}/stream: the API redirects to the streaming function
 * (run beside serverless offline locally), which sends progress, log and,
 * at the end, metrics events as they happen.
 */
import { randomUUID } from 'node:crypto';
import { appendLog } from '../../lib/jobs/log-store';
import { STREAM_MAX_CONNECTIONS_PER_JOB, TOO_MANY_STREAMS } from '../../lib/jobs/stream-service';
import { Client, request, serviceUrl } from '../support/api';
import { seedJob, setFields } from '../support/aws';
import { newTeamMember } from '../support/tokens';

interface SseEvent {
  event: string;
  data: any;
  at: number;
}

/** Reads a server-sent event stream as a browser's EventSource would, event by event. */
async function openStream(url: string, signal?: AbortSignal) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal });
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const done = (async () => {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      buffer += decoder.decode(value, { stream: true });
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data), at: Date.now() });
      }
    }
  })();
  return { res, events, done };
}

describe('job event stream', () => {
  let room: { id: string; claim_id: string; team_id: string };

  beforeAll(async () => {
    const client = await Client.signIn(newTeamMember());
    const claim = (await client.post('/api/claims', { claim_number: 'SSE-1' })).body;
    room = (await client.post(`/api/claims/${claim.id}/rooms`, { name: 'Lounge' })).body;
  });

  it('streams progress and log lines while the job runs, then metrics, and ends', async () => {
    const jobId = await seedJob(room, 'video');
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'analyzing', progress_pct: 55, current_stage: 'analyze' });

    const redirect = await request('GET', `/api/jobs/${jobId}/stream`);
    expect(redirect.status).toBe(307);
    const started = Date.now();
    const stream = await openStream(`${serviceUrl()}/api/jobs/${jobId}/stream`);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);

    // The first event arrives while the job is still running: nothing is buffered.
    await waitFor(() => stream.events.some((e) => e.event === 'progress'));
    expect(stream.events[0]).toMatchObject({
      event: 'progress',
      data: { status: 'analyzing', percent: 55, current_stage: 'analyze' },
    });

    await appendLog(jobId, 'info', 'Analyzing chunk 3 of 8');
    await waitFor(() => stream.events.some((e) => e.event === 'log'));
    expect(stream.events.find((e) => e.event === 'log')?.data.lines.map((l: any) => l.message)).toContain(
      'Analyzing chunk 3 of 8',
    );

    await setFields(`JOB#${jobId}`, 'JOB', {
      status: 'complete',
      progress_pct: 100,
      current_stage: 'Complete',
      items_found: 7,
    });
    await stream.done; // the server ends the stream after the final event
    const last = stream.events[stream.events.length - 1];
    expect(last).toMatchObject({ event: 'metrics', data: { job_id: jobId, status: 'complete', items_found: 7 } });
    expect(stream.events.filter((e) => e.event === 'progress').map((e) => e.data.status)).toEqual([
      'analyzing',
      'complete',
    ]);
    expect(stream.events[0].at - started).toBeLessThan(last.at - started);
  });

  it(`refuses more than ${STREAM_MAX_CONNECTIONS_PER_JOB} open streams of one job with 429, and a closed stream frees its slot`, async () => {
    const jobId = await seedJob(room, 'video');
    await setFields(`JOB#${jobId}`, 'JOB', { status: 'analyzing', progress_pct: 10, current_stage: 'analyze' });
    const url = `${serviceUrl()}/api/jobs/${jobId}/stream`;
    const open: { abort: AbortController; stream: Awaited<ReturnType<typeof openStream>> }[] = [];
    const openOne = async () => {
      const abort = new AbortController();
      const stream = await openStream(url, abort.signal);
      stream.done.catch(() => undefined); // aborted on purpose below
      return { abort, stream };
    };
    try {
      for (let i = 0; i < STREAM_MAX_CONNECTIONS_PER_JOB; i++) {
        const held = await openOne();
        expect(held.stream.res.status).toBe(200);
        open.push(held);
      }
      const refused = await fetch(url, { headers: { accept: 'text/event-stream' } });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { detail: string }).detail).toBe(TOO_MANY_STREAMS);

      // Another job is not affected by this one's full slots.
      const otherJob = await seedJob(room, 'video');
      const other = await fetch(`${serviceUrl()}/api/jobs/${otherJob}/stream`);
      expect(other.status).toBe(200); // a complete job: progress, metrics, end
      await other.text();

      // Closing one stream frees its slot once the server notices the client has gone.
      open.shift()!.abort.abort();
      const reopened = await eventuallyOpen(openOne);
      open.push(reopened);
      expect(reopened.stream.res.status).toBe(200);
      await waitFor(() => reopened.stream.events.some((e) => e.event === 'progress'));
    } finally {
      for (const held of open) held.abort.abort();
    }
  });

  it('answers 404 for an unknown job and 422 for a malformed id, without a token', async () => {
    expect((await request('GET', `/api/jobs/${randomUUID()}/stream`)).status).toBe(404);
    expect((await request('GET', '/api/jobs/not-a-uuid/stream')).status).toBe(422);
  });
});

/** Opens streams until one is accepted (the freed slot), closing each refused answer. */
async function eventuallyOpen<T extends { abort: AbortController; stream: { res: Response } }>(
  openOne: () => Promise<T>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempt = await openOne();
    if (attempt.stream.res.status !== 429) return attempt;
    attempt.abort.abort();
    if (Date.now() > deadline) throw new Error('no stream slot was freed in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function waitFor(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('event did not arrive in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
