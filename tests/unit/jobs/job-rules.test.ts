import {
  isProcessing,
  JOB_STATUSES,
  jobProgress,
  STARTABLE_STATUSES,
  statusAfterPreparing,
} from '../../../lib/jobs/job-rules';

describe('jobProgress', () => {
  const base = {
    progress_pct: 55,
    stage_state: 'fanout' as const,
    fanout_total: 8,
    fanout_done: 0,
    fanout_progress: [55, 85] as [number, number],
  };

  it('moves across the fanning stage range as units finish', () => {
    expect(jobProgress(base)).toBe(55);
    expect(jobProgress({ ...base, fanout_done: 4 })).toBe(70);
    expect(jobProgress({ ...base, fanout_done: 8 })).toBe(85);
    expect(jobProgress({ ...base, fanout_done: 9 })).toBe(85);
  });

  it('is the stored percent outside a fan-out', () => {
    expect(jobProgress({ ...base, stage_state: 'running', fanout_done: 4 })).toBe(55);
    expect(jobProgress({ ...base, fanout_progress: null, fanout_done: 4 })).toBe(55);
    expect(jobProgress({ ...base, fanout_total: 0 })).toBe(55);
  });
});

describe('job statuses', () => {
  it('calls pending through synthesizing the processing states, and nothing else', () => {
    expect(JOB_STATUSES.filter(isProcessing)).toEqual([
      'pending',
      'extracting',
      'transcribing',
      'segmenting',
      'analyzing',
      'synthesizing',
    ]);
  });

  it('starts a job from awaiting_grouping, awaiting_confirmation or error only', () => {
    expect(STARTABLE_STATUSES).toEqual(['awaiting_grouping', 'awaiting_confirmation', 'error']);
    expect(STARTABLE_STATUSES.some(isProcessing)).toBe(false);
  });
});

describe('statusAfterPreparing', () => {
  it('hands a read job on to grouping, and ends the reader of a claim-level import complete', () => {
    expect(statusAfterPreparing({})).toBe('awaiting_grouping');
    expect(statusAfterPreparing({ reads_batch_id: null })).toBe('awaiting_grouping');
    expect(statusAfterPreparing({ reads_batch_id: 'b1' })).toBe('complete');
  });
});
