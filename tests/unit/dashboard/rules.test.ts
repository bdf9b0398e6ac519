/** Covers: lib/dashboard/rules.ts (GET /api/dashboard/metrics arithmetic). */
import { dashboardMetrics, isSettled, type MeasuredJob, runSeconds } from '../../../lib/dashboard/rules';
import { JOB_STATUSES, PROCESSING_STATUSES } from '../../../lib/jobs/job-rules';

const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();

function job(overrides: Partial<MeasuredJob> = {}): MeasuredJob {
  return { status: 'complete', started_at: at(0), finished_at: at(60), items: 3, ...overrides };
}

describe('isSettled', () => {
  it('is false for every processing state and true for every other status', () => {
    for (const status of JOB_STATUSES) expect(isSettled(status)).toBe(!PROCESSING_STATUSES.includes(status));
  });
});

describe('runSeconds', () => {
  it('is the span from start to end of the run, fractions kept', () => {
    expect(runSeconds({ started_at: at(10), finished_at: at(25.5) })).toBe(15.5);
  });

  it('is 0 when either end is missing', () => {
    expect(runSeconds({ started_at: null, finished_at: at(5) })).toBe(0);
    expect(runSeconds({ started_at: at(5), finished_at: null })).toBe(0);
    expect(runSeconds({ started_at: null, finished_at: null })).toBe(0);
  });

  it('is 0 when the end is before the start (a restarted run not yet finished) or unreadable', () => {
    expect(runSeconds({ started_at: at(30), finished_at: at(10) })).toBe(0);
    expect(runSeconds({ started_at: 'not a date', finished_at: at(10) })).toBe(0);
  });
});

describe('dashboardMetrics', () => {
  it('answers zeros and a null rate for a team with no jobs', () => {
    expect(dashboardMetrics([])).toEqual({ items_cataloged: 0, processing_seconds: 0, seconds_per_item: null });
  });

  it('sums items and run seconds of settled jobs and divides', () => {
    const metrics = dashboardMetrics([
      job({ items: 3, finished_at: at(60) }),
      job({ status: 'error', items: 1, finished_at: at(20) }),
    ]);
    expect(metrics).toEqual({ items_cataloged: 4, processing_seconds: 80, seconds_per_item: 20 });
  });

  it('leaves out running jobs, whatever they hold', () => {
    const running = PROCESSING_STATUSES.map((status) => job({ status, items: 10, finished_at: at(1000) }));
    expect(dashboardMetrics([job(), ...running])).toEqual({
      items_cataloged: 3,
      processing_seconds: 60,
      seconds_per_item: 20,
    });
  });

  it('leaves out jobs without items, so their time does not count either', () => {
    expect(dashboardMetrics([job({ items: 0, finished_at: at(500) }), job({ items: -1 })])).toEqual({
      items_cataloged: 0,
      processing_seconds: 0,
      seconds_per_item: null,
    });
  });

  it('counts the items of a job with no recorded run, without time', () => {
    expect(
      dashboardMetrics([job({ items: 2 }), job({ status: 'awaiting_grouping', started_at: null, items: 2 })]),
    ).toEqual({ items_cataloged: 4, processing_seconds: 60, seconds_per_item: 15 });
  });

  it('rounds to tenths of a second', () => {
    expect(dashboardMetrics([job({ items: 3, finished_at: at(10.04) })])).toEqual({
      items_cataloged: 3,
      processing_seconds: 10,
      seconds_per_item: 3.3,
    });
  });
});
