/**
 * What a step (a stage, or one branch of a branch stage) runs with: its
 * kind's context (the record, its log, a heartbeat) and the timer that keeps
 * the run's heartbeat fresh while it runs. Shared by engine.ts and
 * branches.ts.
 */
import { branchesProgress } from './branch-rules';
import type { AnyBranchStage, AnyStageDefinition, RunContext } from './pipeline';
import type { RunKind, RunRecord } from './run-kind';

const HEARTBEAT_MS = 15_000;

const sameRun = (record: Pick<RunRecord, 'run_id'>) => ({
  condition: 'run_id = :run',
  values: { ':run': record.run_id },
});

export function contextFor(kind: RunKind, record: RunRecord, def: AnyStageDefinition): RunContext {
  const [from, to] = def.progress;
  return kind.context(record, async (fraction?: number) => {
    const set: Record<string, unknown> = { heartbeat_at: new Date().toISOString() };
    if (fraction !== undefined) set.progress_pct = Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
    await kind.update(record.id, { set, ...sameRun(record) });
  });
}

/**
 * A branch's context: its heartbeat's fraction is the branch's own progress;
 * the run's progress is the mean over the branches, and only ever rises
 * (branches beat independently, so a write computed from an older read must
 * not lower it).
 */
export function branchContextFor(kind: RunKind, record: RunRecord, stage: AnyBranchStage, branch: string): RunContext {
  const inStage = {
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches',
    values: { ':run': record.run_id, ':stage': stage.name, ':in_branches': 'branches' },
  };
  return kind.context(record, async (fraction?: number) => {
    const set: Record<string, unknown> = { heartbeat_at: new Date().toISOString() };
    if (fraction !== undefined) set[`branches.${branch}.fraction`] = Math.min(1, Math.max(0, fraction));
    const beaten = await kind.update(record.id, { set, ...inStage });
    if (beaten && fraction !== undefined) await raiseBranchProgress(kind, beaten, stage);
  });
}

/** Moves the run's progress up to what its branches add up to, never down. */
export async function raiseBranchProgress(kind: RunKind, record: RunRecord, stage: AnyBranchStage): Promise<void> {
  const pct = branchesProgress(stage, record.branches);
  await kind.update(record.id, {
    set: { progress_pct: pct },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND progress_pct < :pct',
    values: { ':run': record.run_id, ':stage': stage.name, ':in_branches': 'branches', ':pct': pct },
  });
}

/** Runs `work` while a timer keeps the run's heartbeat fresh. */
export async function withHeartbeat<T>(ctx: RunContext, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void ctx.heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
