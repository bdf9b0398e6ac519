import {
  branchesProgress,
  branchPathNames,
  branchStatus,
  doneBranches,
  openedBranches,
  stepKey,
} from '../../../lib/orchestrator/branch-rules';
import type { BranchStage } from '../../../lib/orchestrator/pipeline';

const step = { run: async () => ({ kind: 'next' as const }) };
const stage: BranchStage = {
  name: 'extract',
  status: 'extracting',
  progress: [0, 40],
  branches: [
    { name: 'frames', ...step },
    { name: 'transcript', ...step },
  ],
  statusWhile: (done) => (done.includes('frames') ? 'transcribing' : 'extracting'),
};

describe('openedBranches', () => {
  it('queues every branch', () => {
    expect(openedBranches(stage)).toEqual({ frames: { state: 'queued' }, transcript: { state: 'queued' } });
  });
});

describe('doneBranches', () => {
  it('names the branches done, in the declared order', () => {
    expect(doneBranches(stage, { transcript: { state: 'done' }, frames: { state: 'done' } })).toEqual([
      'frames',
      'transcript',
    ]);
    expect(doneBranches(stage, { frames: { state: 'fanout' }, transcript: { state: 'done' } })).toEqual(['transcript']);
    expect(doneBranches(stage, null)).toEqual([]);
  });
});

describe('branchStatus', () => {
  it("follows the stage's rule", () => {
    expect(branchStatus(stage, [])).toBe('extracting');
    expect(branchStatus(stage, ['transcript'])).toBe('extracting');
    expect(branchStatus(stage, ['frames'])).toBe('transcribing');
  });

  it("is the stage's status throughout without a rule", () => {
    expect(branchStatus({ ...stage, statusWhile: undefined }, ['frames'])).toBe('extracting');
  });
});

describe('branchesProgress', () => {
  it('is the mean of the branches across the stage range', () => {
    expect(branchesProgress(stage, undefined)).toBe(0);
    expect(branchesProgress(stage, { frames: { state: 'done' }, transcript: { state: 'running' } })).toBe(20);
    expect(branchesProgress(stage, { frames: { state: 'done' }, transcript: { state: 'done' } })).toBe(40);
  });

  it('counts a fan-out by its units done and a run by its heartbeat fraction', () => {
    const fanout = { state: 'fanout' as const, fanout_total: 4, fanout_done: 1 };
    expect(branchesProgress(stage, { frames: fanout, transcript: { state: 'running', fraction: 0.5 } })).toBe(15);
    // A fan-out with nothing counted yet, an out-of-range fraction, a queued branch.
    expect(
      branchesProgress(stage, { frames: { state: 'fanout', fanout_total: 0 }, transcript: { state: 'queued' } }),
    ).toBe(0);
    expect(branchesProgress(stage, { frames: { state: 'running', fraction: 3 } })).toBe(20);
    expect(branchesProgress(stage, { frames: { state: 'running', fraction: -1 } })).toBe(0);
    // A fan-out whose size or count is not recorded yet counts as not started.
    expect(branchesProgress(stage, { frames: { state: 'fanout' } })).toBe(0);
    expect(branchesProgress(stage, { frames: { state: 'fanout', fanout_total: 2 } })).toBe(0);
  });
});

describe('keys', () => {
  it("keys a branch's units under its stage", () => {
    expect(stepKey('extract')).toBe('extract');
    expect(stepKey('extract', 'frames')).toBe('extract/frames');
  });

  it('names the branch state path with upper-case placeholders', () => {
    expect(branchPathNames('frames')).toEqual({ '#B_MAP': 'branches', '#B_NAME': 'frames', '#B_STATE': 'state' });
  });
});
