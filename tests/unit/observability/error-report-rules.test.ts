import {
  SWEEP_JOB_IDS_SHOWN,
  trackedEventOf,
  watchdogSweepReport,
} from '../../../lib/observability/error-report-rules';

describe('trackedEventOf', () => {
  it('reports an error as an exception of its kind, with non-empty tags as text, scrubbed', () => {
    expect(
      trackedEventOf({
        kind: 'pipeline_failure',
        level: 'error',
        message: 'The analyze stage failed for pat@example.com',
        tags: { job_id: 'j1', attempt: 2, pass: false, stage: null, batch: undefined, empty: '' },
        extra: { units: 3 },
      }),
    ).toEqual({
      level: 'error',
      tags: { kind: 'pipeline_failure', job_id: 'j1', attempt: '2', pass: 'false' },
      extra: { units: 3 },
      exception: { values: [{ type: 'PipelineFailure', value: 'The analyze stage failed for [email]' }] },
    });
  });

  it('names each kind that may be an error or warning', () => {
    const type = (kind: 'import_crash' | 'claims_platform_submission' | 'watchdog_sweep' | 'session_expired') =>
      trackedEventOf({ kind, level: 'warning', message: 'm' }).exception?.values?.[0].type;
    expect([
      type('import_crash'),
      type('claims_platform_submission'),
      type('watchdog_sweep'),
      type('session_expired'),
    ]).toEqual(['ImportCrash', 'ClaimsPlatformSubmissionFailure', 'WatchdogSweep', 'SessionExpired']);
  });

  it('reports info as a plain message', () => {
    expect(trackedEventOf({ kind: 'session_expired', level: 'info', message: 'Session expired' })).toEqual({
      level: 'info',
      tags: { kind: 'session_expired' },
      message: 'Session expired',
    });
  });
});

describe('watchdogSweepReport', () => {
  const none = { requeued: [], recovered: [], failed: [] };

  it('leaves out a sweep that only looked', () => {
    expect(watchdogSweepReport({ checked: 12, jobs: none })).toBeNull();
  });

  it('reports a sweep that acted with its counts and the ids it acted on, as a warning when it failed jobs', () => {
    const jobs = { requeued: ['j1'], recovered: ['j2', 'j3'], failed: [] };
    expect(watchdogSweepReport({ checked: 5, jobs })).toEqual({
      kind: 'watchdog_sweep',
      level: 'info',
      message: 'Watchdog sweep: 1 requeued, 2 recovered, 0 failed of 5 checked',
      extra: { checked: 5, requeued: 1, recovered: 2, failed: 0, requeued_job_ids: 'j1', recovered_job_ids: 'j2,j3' },
    });
    const failedOne = { ...none, failed: ['j4'] };
    expect(watchdogSweepReport({ checked: 5, jobs: failedOne })?.level).toBe('warning');
  });

  it(`names at most ${SWEEP_JOB_IDS_SHOWN} jobs per action and says how many it left out`, () => {
    const ids = Array.from({ length: SWEEP_JOB_IDS_SHOWN + 3 }, (_, i) => `job-${i}`);
    const report = watchdogSweepReport({ checked: ids.length, jobs: { ...none, requeued: ids } });
    const named = String(report?.extra?.requeued_job_ids);
    expect(named.split(',')).toHaveLength(SWEEP_JOB_IDS_SHOWN);
    expect(named).toMatch(/job-19 \(\+3 more\)$/);
  });
});
