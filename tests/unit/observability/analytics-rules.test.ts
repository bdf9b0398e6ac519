import {
  activityEvent,
  analyticsTarget,
  batchBody,
  jobOutcomeEvent,
  secondsBetween,
  sessionExpiredEvent,
} from '../../../lib/observability/analytics-rules';

describe('analyticsTarget', () => {
  it('posts batches to /batch/ under the host with the project key', () => {
    expect(analyticsTarget({ POSTHOG_API_KEY: ' phc_key ', POSTHOG_HOST: 'https://eu.i.posthog.com//' })).toEqual({
      url: 'https://eu.i.posthog.com/batch/',
      apiKey: 'phc_key',
    });
  });

  it('is off without a key or with a host that is not an http(s) URL', () => {
    expect(analyticsTarget({ POSTHOG_API_KEY: '', POSTHOG_HOST: 'https://eu.i.posthog.com' })).toBeNull();
    expect(analyticsTarget({ POSTHOG_API_KEY: 'k', POSTHOG_HOST: 'eu.i.posthog.com' })).toBeNull();
  });
});

describe('batchBody', () => {
  it('carries the key and each event with the library named', () => {
    const event = { event: 'e', distinct_id: 'u1', timestamp: '2026-01-01T00:00:00.000Z', properties: { a: 1 } };
    expect(batchBody('k', [event])).toEqual({
      api_key: 'k',
      batch: [{ ...event, properties: { a: 1, $lib: 'contents-inventory' } }],
    });
  });
});

describe('activityEvent', () => {
  it('mirrors an activity entry by its action, with ids and kinds but never its label or target', () => {
    const entry = {
      id: 'a1',
      team_id: 't1',
      user_id: 'u1',
      user_name: 'Pat Smith',
      action_type: 'create_claim',
      action_label: 'Created claim for Pat Smith',
      target: 'CLM-pat@example.com',
      entity_type: 'claim',
      entity_id: 'c1',
      restorable: true,
      created_at: '2026-01-01T00:00:00.000Z',
      impersonated_by: '7',
    };
    const event = activityEvent(entry);
    expect(event).toEqual({
      event: 'create_claim',
      distinct_id: 'u1',
      timestamp: '2026-01-01T00:00:00.000Z',
      properties: {
        source: 'activity',
        activity_id: 'a1',
        team_id: 't1',
        entity_type: 'claim',
        entity_id: 'c1',
        restorable: true,
        impersonated: true,
      },
    });
    expect(JSON.stringify(event)).not.toMatch(/Pat|example\.com/);
    expect(activityEvent({ ...entry, impersonated_by: undefined }).properties.impersonated).toBe(false);
  });
});

describe('jobOutcomeEvent', () => {
  const job = {
    id: 'j1',
    team_id: 't1',
    claim_id: 'c1',
    room_id: 'r1',
    created_by_user_id: 'u1',
    source_type: 'photo',
    pipeline: 'photo',
    items_found: 7,
    started_at: '2026-01-01T00:00:00.000Z',
  };
  const now = new Date('2026-01-01T00:01:30.250Z');

  it('names each outcome and reports ids, counts, credits and the duration', () => {
    expect(jobOutcomeEvent(job, 'complete', { credits: 4, now })).toEqual({
      event: 'job_completed',
      distinct_id: 'u1',
      timestamp: now.toISOString(),
      properties: {
        source: 'job',
        job_id: 'j1',
        team_id: 't1',
        claim_id: 'c1',
        room_id: 'r1',
        source_type: 'photo',
        pipeline: 'photo',
        outcome: 'complete',
        items_found: 7,
        credits: 4,
        duration_seconds: 90.3,
      },
    });
    const names = (['error', 'pass_complete', 'pass_error', 'prepared', 'preparation_error'] as const).map(
      (o) => jobOutcomeEvent(job, o, { now }).event,
    );
    expect(names).toEqual([
      'job_failed',
      'job_pass_completed',
      'job_pass_failed',
      'job_import_finished',
      'job_import_failed',
    ]);
  });

  it('copes with a job in no room, without items, start or pipeline', () => {
    const event = jobOutcomeEvent(
      { ...job, room_id: '', items_found: undefined as unknown as number, started_at: null, pipeline: null },
      'error',
      { now },
    );
    expect(event.properties).toMatchObject({ room_id: null, items_found: 0, credits: 0, duration_seconds: null });
  });
});

describe('secondsBetween', () => {
  it('is tenths of seconds from a valid start, never negative, and null without one', () => {
    const end = new Date('2026-01-01T00:00:10.000Z');
    expect(secondsBetween('2026-01-01T00:00:00.000Z', end)).toBe(10);
    expect(secondsBetween('2026-01-01T00:00:20.000Z', end)).toBe(0);
    expect(secondsBetween('not a date', end)).toBeNull();
    expect(secondsBetween(null, end)).toBeNull();
  });
});

describe('sessionExpiredEvent', () => {
  const now = new Date('2026-01-01T01:00:00.000Z');

  it('names the known user and says how long ago the token expired', () => {
    expect(sessionExpiredEvent({ userId: 'u1', via: 'cookie', expiredAt: now.getTime() / 1000 - 600, now })).toEqual({
      event: 'session_expired',
      distinct_id: 'u1',
      timestamp: now.toISOString(),
      properties: { source: 'auth', token_via: 'cookie', expired_seconds_ago: 600 },
    });
  });

  it('is anonymous, without a person profile, for a user unknown here', () => {
    expect(sessionExpiredEvent({ userId: null, via: 'bearer', expiredAt: null, now })).toEqual({
      event: 'session_expired',
      distinct_id: 'anonymous',
      timestamp: now.toISOString(),
      properties: {
        source: 'auth',
        token_via: 'bearer',
        expired_seconds_ago: null,
        $process_person_profile: false,
      },
    });
  });
});
