/**
 * The outbound signals end to end over real HTTP (spec: Outbound signals
 * (best-effort, never break the pipeline)): the local service exports to the
 * run's fake OTLP collector, fake analytics service and fake error tracker
 * (tests/support/global-setup.ts), exactly as a deployment would.
 *
 *   a processed photo job → one trace: the job.process root and its
 *   stage.<name> children from every worker hop, the seven metrics, the job
 *   outcome and the activity in analytics; a failing pipeline → exactly one
 *   error report, with no email, name or token in its bytes; an expired login
 *   token → session_expired and an info-level message; and with each endpoint
 *   down or hanging, requests and pipelines answer as before, each within the
 *   flush bound (SIGNALS_TIMEOUT_MS, 1 s in the tests).
 *
 * The fakes are shared by the run: reads match this file's ids, and a mode
 * set here is put back to 'up' before the next test.
 */
import { randomUUID } from 'node:crypto';
import type { RecordedSpan } from '../fakes/otlp-collector';
import { Client, eventually, request } from '../support/api';
import { fakeOtlp } from '../support/fake-otlp';
import { fakePostHog } from '../support/fake-posthog';
import { fakeSentry } from '../support/fake-sentry';
import { signalId } from '../support/outbound-ids';
import { newTeamMember, signLoginToken, type LoginClaimsInput } from '../support/tokens';
import { processToEnd, scriptedPhotoJob } from '../support/scripted-photo-jobs';
import { newRoom, type TestRoom } from '../support/uploads';

const otlp = fakeOtlp(process.env.TEST_FAKE_OTLP_URL as string);
const analytics = fakePostHog(process.env.TEST_FAKE_POSTHOG_URL as string);
const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

/** SIGNALS_TIMEOUT_MS of the test service (tests/support/service-env.ts). */
const FLUSH_BOUND_MS = 1000;
/** Room for a loaded machine on top of a request's usual time and the bound. */
const SLACK_MS = 3000;

const tag = () => randomUUID().slice(0, 8);

/** A member whose personal data is easy to look for in what leaves. */
function person(): LoginClaimsInput {
  const t = tag();
  return newTeamMember({
    user_name: `Pat Quill${t}`,
    email: `pat.quill.${t}@example.test`,
    current_team_name: `Quill${t} Adjusters`,
  });
}

async function signedIn(member: LoginClaimsInput) {
  const client = await Client.signIn(member);
  const me = await client.get('/api/auth/me');
  return { client, userId: me.body.user.id as string };
}

const photoJobOf = (client: Client, room: TestRoom, answers: 'items' | 'fail') =>
  scriptedPhotoJob(client, room, answers, 'obs');

/** The run's spans once its root has arrived (the terminal path records it last). */
const runSpans = (jobId: string) =>
  eventually(async () => {
    const spans = await otlp.spans(signalId(jobId));
    return spans.some((s) => s.name === 'job.process') ? spans : null;
  }, 30_000);

describe('a processed photo job', () => {
  let member: LoginClaimsInput;
  let client: Client;
  let userId: string;
  let room: TestRoom;
  let jobId: string;
  let job: Record<string, any>;

  beforeAll(async () => {
    member = person();
    ({ client, userId } = await signedIn(member));
    room = await newRoom(client, 'Den');
    jobId = await photoJobOf(client, room, 'items');
    job = await processToEnd(client, jobId);
    expect(job).toMatchObject({ status: 'complete', items_found: 2 });
  }, 180_000);

  it('is one trace: a job.process root and stage.<name> children from every worker hop', async () => {
    const spans = await runSpans(jobId);
    const root = spans.find((s) => s.name === 'job.process') as RecordedSpan;
    expect(root.parentSpanId).toBeNull();
    // The job id is a capability: it leaves the service as its keyed hash only.
    expect(root.attributes).toMatchObject({
      'job.id': signalId(jobId),
      'job.pipeline': 'photo',
      'job.outcome': 'complete',
    });
    expect(root.status.code).toBe(1); // OK
    expect(root.resource['service.name']).toBe('contents-inventory');

    const children = spans.filter((s) => s !== root);
    expect(children.map((s) => s.name).sort()).toEqual([
      'stage.analyze',
      'stage.analyze.unit',
      'stage.analyze.unit',
      'stage.synthesize',
    ]);
    for (const span of children) {
      expect(span.traceId).toBe(root.traceId);
      expect(span.parentSpanId).toBe(root.spanId);
      expect(span.attributes['job.id']).toBe(signalId(jobId));
      // The root covers the run: it starts before and ends after every stage.
      expect(BigInt(span.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(root.startTimeUnixNano));
      expect(BigInt(span.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(root.endTimeUnixNano));
    }
    // Each unit ran in its own invocation of the units worker, after the stage's own hop.
    expect(new Set(children.map((s) => s.spanId)).size).toBe(4);
    expect(
      children
        .filter((s) => s.name === 'stage.analyze.unit')
        .map((s) => s.attributes['pipeline.unit.index'])
        .sort(),
    ).toEqual([0, 1]);
  });

  it('records the seven metrics', async () => {
    const photoPoints = async (name: string) =>
      (await otlp.metrics(name)).filter(
        (p) => p.attributes.pipeline === 'photo' || name.startsWith('contentsvision.ai'),
      );
    const jobs = await eventually(async () => {
      const points = await photoPoints('contentsvision.jobs');
      return points.some((p) => p.attributes.outcome === 'complete') ? points : null;
    });
    expect(jobs[0]).toMatchObject({ kind: 'sum', unit: '{job}' });
    expect((await photoPoints('contentsvision.job.duration'))[0]).toMatchObject({ kind: 'histogram', unit: 's' });
    const stages = await photoPoints('contentsvision.pipeline.stage.duration');
    expect(new Set(stages.map((p) => p.attributes.stage))).toEqual(new Set(['analyze', 'synthesize']));
    const tokens = await photoPoints('contentsvision.ai.tokens');
    expect(new Set(tokens.map((p) => p.attributes.direction))).toEqual(new Set(['input', 'output']));
    expect(tokens.every((p) => (p.value ?? 0) > 0)).toBe(true);
    expect((await photoPoints('contentsvision.ai.cost_usd')).some((p) => (p.value ?? 0) > 0)).toBe(true);
    expect((await photoPoints('contentsvision.items.produced')).some((p) => (p.value ?? 0) >= 2)).toBe(true);
    expect((await photoPoints('contentsvision.billing.credits')).some((p) => (p.value ?? 0) >= 2)).toBe(true);
    // Metrics carry kinds, never ids.
    const metrics = JSON.stringify(await otlp.metrics());
    expect(metrics).not.toContain(jobId);
    expect(metrics).not.toContain(signalId(jobId));
  });

  it('mirrors the job outcome and the activity to analytics, without personal data', async () => {
    const outcome = await eventually(async () =>
      (await analytics.events(signalId(jobId))).find((e) => e.event === 'job_completed'),
    );
    expect(outcome).toMatchObject({
      distinct_id: signalId(job.created_by_user_id),
      properties: { job_id: signalId(jobId), pipeline: 'photo', source_type: 'photo', items_found: 2, credits: 2 },
    });
    const activity = await analytics.events(signalId(room.claim_id));
    expect(activity.find((e) => e.event === 'create_claim')).toMatchObject({
      distinct_id: signalId(userId),
      properties: { source: 'activity', entity_type: 'claim', entity_id: signalId(room.claim_id) },
    });
    const everything = JSON.stringify(await analytics.events(signalId(userId)));
    expect(everything).not.toContain(userId);
    for (const personal of [member.email, member.user_name, member.current_team_name, member.current_team_token])
      expect(everything).not.toContain(personal as string);
  });
});

describe('a failing pipeline', () => {
  let member: LoginClaimsInput;
  let client: Client;
  let jobId: string;

  beforeAll(async () => {
    member = person();
    ({ client } = await signedIn(member));
    const room = await newRoom(client, 'Attic');
    jobId = await photoJobOf(client, room, 'fail');
    const job = await processToEnd(client, jobId);
    expect(job.status).toBe('error');
  }, 180_000);

  it('yields exactly one error report, with no email, name or token in its raw bytes', async () => {
    const reports = await eventually(async () => {
      const found = await errors.envelopes(signalId(jobId));
      return found.length > 0 ? found : null;
    });
    // Whatever else was still on its way has arrived by now.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await errors.envelopes(signalId(jobId))).toHaveLength(1);
    const [report] = reports;
    const event = report.items.find((i) => i.header.type === 'event')?.payload as Record<string, any>;
    expect(event).toMatchObject({
      level: 'error',
      tags: { kind: 'pipeline_failure', job_id: signalId(jobId), pipeline: 'photo' },
      exception: { values: [{ type: 'PipelineFailure', value: expect.stringMatching(/Every AI request/) }] },
    });
    expect(event.user).toBeUndefined();
    expect(event.request).toBeUndefined();
    expect(event.server_name).toBeUndefined();
    for (const personal of [
      member.email,
      member.user_name,
      member.current_team_name,
      member.current_team_token,
      client.token,
      client.token.split('.')[2],
      jobId,
    ])
      expect(report.raw).not.toContain(personal as string);
    expect(report.raw).not.toMatch(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,}/);
  });

  it('marks the root span failed and counts the failure, with the error log line in the trace', async () => {
    const spans = await runSpans(jobId);
    const root = spans.find((s) => s.name === 'job.process') as RecordedSpan;
    expect(root.status).toMatchObject({ code: 2, message: expect.stringMatching(/Every AI request/) });
    expect(root.attributes['job.outcome']).toBe('error');
    const lines = await eventually(async () => {
      const logs = await otlp.logs(signalId(jobId));
      return logs.some((l) => l.severityText === 'ERROR') ? logs : null;
    });
    const failure = lines.find((l) => l.severityText === 'ERROR' && /Every AI request/.test(String(l.body)));
    expect(failure?.traceId).toBe(root.traceId);
    const failed = await otlp.metrics('contentsvision.jobs');
    expect(failed.some((p) => p.attributes.pipeline === 'photo' && p.attributes.outcome === 'error')).toBe(true);
  });

  it('tells analytics the job failed', async () => {
    const event = await eventually(async () =>
      (await analytics.events(signalId(jobId))).find((e) => e.event === 'job_failed'),
    );
    expect(event.properties).toMatchObject({ job_id: signalId(jobId), outcome: 'error' });
    expect(JSON.stringify(event)).not.toMatch(/Every AI request/);
  });
});

describe('an expired login token', () => {
  it('is refused as before, and sends session_expired and an info-level message naming the user by id only', async () => {
    const member = person();
    const { userId } = await signedIn(member);
    const expired = await signLoginToken(member, { expiresInSeconds: -120 });
    const res = await request('GET', '/api/claims', { token: expired });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });

    const event = await eventually(async () =>
      (await analytics.events(signalId(userId))).find((e) => e.event === 'session_expired'),
    );
    expect(event.distinct_id).toBe(signalId(userId));
    expect(event.properties).toMatchObject({ token_via: 'bearer' });
    expect(event.properties.expired_seconds_ago).toBeGreaterThanOrEqual(100);

    const [report] = await eventually(async () => {
      const found = await errors.envelopes(signalId(userId));
      return found.length > 0 ? found : null;
    });
    const message = report.items.find((i) => i.header.type === 'event')?.payload as Record<string, any>;
    expect(message).toMatchObject({
      level: 'info',
      message: expect.stringMatching(/Session expired/),
      tags: { kind: 'session_expired', token_via: 'bearer', user_id: signalId(userId) },
    });
    for (const personal of [member.email, member.user_name, member.current_team_token, expired.split('.')[1]])
      expect(report.raw).not.toContain(personal as string);
  });
});

describe.each(['down', 'hanging'] as const)('with an outbound endpoint %s', (mode) => {
  const endpoints = { collector: otlp, analytics, 'error tracking': errors };
  let member: LoginClaimsInput;
  let client: Client;
  let userId: string;

  beforeAll(async () => {
    member = person();
    ({ client, userId } = await signedIn(member));
  });

  afterEach(async () => {
    await Promise.all(Object.values(endpoints).map((e) => e.setMode('up')));
  });

  /** Requests that leave an analytics event, an error report and log lines behind; each one timed. */
  async function requestsAsUsual() {
    const timings: number[] = [];
    const timed = async <T>(call: () => Promise<T>) => {
      const start = Date.now();
      const result = await call();
      timings.push(Date.now() - start);
      return result;
    };
    const created = await timed(() => client.post('/api/claims', { claim_number: `OBS-${tag()}` }));
    expect(created.status).toBe(201);
    const read = await timed(() => client.get(`/api/claims/${created.body.id}`));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, claim_number: created.body.claim_number });
    const expired = await signLoginToken(member, { expiresInSeconds: -60 });
    const refused = await timed(() => request('GET', '/api/claims', { token: expired }));
    expect(refused.status).toBe(401);
    return timings;
  }

  it.each(Object.keys(endpoints) as (keyof typeof endpoints)[])(
    '%s: requests answer as usual, each within the flush bound',
    async (name) => {
      const usual = Math.max(...(await requestsAsUsual()));
      const endpoint = endpoints[name];
      // Only this member's signals meet the outage (their analytics events and error reports name the user):
      // the endpoints serve every file of the run at once.
      await endpoint.setMode(mode, signalId(userId));
      const [create, read, expired] = await requestsAsUsual();
      for (const ms of [create, read, expired]) expect(ms).toBeLessThan(usual + FLUSH_BOUND_MS + SLACK_MS);
      if (mode === 'hanging') {
        // The flush did wait on the hanging endpoint, and no longer than its bound: the new claim's analytics
        // event (and the expiry's), the expiry's error report. HTTP requests leave no spans or metrics.
        if (name === 'analytics') expect(Math.min(create, expired)).toBeGreaterThanOrEqual(FLUSH_BOUND_MS - 100);
        if (name === 'error tracking') expect(expired).toBeGreaterThanOrEqual(FLUSH_BOUND_MS - 100);
      }
      await endpoint.setMode('up');
      // After the outage, requests leave their signals again.
      const after = await client.post('/api/claims', { claim_number: `OBS-${tag()}` });
      expect(after.status).toBe(201);
      await eventually(async () =>
        (await analytics.events(signalId(after.body.id))).find((e) => e.event === 'create_claim'),
      );
    },
    60_000,
  );

  it('every endpoint at once: a photo job is processed to the same items', async () => {
    const room = await newRoom(client, 'Garage');
    const jobId = await photoJobOf(client, room, 'items');
    const before = await otlp.stats();
    // Only this job's signals meet the outage (they name it).
    await Promise.all(Object.values(endpoints).map((e) => e.setMode(mode, signalId(jobId))));
    const job = await processToEnd(client, jobId);
    expect(job).toMatchObject({ status: 'complete', items_found: 2, billed_cost_usd: 2 });
    const items = (await client.get(`/api/inventory/${jobId}`)).body as { name: string }[];
    expect(items.map((i) => i.name)).toEqual(['Armchair', 'Side table']);
    // The workers did try to export: the collector was reached, and nothing was recorded for this job.
    const after = await otlp.stats();
    expect(after.received.traces).toBeGreaterThan(before.received.traces);
    expect(await otlp.spans(signalId(jobId))).toEqual([]);
  }, 180_000);
});
