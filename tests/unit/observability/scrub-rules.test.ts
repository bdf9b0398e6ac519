import { scrubLogAttributes, scrubEvent, scrubText, scrubValue } from '../../../lib/observability/scrub-rules';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjoxLCJlbWFpbCI6InBhdEBleGFtcGxlLmNvbSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
const UUID = '2c1f6b0e-8a1d-4b6e-9d3a-0f4c5b6a7e8d';

describe('scrubText', () => {
  it('masks email addresses, JWTs and bearer or basic credentials', () => {
    expect(scrubText('Invited Pat.Smith+home@example.co.uk to the claim')).toBe('Invited [email] to the claim');
    expect(scrubText(`token ${JWT} refused`)).toBe('token [token] refused');
    expect(scrubText('sent Bearer abc.def-123 and failed')).toBe('sent Bearer [token] and failed');
    expect(scrubText('Authorization: Bearer abc.def-123')).toBe('Authorization: [redacted] [token]');
    expect(scrubText('sent basic dXNlcjpwYXNz to the mail service')).toBe('sent basic [token] to the mail service');
  });

  it('drops URL query strings, where presigned URLs carry their credentials', () => {
    expect(
      scrubText('GET https://bucket.s3.amazonaws.com/teams/t/photo.jpg?X-Amz-Signature=abc&X-Amz-Credential=k failed'),
    ).toBe('GET https://bucket.s3.amazonaws.com/teams/t/photo.jpg?[query] failed');
  });

  it('masks the value of credential-like pairs', () => {
    expect(scrubText('api_key=sk_live_1 password: "hunter 2" team_token=abc; x=1')).toBe(
      'api_key=[redacted] password: [redacted] team_token=[redacted]; x=1',
    );
    expect(scrubText('the platform refused the token (401)')).toBe('the platform refused the token (401)');
  });

  it('masks long key-like runs with digits, keeping UUIDs, plain words and short ids', () => {
    expect(scrubText(`team-token-${UUID}`)).toBe('[token]');
    expect(scrubText(`job ${UUID} failed`)).toBe(`job ${UUID} failed`);
    expect(scrubText('a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7')).toBe('[token]');
    expect(scrubText('contents-inventory-local-stageWorker-runs')).toBe('contents-inventory-local-stageWorker-runs');
    expect(scrubText('The analyze stage failed: HTTP 503 after 4 attempts')).toBe(
      'The analyze stage failed: HTTP 503 after 4 attempts',
    );
  });
});

describe('scrubValue', () => {
  it('scrubs every string of nested objects and arrays and keeps other values', () => {
    expect(
      scrubValue({ a: 'x@example.com', b: [1, 'y@example.com', null], c: { d: true, e: { f: 'Bearer t' } } }),
    ).toEqual({ a: '[email]', b: [1, '[email]', null], c: { d: true, e: { f: 'Bearer [token]' } } });
    expect(scrubValue(7)).toBe(7);
  });

  it('stops descending past a depth, leaving what is deeper as it is', () => {
    let deep: Record<string, unknown> = { leaf: 'z@example.com' };
    for (let i = 0; i < 12; i++) deep = { next: deep };
    const out = JSON.stringify(scrubValue(deep));
    expect(out).toContain('z@example.com');
  });
});

describe('scrubEvent', () => {
  it('drops user, request, breadcrumbs and host, and scrubs messages, exceptions, tags, extra and kept contexts', () => {
    const event = {
      event_id: 'e1',
      level: 'error',
      message: 'for pat@example.com',
      user: { email: 'pat@example.com', username: 'Pat Smith' },
      request: { headers: { authorization: `Bearer ${JWT}` } },
      breadcrumbs: [{ message: 'Pat Smith signed in' }],
      server_name: 'pats-laptop',
      exception: {
        values: [
          {
            type: 'PipelineFailure',
            value: `refused ${JWT}`,
            stacktrace: {
              frames: [
                { filename: 'a.js', lineno: 1, vars: { email: 'pat@example.com' }, context_line: 'secret()' },
                'odd frame',
              ],
            },
          },
          { type: 'Plain' },
          { type: 'NoFrames', value: 'v', stacktrace: { note: 'no frames' } },
        ],
      },
      tags: { job_id: UUID, who: 'pat@example.com' },
      extra: { note: 'mail pat@example.com' },
      contexts: {
        trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
        device: { name: 'Pat’s phone' },
        runtime: { name: 'node v1@example.com' },
      },
    };
    const scrubbed = scrubEvent(event);
    expect(scrubbed).toEqual({
      event_id: 'e1',
      level: 'error',
      message: 'for [email]',
      exception: {
        values: [
          {
            type: 'PipelineFailure',
            value: 'refused [token]',
            stacktrace: { frames: [{ filename: 'a.js', lineno: 1 }, 'odd frame'] },
          },
          { type: 'Plain' },
          { type: 'NoFrames', value: 'v', stacktrace: { note: 'no frames' } },
        ],
      },
      tags: { job_id: UUID, who: '[email]' },
      extra: { note: 'mail [email]' },
      contexts: { runtime: { name: 'node [email]' }, trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' } },
    });
    expect(JSON.stringify(scrubbed)).not.toMatch(/pat@example|Pat Smith|pats-laptop|eyJ/);
  });

  it('leaves an event without those parts as it is', () => {
    expect(scrubEvent({ level: 'info' })).toEqual({ level: 'info' });
    expect(scrubEvent({ exception: {} })).toEqual({ exception: {} });
    expect(scrubEvent({ contexts: { device: {} } })).toEqual({ contexts: {} });
  });
});

describe('scrubLogAttributes', () => {
  it("scrubs every field of a log line but the logger's own and the ids", () => {
    const token = 'Zk3pQ9vXr2LmN8sT4wYb6HcJd1FgAe7uK5oRiBx0qWs';
    const line = {
      level: 'INFO',
      message: `opened /api/public/insured/${token} by pat@example.com`,
      timestamp: '2026-11-27T10:00:00.000Z',
      service: 'contents-inventory',
      xray_trace_id: '1-67a0b1c2-4bf92f3577b34da6a3ce929d0e0e4736',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      job_id: UUID,
      item_ids: [UUID],
      detail: { url: `https://bucket.example/key?X-Amz-Signature=${token}`, nested: [`token=${token}`] },
      attempt: 2,
    };
    const scrubbed = scrubLogAttributes(line);
    expect(scrubbed).toEqual({
      ...line,
      message: 'opened /api/public/insured/[token] by [email]',
      detail: { url: 'https://bucket.example/key?[query]', nested: ['token=[redacted]'] },
    });
    expect(JSON.stringify(scrubbed)).not.toContain(token);
  });
});
