import {
  isTotalledJob,
  JOB_TOTAL_SHARDS,
  sumTotals,
  totalsOf,
  totalsShardOf,
  typeTotal,
} from '../../../lib/jobs/job-totals-rules';

describe('job totals rules', () => {
  it('count media jobs, not a contents-list reader or a capture runner', () => {
    expect(isTotalledJob({ reads_batch_id: null })).toBe(true);
    expect(isTotalledJob({ reads_batch_id: 'batch-1' })).toBe(false);
  });

  it('give every id one shard, the same each time, and spread ids over all of them', () => {
    const shards = new Map<number, number>();
    for (let i = 0; i < 4_000; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const shard = totalsShardOf(id);
      expect(totalsShardOf(id)).toBe(shard);
      expect(Number.isInteger(shard) && shard >= 0 && shard < JOB_TOTAL_SHARDS).toBe(true);
      shards.set(shard, (shards.get(shard) ?? 0) + 1);
    }
    expect(shards.size).toBe(JOB_TOTAL_SHARDS);
    // 250 each on average: none gets under half or over twice that.
    for (const count of shards.values()) expect(count > 125 && count < 500).toBe(true);
  });

  it('say what a job row adds as its flags say', () => {
    expect(totalsOf({ source_type: 'video' })).toEqual({});
    expect(totalsOf({ source_type: 'video', in_job_totals: true })).toEqual({ jobs: 1, jobs__video: 1 });
    expect(totalsOf({ source_type: 'audio', in_job_totals: true, with_ai_calls_counted: true })).toEqual({
      jobs: 1,
      jobs__audio: 1,
      jobs_with_ai_calls: 1,
    });
    // Only a counted job is in the AI-calls total.
    expect(totalsOf({ source_type: 'photo', with_ai_calls_counted: true })).toEqual({});
  });

  it('name the total of a media type, and none for another word', () => {
    expect(typeTotal('photo')).toBe('jobs__photo');
    expect(typeTotal('pdf')).toBeNull();
  });

  it('add the shard rows up, a missing counter as 0', () => {
    expect(sumTotals([])).toEqual({ jobs: 0, jobs_with_ai_calls: 0, jobs__video: 0, jobs__photo: 0, jobs__audio: 0 });
    expect(
      sumTotals([
        { jobs: 3, jobs__video: 2, jobs__photo: 1, pk: 'JOBTOTALS#0' },
        { jobs: 2, jobs_with_ai_calls: 1, jobs__audio: 2 },
      ]),
    ).toEqual({ jobs: 5, jobs_with_ai_calls: 1, jobs__video: 2, jobs__photo: 1, jobs__audio: 2 });
  });
});
