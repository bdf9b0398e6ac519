/**
 * A job id is a capability (spec: it opens /api/jobs/{id}/video|audio|frames|
 * stream and /api/photos/{job_id}/{filename} without a session), so it must
 * never reach the services the outbound signals go to. Over real HTTP with
 * every signal on (the run's fake OTLP collector, error tracker and analytics
 * service, tests/support/global-setup.ts): a completed and a failed photo job
 * (the failure makes an error report), then everything the fakes received is
 * searched for the raw job ids and the team id. The keyed hash each id
 * leaves as (lib/observability/outbound-id-rules.ts, with the stack's
 * SIGNALS_ID_KEY, which the global setup gives this process too) is found
 * where the raw ids were, so the test cannot pass by nothing being sent.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually } from '../support/api';
import { getRow } from '../support/aws';
import { fakeOtlp } from '../support/fake-otlp';
import { fakePostHog } from '../support/fake-posthog';
import { fakeSentry } from '../support/fake-sentry';
import { signalId } from '../support/outbound-ids';
import { newTeamMember } from '../support/tokens';
import { processToEnd, scriptedPhotoJob } from '../support/scripted-photo-jobs';
import { newRoom, type TestRoom } from '../support/uploads';

const otlp = fakeOtlp(process.env.TEST_FAKE_OTLP_URL as string);
const analytics = fakePostHog(process.env.TEST_FAKE_POSTHOG_URL as string);
const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

const tag = () => randomUUID().slice(0, 8);

const photoJobOf = (client: Client, room: TestRoom, answers: 'items' | 'fail') =>
  scriptedPhotoJob(client, room, answers, 'cap');

describe('job and team ids in the outbound signals', () => {
  let completedId: string;
  let failedId: string;
  let teamId: string;
  let claimId: string;

  beforeAll(async () => {
    const client = await Client.signIn(newTeamMember({ current_team_name: `Capability ${tag()} Adjusters` }));
    const room = await newRoom(client, 'Study');
    claimId = room.claim_id;
    completedId = await photoJobOf(client, room, 'items');
    failedId = await photoJobOf(client, room, 'fail');
    const [completed, failed] = await Promise.all([processToEnd(client, completedId), processToEnd(client, failedId)]);
    expect(completed).toMatchObject({ status: 'complete', items_found: 2 });
    expect(failed.status).toBe('error');
    // The job answer does not show its team: the stored job does.
    teamId = String((await getRow(`JOB#${completedId}`, 'JOB'))?.team_id);
    expect(teamId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  }, 300_000);

  it('leave as their keyed hashes: in spans, log records, error reports and analytics events', async () => {
    for (const [jobId, outcome] of [
      [completedId, 'complete'],
      [failedId, 'error'],
    ] as const) {
      const spans = await eventually(async () => {
        const found = await otlp.spans(signalId(jobId));
        return found.some((s) => s.name === 'job.process') ? found : null;
      }, 30_000);
      const root = spans.find((s) => s.name === 'job.process');
      expect(root?.attributes).toMatchObject({ 'job.id': signalId(jobId), 'job.outcome': outcome });
      expect(spans.filter((s) => s.name.startsWith('stage.')).length).toBeGreaterThan(0);
      for (const span of spans) expect(span.attributes['job.id']).toBe(signalId(jobId));
    }

    const outcome = await eventually(async () =>
      (await analytics.events(signalId(completedId))).find((e) => e.event === 'job_completed'),
    );
    expect(outcome.properties).toMatchObject({
      job_id: signalId(completedId),
      team_id: signalId(teamId),
      claim_id: signalId(claimId),
    });
    await eventually(async () => (await analytics.events(signalId(failedId))).find((e) => e.event === 'job_failed'));

    const [report] = await eventually(async () => {
      const found = await errors.events(signalId(failedId));
      return found.length > 0 ? found : null;
    });
    expect(report.tags).toMatchObject({
      kind: 'pipeline_failure',
      job_id: signalId(failedId),
      team_id: signalId(teamId),
    });

    const lines = await eventually(async () => {
      const found = await otlp.logs(signalId(failedId));
      return found.some((l) => l.severityText === 'ERROR') ? found : null;
    });
    expect(lines.length).toBeGreaterThan(0);
  }, 120_000);

  it('never leave raw: nothing any sink received names the job ids or the team id', async () => {
    // The signals above have arrived (the previous test waited for each); give stragglers time to land too.
    await eventually(async () => (await errors.events(signalId(failedId))).length > 0 || null, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    const received = {
      spans: JSON.stringify(await otlp.spans()),
      logs: JSON.stringify(await otlp.logs()),
      metrics: JSON.stringify(await otlp.metrics()),
      analytics: JSON.stringify(await analytics.events()),
      errors: (await errors.envelopes()).map((e) => e.raw).join('\n'),
    };
    for (const [sink, text] of Object.entries(received)) {
      const lower = text.toLowerCase();
      for (const id of [completedId, failedId, teamId, claimId])
        expect({ sink, id, found: lower.includes(id.toLowerCase()) }).toEqual({ sink, id, found: false });
    }
    // What was searched holds this run's signals: the hashes are in it.
    expect(received.spans).toContain(signalId(completedId));
    expect(received.errors).toContain(signalId(failedId));
    expect(received.analytics).toContain(signalId(teamId));
  }, 120_000);
});
