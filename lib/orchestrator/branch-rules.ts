/**
 * Pure rules of a stage whose branches run side by side: the branch states
 * it starts with, which branches are done, the run's status and progress
 * while they run, and the key a branch's unit rows and timings go under.
 */
import type { BranchRun } from '../db/run-state';
import type { BranchStage } from './pipeline';

/** A branch stage of any kind's pipeline, with its statuses `S`. */
// biome-ignore lint/suspicious/noExplicitAny: each kind types its own contexts and records.
type AnyBranchStage<S extends string = string> = BranchStage<any, any, S>;

/** Every branch queued: the state a branch stage starts in. */
export function openedBranches(stage: AnyBranchStage): Record<string, BranchRun> {
  return Object.fromEntries(stage.branches.map((b) => [b.name, { state: 'queued' } satisfies BranchRun]));
}

/** Names of the branches that are done, in the declared order. */
export function doneBranches(stage: AnyBranchStage, branches: Record<string, BranchRun> | null | undefined): string[] {
  return stage.branches.map((b) => b.name).filter((name) => branches?.[name]?.state === 'done');
}

/** The run's status while the branches run, given those done. */
export function branchStatus<S extends string>(stage: AnyBranchStage<S>, done: readonly string[]): S {
  return stage.statusWhile?.(done) ?? stage.status;
}

/** How far a branch is (0..1): done 1, a fan-out by its units done, a run by its last heartbeat. */
function branchFraction(run: BranchRun | undefined): number {
  if (!run) return 0;
  if (run.state === 'done') return 1;
  if (run.state === 'fanout' && (run.fanout_total ?? 0) > 0)
    return Math.min(1, (run.fanout_done ?? 0) / (run.fanout_total as number));
  return Math.min(1, Math.max(0, run.fraction ?? 0));
}

/** Progress across the stage's range: the mean of its branches' fractions (each branch weighs the same). */
export function branchesProgress(
  stage: AnyBranchStage,
  branches: Record<string, BranchRun> | null | undefined,
): number {
  const [from, to] = stage.progress;
  const sum = stage.branches.reduce((total, b) => total + branchFraction(branches?.[b.name]), 0);
  return Math.round(from + ((to - from) * sum) / stage.branches.length);
}

/** The key of a step's unit rows and timing: the stage's name, or '<stage>/<branch>' for a branch. */
export const stepKey = (stage: string, branch?: string) => (branch ? `${stage}/${branch}` : stage);

/**
 * Expression placeholders for the path branches.<branch>.state. Upper case,
 * so they never meet the lower-case placeholders a job update makes of field
 * and branch names (`#status`, `#frames`).
 */
export const branchPathNames = (branch: string) => ({ '#B_MAP': 'branches', '#B_NAME': branch, '#B_STATE': 'state' });
