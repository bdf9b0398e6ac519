/**
 * Each outbound sink's boundary (the span exporter, the log record
 * processor, the error-tracking client's last step, the analytics capture):
 * what leaves carries no raw UUID, the same id always leaves as the same
 * keyed hash, and another key gives another hash.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { loadSettings, resetSettings } from '../../../lib/config';
import { captureAnalytics, flushAnalytics } from '../../../lib/observability/analytics';
import { jobOutcomeEvent } from '../../../lib/observability/analytics-rules';
import { flushErrors, reportError } from '../../../lib/observability/error-tracking';
import { OutboundIdLogProcessor } from '../../../lib/observability/otel-logs-sdk';
import { OutboundIdSpanExporter } from '../../../lib/observability/otel-trace-sdk';
import { outboundId } from '../../../lib/observability/outbound-id-rules';

const JOB = '2c1f6b0e-8a1d-4b6e-9d3a-0f4c5b6a7e8d';
const TEAM = '7d0e4b1a-3c2f-4e5d-8a9b-0c1d2e3f4a5b';
const USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const KEY = 'a signals id key of at least thirty-two bytes';
const OTHER_KEY = 'another signals id key, thirty-two bytes long';
const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const hashOf = (id: string, key = KEY) => outboundId(id, Buffer.from(key));

function useSettings(env: Record<string, string>) {
  resetSettings(
    loadSettings({
      env: { APP_ENV: 'stage', ...env },
      dotenvPath: '/nonexistent/.env',
      machineFilePath: '/nonexistent/settings.env',
    }),
  );
}
afterAll(() => resetSettings());

describe('the span exporter', () => {
  async function exportedSpan(key: string) {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new OutboundIdSpanExporter(memory, () => Buffer.from(key)))],
    });
    const span = provider.getTracer('test').startSpan(`GET /api/jobs/${JOB}/video`, {
      attributes: {
        'job.id': JOB,
        'url.full': `https://inventory.example.test/api/photos/${JOB}/orig_0001.jpg`,
        'http.route': `/api/jobs/${JOB}/stream`,
        'team.ids': [TEAM, 'x'],
        attempt: 2,
      },
      links: [
        { context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }, attributes: { job: JOB } },
      ],
    });
    span.addEvent(`retry of ${JOB}`, { job_id: JOB });
    span.setStatus({ code: SpanStatusCode.ERROR, message: `job ${JOB} failed` });
    span.end();
    await provider.forceFlush();
    const [out] = memory.getFinishedSpans();
    return { out, traceId: span.spanContext().traceId };
  }

  it('sends every span with its ids hashed: name, attributes, URL paths, events, links and status', async () => {
    const { out, traceId } = await exportedSpan(KEY);
    const sent = JSON.stringify({
      name: out.name,
      attributes: out.attributes,
      events: out.events,
      links: out.links,
      status: out.status,
    });
    expect(sent).not.toMatch(UUID_ANYWHERE);
    expect(out.name).toBe(`GET /api/jobs/${hashOf(JOB)}/video`);
    expect(out.attributes).toMatchObject({
      'job.id': hashOf(JOB),
      'url.full': `https://inventory.example.test/api/photos/${hashOf(JOB)}/orig_0001.jpg`,
      'http.route': `/api/jobs/${hashOf(JOB)}/stream`,
      'team.ids': [hashOf(TEAM), 'x'],
      attempt: 2,
    });
    expect(out.events[0]).toMatchObject({ name: `retry of ${hashOf(JOB)}`, attributes: { job_id: hashOf(JOB) } });
    expect(out.status.message).toBe(`job ${hashOf(JOB)} failed`);
    // Trace and span ids are not ids of ours: they stay.
    expect(out.spanContext().traceId).toBe(traceId);
  });

  it('gives the same id the same hash in every span, and another key another hash', async () => {
    expect((await exportedSpan(KEY)).out.attributes['job.id']).toBe(hashOf(JOB));
    expect((await exportedSpan(OTHER_KEY)).out.attributes['job.id']).toBe(hashOf(JOB, OTHER_KEY));
    expect(hashOf(JOB, OTHER_KEY)).not.toBe(hashOf(JOB));
  });
});

describe('the log record processor', () => {
  async function exportedRecord(key: string) {
    const memory = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({
      processors: [
        new OutboundIdLogProcessor(() => Buffer.from(key)),
        new SimpleLogRecordProcessor({ exporter: memory }),
      ],
    });
    provider.getLogger('test').emit({
      body: `job ${JOB} failed`,
      attributes: { job_id: JOB, team_id: TEAM, detail: JSON.stringify({ path: `/api/jobs/${JOB}/frames` }), n: 1 },
    });
    await provider.forceFlush();
    return memory.getFinishedLogRecords()[0];
  }

  it('sends every record with the ids in its body and attributes hashed', async () => {
    const record = await exportedRecord(KEY);
    expect(JSON.stringify({ body: record.body, attributes: record.attributes })).not.toMatch(UUID_ANYWHERE);
    expect(record.body).toBe(`job ${hashOf(JOB)} failed`);
    expect(record.attributes).toEqual({
      job_id: hashOf(JOB),
      team_id: hashOf(TEAM),
      detail: JSON.stringify({ path: `/api/jobs/${hashOf(JOB)}/frames` }),
      n: 1,
    });
  });

  it('hashes with the key it is given', async () => {
    expect((await exportedRecord(OTHER_KEY)).attributes.job_id).toBe(hashOf(JOB, OTHER_KEY));
  });
});

describe('the error-tracking client', () => {
  const sentBodies = (fetchSpy: jest.SpyInstance) =>
    fetchSpy.mock.calls.map(([, init]) => String((init as RequestInit).body));

  async function reported(key: string) {
    useSettings({ SENTRY_DSN: 'https://publickey@errors.example.test/42', SIGNALS_ID_KEY: key });
    const fetchSpy = jest
      .spyOn(globalThis, 'fetch')
      .mockImplementation(async () => new Response('{}', { status: 200 }));
    try {
      reportError({
        kind: 'pipeline_failure',
        level: 'error',
        message: `The analyze stage of job ${JOB} failed at /api/jobs/${JOB}/frames`,
        tags: { job_id: JOB, team_id: TEAM, pipeline: 'photo' },
        extra: { photo: `/api/photos/${JOB}/orig_0001.jpg` },
      });
      await flushErrors(2000);
      // A redirect is never followed: it would carry the report wherever it points.
      for (const [, init] of fetchSpy.mock.calls) expect((init as RequestInit).redirect).toBe('manual');
      return sentBodies(fetchSpy).join('\n');
    } finally {
      fetchSpy.mockRestore();
    }
  }

  it('sends each event with its ids hashed (tags, message, extra), the same id as the same hash', async () => {
    const envelope = await reported(KEY);
    const event = JSON.parse(envelope.split('\n')[2]);
    expect(envelope).not.toMatch(UUID_ANYWHERE);
    expect(event.tags).toMatchObject({ job_id: hashOf(JOB), team_id: hashOf(TEAM), kind: 'pipeline_failure' });
    expect(event.exception.values[0].value).toBe(
      `The analyze stage of job ${hashOf(JOB)} failed at /api/jobs/${hashOf(JOB)}/frames`,
    );
    expect(event.extra.photo).toBe(`/api/photos/${hashOf(JOB)}/orig_0001.jpg`);
  });

  it('hashes with the key of the current settings', async () => {
    const envelope = await reported(OTHER_KEY);
    expect(JSON.parse(envelope.split('\n')[2]).tags.job_id).toBe(hashOf(JOB, OTHER_KEY));
  });
});

describe('the analytics capture', () => {
  async function sentBatch(key: string) {
    useSettings({ POSTHOG_API_KEY: 'phc_test', POSTHOG_HOST: 'https://analytics.example.test', SIGNALS_ID_KEY: key });
    const fetchSpy = jest
      .spyOn(globalThis, 'fetch')
      .mockImplementation(async () => new Response('{}', { status: 200 }));
    try {
      captureAnalytics(
        jobOutcomeEvent(
          {
            id: JOB,
            team_id: TEAM,
            claim_id: '11111111-2222-4333-8444-555555555555',
            room_id: '66666666-7777-4888-9999-000000000000',
            created_by_user_id: USER,
            source_type: 'photo',
            pipeline: 'photo',
            items_found: 2,
            started_at: null,
          },
          'complete',
          { credits: 2, now: new Date() },
        ),
      );
      await flushAnalytics();
      expect((fetchSpy.mock.calls[0][1] as RequestInit).redirect).toBe('manual');
      return String((fetchSpy.mock.calls[0][1] as RequestInit).body);
    } finally {
      fetchSpy.mockRestore();
    }
  }

  it('sends each event with its ids hashed, the distinct id included', async () => {
    const body = await sentBatch(KEY);
    expect(body).not.toMatch(UUID_ANYWHERE);
    const [event] = JSON.parse(body).batch;
    expect(event.distinct_id).toBe(hashOf(USER));
    expect(event.properties).toMatchObject({ job_id: hashOf(JOB), team_id: hashOf(TEAM), items_found: 2 });
  });

  it('hashes with the key of the current settings', async () => {
    const [event] = JSON.parse(await sentBatch(OTHER_KEY)).batch;
    expect(event.properties.job_id).toBe(hashOf(JOB, OTHER_KEY));
  });
});
