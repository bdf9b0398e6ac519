import {
  ALL_BUCKET,
  bucketsAt,
  dayBucket,
  hourBucket,
  MEDIA_TYPES,
  monthBucket,
  OVERVIEW_RANGES,
  parseRange,
  presenceMinute,
  presenceMinutes,
  processingSeconds,
  qualityAverages,
  rangeBuckets,
  rollUp,
  sumUsage,
  TEAM_COUNTERS,
  usageByTeam,
  usageIncrements,
} from '../../../lib/stats/rules';

const now = new Date('2026-11-25T22:53:10.000Z');

describe('ranges', () => {
  it('takes the six ranges and falls back to all for anything else', () => {
    for (const range of OVERVIEW_RANGES) expect(parseRange(range)).toBe(range);
    expect(parseRange(undefined)).toBe('all');
    expect(parseRange('')).toBe('all');
    expect(parseRange('month')).toBe('all');
    expect(parseRange('TODAY')).toBe('all');
  });

  it('counts an event in its hour, day, month and all time', () => {
    expect(bucketsAt(now)).toEqual(['HOUR#2026-11-25T22', 'DAY#2026-11-25', 'MONTH#2026-11', ALL_BUCKET]);
    expect([hourBucket(now), dayBucket(now), monthBucket(now)]).toEqual(bucketsAt(now).slice(0, 3));
  });

  it('reads today as the UTC day so far', () => {
    expect(rangeBuckets('today', now)).toEqual({ buckets: ['DAY#2026-11-25'], start: '2026-11-25T00:00:00.000Z' });
  });

  it('reads 24h as the current hour and the 23 before it', () => {
    const { buckets, start } = rangeBuckets('24h', now);
    expect(buckets).toHaveLength(24);
    expect(buckets[0]).toBe('HOUR#2026-11-24T23');
    expect(buckets[23]).toBe('HOUR#2026-11-25T22');
    expect(start).toBe('2026-11-24T23:00:00.000Z');
  });

  it('reads week and 30d as whole days ending today', () => {
    const week = rangeBuckets('week', now);
    expect(week.buckets).toEqual([
      'DAY#2026-11-19',
      'DAY#2026-11-20',
      'DAY#2026-11-21',
      'DAY#2026-11-22',
      'DAY#2026-11-23',
      'DAY#2026-11-24',
      'DAY#2026-11-25',
    ]);
    expect(week.start).toBe('2026-11-19T00:00:00.000Z');
    const month = rangeBuckets('30d', now);
    expect(month.buckets).toHaveLength(30);
    expect(month.buckets[0]).toBe('DAY#2026-10-27');
    expect(month.start).toBe('2026-10-27T00:00:00.000Z');
  });

  it('reads year as the current month and the 11 before it, across the new year: the 10 settled ones as a rollup', () => {
    const { buckets, start, rollup } = rangeBuckets('year', new Date('2027-02-03T10:00:00Z'));
    expect(buckets).toEqual(['MONTH#2027-01', 'MONTH#2027-02']);
    expect(rollup).toEqual({
      bucket: 'MONTHS#2026-03..2026-12',
      months: [
        'MONTH#2026-03',
        'MONTH#2026-04',
        'MONTH#2026-05',
        'MONTH#2026-06',
        'MONTH#2026-07',
        'MONTH#2026-08',
        'MONTH#2026-09',
        'MONTH#2026-10',
        'MONTH#2026-11',
        'MONTH#2026-12',
      ],
    });
    expect(start).toBe('2026-03-01T00:00:00.000Z');
    // Every other range reads its buckets as they are.
    for (const range of OVERVIEW_RANGES.filter((r) => r !== 'year'))
      expect(rangeBuckets(range, now).rollup).toBeUndefined();
  });

  it('rolls rows up per team, every counter summed, and sums the same as the rows themselves', () => {
    const rows = [
      { team_id: 'a', bucket: 'MONTH#2026-03', jobs: 2, credits: 6, ai_cost_usd: 0.1, jobs__video: 2 },
      { team_id: 'b', bucket: 'MONTH#2026-03', jobs: 1, claims: 3 },
      { team_id: 'a', bucket: 'MONTH#2026-04', jobs: 1, credits: 3, ai_cost_usd: 0.2, expires_at: 1_900_000_000 },
    ];
    const rolled = rollUp(rows);
    expect(rolled).toEqual([
      { team_id: 'a', jobs: 3, credits: 9, ai_cost_usd: 0.30000000000000004, jobs__video: 2 },
      { team_id: 'b', jobs: 1, claims: 3 },
    ]);
    expect(sumUsage(rolled)).toEqual(sumUsage(rows));
    expect(usageByTeam(rolled, 5)).toEqual(usageByTeam(rows, 5));
  });

  it('reads all as the all-time bucket with no start', () => {
    expect(rangeBuckets('all', now)).toEqual({ buckets: [ALL_BUCKET], start: null });
  });
});

describe('counters', () => {
  it('adds a media event to the total and to its media type, leaving zeros out', () => {
    expect(usageIncrements({ media: 'video', counts: { completed: 1, credits: 12, items: 0 } })).toEqual({
      completed: 1,
      completed__video: 1,
      credits: 12,
      credits__video: 12,
    });
  });

  it('adds a team event to the total only', () => {
    expect(usageIncrements({ counts: { claims: 1, submissions: 0 } })).toEqual({ claims: 1 });
    expect(TEAM_COUNTERS).toContain('estimation_sends');
  });

  const rows = [
    { team_id: 'a', jobs: 3, jobs__video: 1, jobs__photo: 2, credits: 10, credits__video: 10, claims: 2 },
    { team_id: 'b', jobs: 1, jobs__audio: 1, credits: 30, credits__audio: 30, ai_cost_usd: 0.1 },
    { team_id: 'a', jobs: 1, jobs__photo: 1, completed: 2, items: 9, ai_cost_usd: 0.2, bogus: 'x', credits: 'NaN' },
  ];

  it('sums rows into totals and totals by media type (money to six decimals)', () => {
    const totals = sumUsage(rows);
    expect(totals).toMatchObject({ jobs: 5, credits: 40, claims: 2, completed: 2, items: 9, ai_cost_usd: 0.3 });
    expect(totals.by_media.photo.jobs).toBe(3);
    expect(totals.by_media.video).toMatchObject({ jobs: 1, credits: 10 });
    expect(totals.by_media.audio).toMatchObject({ jobs: 1, credits: 30 });
    expect(Object.keys(totals.by_media)).toEqual([...MEDIA_TYPES]);
    expect(sumUsage([]).jobs).toBe(0);
  });

  it('ranks teams by credits, then jobs, then id, and keeps the first ones', () => {
    const board = usageByTeam(rows, 10);
    expect(board.map((t) => [t.team_id, t.credits, t.jobs])).toEqual([
      ['b', 30, 1],
      ['a', 10, 4],
    ]);
    expect(usageByTeam(rows, 1)).toHaveLength(1);
    const tied = usageByTeam(
      [
        { team_id: 'z', credits: 5, jobs: 1 },
        { team_id: 'y', credits: 5, jobs: 1 },
        { team_id: 'x', credits: 5, jobs: 2 },
      ],
      3,
    );
    expect(tied.map((t) => t.team_id)).toEqual(['x', 'y', 'z']);
  });

  it('averages quality over finished jobs, null when nothing finished', () => {
    const totals = sumUsage([
      { team_id: 'a', completed: 3, failed: 1, items: 10, processing_seconds: 100, ai_cost_usd: 0.4, credits: 9 },
    ]);
    expect(qualityAverages(totals)).toEqual({
      items_per_job: 3.33,
      processing_seconds_per_job: 33.3,
      success_rate: 0.75,
      ai_cost_usd_per_job: 0.1,
      credits_per_job: 3,
    });
    expect(qualityAverages(sumUsage([]))).toEqual({
      items_per_job: null,
      processing_seconds_per_job: null,
      success_rate: null,
      ai_cost_usd_per_job: null,
      credits_per_job: null,
    });
  });
});

describe('presence and durations', () => {
  it('looks at the minutes of the last five minutes, this one included', () => {
    expect(presenceMinute(now)).toBe('2026-11-25T22:53');
    expect(presenceMinutes(now)).toEqual([
      '2026-11-25T22:48',
      '2026-11-25T22:49',
      '2026-11-25T22:50',
      '2026-11-25T22:51',
      '2026-11-25T22:52',
      '2026-11-25T22:53',
    ]);
  });

  it('measures whole seconds from start to finish, 0 when unknown or backwards', () => {
    expect(processingSeconds('2026-11-25T10:00:00Z', '2026-11-25T10:01:30.6Z')).toBe(91);
    expect(processingSeconds(null, '2026-11-25T10:01:30Z')).toBe(0);
    expect(processingSeconds('2026-11-25T10:00:00Z', null)).toBe(0);
    expect(processingSeconds('2026-11-25T10:05:00Z', '2026-11-25T10:00:00Z')).toBe(0);
    expect(processingSeconds('garbage', '2026-11-25T10:00:00Z')).toBe(0);
  });
});
