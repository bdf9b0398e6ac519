/**
 * Branch stages: a stage made of branches that run side by side (video:
 * frames ‖ transcript), each a step of its own.
 *
 *  - The stage message takes the stage (queued → 'branches', every branch
 *    queued in the run's `branches` map) and sends one branch message per
 *    branch; it runs nothing itself.
 *  - A branch message runs its branch only after a conditional lease on the
 *    branch's entry (same run, same stage, branch queued), exactly like a
 *    stage's lease, so a duplicated or late branch message never runs it
 *    twice. The branch's `run` may fan out: its units are counted into the
 *    branch's own counters (store.ts: finishAndCountBranch).
 *  - A branch ends in ONE conditional write that marks it done, adds 1 to
 *    the job's `branches_done` (conditioned on the value read) and sets the
 *    status the pipeline declares for the branches done so far; for a
 *    fan-out branch that write is part of its last unit's fan-in
 *    transaction. Whoever's write makes `branches_done` reach the number of
 *    branches joins: it advances the job (advance() in transitions.ts is
 *    conditioned on every branch being done), and the watchdog advances a
 *    joined stage whose joiner died first.
 *  - A branch whose lease expired is an interruption of the run, handled by
 *    recovery.ts as any stage's.
 */
import { randomUUID } from 'node:crypto';
import { endsInvocation } from '../faults/fault-points';
import { inRunSpan } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import { advance, timing } from './advance';
import { branchPathNames, branchStatus, doneBranches, openedBranches, stepKey } from './branch-rules';
import { branchContextFor, errorText, raiseBranchProgress, withHeartbeat } from './context';
import type { AnyBranchStage, RunPipeline } from './pipeline';
import { handlePossibleInterruption } from './recovery';
import type { RunKind, RunRecord } from './run-kind';
import { leaseUntil, type BranchClosing } from './store';
import { PipelineFailure } from './terminal';
import { sendBranch, sendUnit, stageOf, type StageMessage } from './transitions';

/** Takes a queued branch stage for its run and sends every branch its message. */
export async function openBranchStage(kind: RunKind, job: RunRecord, stage: AnyBranchStage): Promise<void> {
  const now = new Date().toISOString();
  const opened = await kind.update(job.id, {
    set: {
      status: branchStatus(stage, []),
      current_stage: stage.name,
      progress_pct: stage.progress[0],
      stage_state: 'branches',
      stage_runner: null,
      stage_lease_until: null,
      branches: openedBranches(stage),
      branches_done: 0,
      heartbeat_at: now,
      [`stage_timings.${stage.name}`]: { started_at: now, finished_at: null, seconds: null },
    },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :queued',
    values: { ':run': job.run_id, ':stage': stage.name, ':queued': 'queued' },
  });
  if (!opened) return; // a duplicate: the stage is open already (or the run moved on)
  await kind
    .log(job.id)
    .info(`Stage ${stage.name} started: ${stage.branches.map((b) => b.name).join(' ‖ ')} side by side`);
  // Should this worker die here, the watchdog sends the branches still queued.
  await Promise.all(stage.branches.map((b) => sendBranch(kind.name, opened, b.name)));
}

/** Handles one branch message of an open branch stage. */
export async function handleBranchMessage(
  kind: RunKind,
  job: RunRecord,
  message: StageMessage & { branch: string },
  pipeline: RunPipeline,
  stage: AnyBranchStage,
): Promise<void> {
  const branch = message.branch;
  const def = stage.branches.find((b) => b.name === branch);
  if (!def) {
    await kind.fail(job, `The ${job.pipeline} pipeline has no branch ${branch} in ${stage.name}.`);
    return;
  }
  const runner = randomUUID();
  const now = new Date().toISOString();
  const claimed = await kind.update(job.id, {
    set: {
      [`branches.${branch}`]: { state: 'running', runner, lease_until: leaseUntil(), fraction: 0 },
      heartbeat_at: now,
      [`stage_timings.${stepKey(stage.name, branch)}`]: { started_at: now, finished_at: null, seconds: null },
    },
    condition:
      'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :queued',
    values: { ':run': job.run_id, ':stage': stage.name, ':in_branches': 'branches', ':queued': 'queued' },
    names: branchPathNames(branch),
  });
  if (!claimed) {
    await handlePossibleInterruption(kind, job.id, message.run_id, branch);
    return;
  }

  const ctx = branchContextFor(kind, claimed, stage, branch);
  await ctx.log.info(`Branch ${branch} of ${stage.name} started`);
  let outcome: Awaited<ReturnType<typeof def.run>>;
  const key = stepKey(stage.name, branch);
  try {
    outcome = await inRunSpan(
      `stage.${stage.name}.${branch}`,
      claimed.trace_parent,
      { [`${kind.name}.id`]: claimed.id, [`${kind.name}.pipeline`]: claimed.pipeline ?? 'none', 'pipeline.stage': key },
      () => withHeartbeat(ctx, () => def.run(ctx)),
    );
  } catch (err) {
    if (endsInvocation(err)) throw err; // a crash fails nothing: the branch's lease runs out
    await kind.fail(
      claimed,
      err instanceof PipelineFailure ? err.message : `The ${stage.name} stage failed (${branch}): ${errorText(err)}`,
    );
    return;
  }

  if (outcome.kind === 'fanout' && outcome.units > 0) {
    const inFlight = Math.min(Math.max(1, outcome.concurrency), outcome.units);
    const fanning = await kind.update(job.id, {
      set: {
        ...(outcome.set ?? {}),
        [`branches.${branch}.state`]: 'fanout',
        [`branches.${branch}.fanout_total`]: outcome.units,
        [`branches.${branch}.fanout_next`]: inFlight,
        [`branches.${branch}.fanout_done`]: 0,
      },
      condition:
        'run_id = :run AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :running AND #B_MAP.#B_NAME.runner = :runner',
      values: { ':run': claimed.run_id, ':in_branches': 'branches', ':running': 'running', ':runner': runner },
      names: branchPathNames(branch),
    });
    if (!fanning) return; // the lease was lost (the run restarted after it expired)
    await ctx.log.info(`Branch ${branch} of ${stage.name}: ${outcome.units} units, ${inFlight} at a time`);
    await Promise.all(Array.from({ length: inFlight }, (_, index) => sendUnit(kind.name, fanning, index, branch)));
    return;
  }
  await finishBranch(kind, claimed, pipeline, stage, branch, runner, outcome.set);
}

/** A branch's lease holder found the join count moved under it (another branch finished first). */
class JoinMoved extends Error {}

/** Ends a branch that ran without a fan-out (or fanned out zero units), under its lease. */
async function finishBranch(
  kind: RunKind,
  job: RunRecord,
  pipeline: RunPipeline,
  stage: AnyBranchStage,
  branch: string,
  runner: string,
  set: Record<string, unknown> | undefined,
): Promise<void> {
  const closing = branchClosing(stage, branch, set);
  const attempt = async (): Promise<RunRecord | null> => {
    const current = await kind.get(job.id);
    const run = current?.branches?.[branch];
    if (!current || current.run_id !== job.run_id || current.stage_state !== 'branches' || run?.runner !== runner)
      return null; // the lease was lost: the run restarted
    if (run.state !== 'running') return null;
    const close = closing(current);
    const closed = await kind.update(job.id, {
      set: close.set,
      condition: `run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :running AND #B_MAP.#B_NAME.runner = :runner AND ${close.condition}`,
      values: {
        ...close.values,
        ':run': job.run_id,
        ':stage': stage.name,
        ':in_branches': 'branches',
        ':running': 'running',
        ':runner': runner,
      },
      names: branchPathNames(branch),
    });
    if (!closed) throw new JoinMoved('another branch finished first');
    return closed;
  };
  const closed = await withRetry(attempt, {
    attempts: 12,
    backoffMs: 20,
    maxBackoffMs: 1000,
    jitter: true,
    retryable: (err) => err instanceof JoinMoved,
  });
  if (closed) await afterBranchDone(kind, closed, pipeline, stage, branch);
}

/**
 * The fields of the write that ends a branch: the branch done, counted into
 * the join (conditioned on the count read, so two branches ending together
 * cannot both see themselves as the first), and, while others still run,
 * the status for the branches now done.
 */
export function branchClosing(stage: AnyBranchStage, branch: string, set?: Record<string, unknown>): BranchClosing {
  return (current) => {
    const done = doneBranches(stage, { ...current.branches, [branch]: { state: 'done' } });
    const key = stepKey(stage.name, branch);
    return {
      set: {
        ...(set ?? {}),
        [`branches.${branch}.state`]: 'done',
        branches_done: (current.branches_done ?? 0) + 1,
        // The last branch leaves the status alone: the next stage sets its own.
        ...(done.length < stage.branches.length ? { status: branchStatus(stage, done) } : {}),
        [`stage_timings.${key}`]: timing(current, key, new Date().toISOString()),
      },
      condition: 'branches_done = :seen_join',
      values: { ':seen_join': current.branches_done ?? 0 },
    };
  };
}

/** After a branch's closing write: the run's progress follows, and the write that completed the join advances. */
export async function afterBranchDone(
  kind: RunKind,
  job: RunRecord,
  pipeline: RunPipeline,
  stage: AnyBranchStage,
  branch: string,
): Promise<void> {
  await kind.log(job.id).info(`Branch ${branch} of ${stage.name} finished`);
  if ((job.branches_done ?? 0) < stage.branches.length) {
    await raiseBranchProgress(kind, job, stage).catch((err) =>
      logger.warn('branch progress not written', { kind: kind.name, id: job.id, error: errorText(err) }),
    );
    return;
  }
  const at = stageOf(pipeline, stage.name);
  if (at) await advance(kind, job, pipeline, at.index, {});
}
