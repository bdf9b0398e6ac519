/**
 * Interruptions and the watchdog (spec: States and transitions, the
 * processing-state rows), for every run kind (run-kind.ts; a job's texts and
 * statuses in parentheses):
 *  - first interruption → restarted (pending, 'Restarting after an
 *    interruption'), partial results cleared, recovery_attempts incremented;
 *    a kind may instead end the run at once (a stage only its request runs);
 *  - second interruption → the kind's failure (error, refund, retryable message);
 *  - a stage whose lease ran out with no heartbeat for a minute → recovered
 *    at once (its worker is gone);
 *  - quiet longer than STUCK_JOB_MINUTES → requeue if orphaned (its message
 *    was lost), recover if its worker died (a stage's or a branch's lease
 *    expired), advance a fan-out whose units are all done (the worker that
 *    finished the last one died before advancing) or a joined branch stage,
 *    fail if hung (quiet longer than STUCK_JOB_MINUTES_WITH_QUEUE while still
 *    holding its lease);
 *  - older than the kind's time limit (JOB_TIMEOUT_S), or stuck longer than
 *    24 hours → failed, never requeued.
 */
import { randomUUID } from 'node:crypto';
import { PING_BODY } from '../queue/worker-ping';
import { settings } from '../config';
import { ConflictError, NotFoundError } from '../errors';
import type { Job } from '../jobs/job-record-rules';
import { isProcessing } from '../jobs/job-rules';
import { jobView } from '../jobs/view';
import { type SweepJobs, watchdogSweepReport } from '../observability/error-report-rules';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { sendToQueue } from '../queue/queues';
import { advance } from './advance';
import { branchPathNames, stepKey } from './branch-rules';
import { jobRunKind } from './job-run-kind';
import { getPipeline, isBranchStage } from './pipeline';
import type { RunLog } from './pipeline';
import type { RunKind, RunRecord, WatchdogAction } from './run-kind';
import { runKinds } from './run-kinds';
import { listUnits, type UnitRecord } from './store';
import { queuedStage, sendBranch, sendStage, sendUnit, stageOf } from './transitions';

export const RESTARTING = 'Restarting after an interruption';
const DAY_MS = 86_400_000;
/** A live worker renews its run's heartbeat every 15 s: this long without one, with its lease run out, it is gone. */
const DEAD_WORKER_QUIET_MS = 60_000;
const leaseRanOut = (record: RunRecord, now: Date) =>
  Boolean(record.stage_lease_until) && (record.stage_lease_until as string) < now.toISOString();
const notAvailable = (record: RunRecord) => `The ${record.pipeline} pipeline is not available in this deployment.`;

/** Called when a stage (or branch) message could not take its lease: was it because the holder died? */
export async function handlePossibleInterruption(
  kind: RunKind,
  id: string,
  runId: string,
  branch?: string,
  now = new Date(),
): Promise<void> {
  const record = await kind.get(id);
  if (!record || record.run_id !== runId) return;
  if (branch) {
    if (record.stage_state === 'branches' && branchLeaseExpired(record, branch, now))
      await recoverInterrupted(kind, record, now, branch);
    return;
  }
  if (record.stage_state !== 'running') return;
  if (leaseRanOut(record, now)) await recoverInterrupted(kind, record, now);
}

const branchLeaseExpired = (record: RunRecord, branch: string, now: Date) => {
  const run = record.branches?.[branch];
  return run?.state === 'running' && Boolean(run.lease_until) && (run.lease_until as string) < now.toISOString();
};

/**
 * A dead worker interrupts the run, whether it ran a stage or one branch of
 * a branch stage: the first interruption restarts the whole run from the
 * first stage (when its kind restarts runs), the second fails it. A branch
 * is not restarted on its own: the interruption rules (one restart, partial
 * results cleared, a fresh run) are the run's, and a new run_id is what keeps
 * every record and message of the interrupted run (its other branches'
 * results and units included) from mixing with the new one.
 */
async function recoverInterrupted(
  kind: RunKind,
  record: RunRecord,
  now = new Date(),
  branch?: string,
): Promise<'restarted' | 'failed' | 'raced'> {
  const pipeline = record.pipeline ? getPipeline(record.pipeline) : undefined;
  if (!pipeline) return (await kind.fail(record, notAvailable(record))) ? 'failed' : 'raced';
  const restart = kind.restartFields(record, pipeline);
  if (!restart || record.recovery_attempts >= 1)
    return (await kind.fail(record, kind.messages.interrupted)) ? 'failed' : 'raced';
  const at = now.toISOString();
  const restarted = await kind.update(
    record.id,
    {
      expectStatus: kind.runningStatuses,
      set: {
        current_stage: RESTARTING,
        ...restart.set,
        progress_pct: 0,
        run_id: randomUUID(),
        ...queuedStage(restart.from ?? pipeline.stages[0].name),
        heartbeat_at: at,
      },
      add: { recovery_attempts: 1 },
      // Only one of several detectors (redelivery, watchdog) wins the restart.
      ...(branch
        ? {
            condition:
              'run_id = :run AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :running AND #B_MAP.#B_NAME.lease_until < :now',
            values: { ':run': record.run_id, ':in_branches': 'branches', ':running': 'running', ':now': at },
            names: branchPathNames(branch),
          }
        : {
            condition: 'run_id = :run AND stage_state = :running AND stage_lease_until < :now',
            values: { ':run': record.run_id, ':running': 'running', ':now': at },
          }),
    },
    now,
  );
  if (!restarted) return 'raced';
  await pipeline.clearPartialResults?.(restarted);
  await kind.log(record.id).warn(`${RESTARTING} (stage ${record.stage_name}${branch ? `, branch ${branch}` : ''})`);
  await sendStage(kind.name, restarted);
  return 'restarted';
}

export interface WatchdogReport {
  checked: number;
  requeued: number;
  recovered: number;
  failed: number;
  /** The ids of the jobs each action touched, for the operator who reads the sweep's report. */
  jobs: SweepJobs;
}

export async function runWatchdog(now = new Date()): Promise<WatchdogReport> {
  let checked = 0;
  const jobs: SweepJobs = { requeued: [], recovered: [], failed: [] };
  const unread: string[] = [];
  // Each kind's open-runs index is sparse (runs under way only), so every one is looked at:
  // the age limits apply even to a run that keeps heartbeating. A kind whose index cannot be read skips no other.
  for (const kind of runKinds()) {
    try {
      for await (const id of kind.activeIds()) {
        const record = await kind.get(id);
        if (!record || !kind.runningStatuses.includes(record.status)) continue;
        checked++;
        try {
          const action = await inspect(kind, record, now);
          if (action) jobs[action].push(kind.name === 'job' ? record.id : `${kind.name}:${record.id}`);
        } catch (err) {
          logger.error('watchdog could not handle a run', { kind: kind.name, id: record.id, error: String(err) });
        }
      }
    } catch (err) {
      logger.error('watchdog could not read the open runs of a kind', { kind: kind.name, error: String(err) });
      unread.push(`${kind.name} (${String(err)})`);
    }
  }
  const report: WatchdogReport = {
    checked,
    requeued: jobs.requeued.length,
    recovered: jobs.recovered.length,
    failed: jobs.failed.length,
    jobs,
  };
  logger.info('watchdog sweep', { ...report });
  // Error tracking hears of the sweeps that acted (spec: Outbound signals, watchdog sweep counts).
  const sweep = watchdogSweepReport(report);
  if (sweep) reportError(sweep);
  await sendToQueue('stages', JSON.parse(PING_BODY)).catch((err) =>
    logger.error('watchdog could not ping the stage workers', { error: String(err) }),
  );
  // The schedule's report names the part failed (lib/background/watchdog-parts.ts), after every kind was looked at.
  if (unread.length) throw new Error(`the open runs of ${unread.join(', ')} could not be read`);
  return report;
}

async function inspect(kind: RunKind, record: RunRecord, now: Date): Promise<WatchdogAction | null> {
  const config = settings();
  const waiting = !record.run_id && kind.inspectWaiting ? await kind.inspectWaiting(record, now) : null;
  if (waiting) return waiting.action;
  const fail = async (message: string) => ((await kind.fail(record, message)) ? 'failed' : null);
  const startedAt = Date.parse(record.started_at ?? record.created_at);
  if (now.getTime() - startedAt > DAY_MS) return fail(kind.messages.stuckForADay);
  if (now.getTime() - startedAt > kind.timeoutSeconds() * 1000)
    return fail(kind.messages.timedOut(Math.round(kind.timeoutSeconds() / 60)));
  const quietMs = now.getTime() - Date.parse(record.heartbeat_at ?? record.updated_at);
  // A stage whose lease ran out and that no heartbeat has renewed for a while has lost its worker: it is
  // recovered at once, not after the quiet threshold meant for lost messages.
  if (record.stage_state === 'running' && leaseRanOut(record, now) && quietMs > DEAD_WORKER_QUIET_MS)
    return (await recoverInterrupted(kind, record, now)) === 'restarted' ? 'recovered' : 'failed';
  if (quietMs <= config.STUCK_JOB_MINUTES * 60_000) return null;
  const hung = quietMs > config.STUCK_JOB_MINUTES_WITH_QUEUE * 60_000;
  const log = kind.log(record.id);
  switch (record.stage_state) {
    case 'queued':
      // Orphaned: the stage message was lost (or never sent). Resending is safe: the lease decides.
      await log.warn(`Watchdog: stage ${record.stage_name} was queued but not picked up; requeued`);
      await touch(kind, record, now);
      await sendStage(kind.name, record);
      return 'requeued';
    case 'fanout': {
      const units = await listUnits(kind, record, record.stage_name as string);
      const done = new Set(units.filter((u) => u.state === 'done').map((u) => u.index));
      if (record.fanout_total > 0 && done.size >= record.fanout_total)
        return (await advanceFinishedFanout(kind, record, log)) ? 'recovered' : null;
      const resent = await resendUnfinishedUnits(kind, record, units, now, {
        next: record.fanout_next,
        total: record.fanout_total,
      });
      if (resent > 0) {
        await log.warn(`Watchdog: ${resent} unit(s) of ${record.stage_name} were not finished; requeued`);
        await touch(kind, record, now);
        return 'requeued';
      }
      return hung ? fail(kind.messages.hung) : null;
    }
    case 'running':
      if (leaseRanOut(record, now))
        return (await recoverInterrupted(kind, record, now)) === 'restarted' ? 'recovered' : 'failed';
      return hung ? fail(kind.messages.hung) : null;
    case 'branches':
      return inspectBranches(kind, record, now, hung, log);
    default:
      return null;
  }
}

/**
 * A quiet branch stage: joined but not advanced (the joiner died) → advance;
 * a branch whose lease expired → an interruption; branches still queued
 * (their messages lost) and units of a branch's fan-out that were lost or
 * orphaned → sent again; nothing of that and quiet past the queue threshold
 * → hung.
 */
async function inspectBranches(
  kind: RunKind,
  record: RunRecord,
  now: Date,
  hung: boolean,
  log: RunLog,
): Promise<WatchdogAction | null> {
  const pipeline = record.pipeline ? getPipeline(record.pipeline) : undefined;
  const stage = pipeline && stageOf(pipeline, record.stage_name as string);
  if (!pipeline || !stage || !isBranchStage(stage.def))
    return (await kind.fail(record, notAvailable(record))) ? 'failed' : null;
  const def = stage.def;
  if ((record.branches_done ?? 0) >= def.branches.length) {
    await log.warn(`Watchdog: every branch of ${def.name} was done but the stage had not moved on; advanced`);
    return (await advance(kind, record, pipeline, stage.index, {})) ? 'recovered' : null;
  }
  const dead = def.branches.find((b) => branchLeaseExpired(record, b.name, now));
  if (dead) return (await recoverInterrupted(kind, record, now, dead.name)) === 'restarted' ? 'recovered' : 'failed';
  let resent = 0;
  for (const branch of def.branches) {
    const run = record.branches?.[branch.name];
    if (!run || run.state === 'queued') {
      await sendBranch(kind.name, record, branch.name);
      resent++;
    } else if (run.state === 'fanout') {
      // A fan-out branch whose units are all done is closed by its last count (one transaction with it).
      const units = await listUnits(kind, record, stepKey(def.name, branch.name));
      resent += await resendUnfinishedUnits(kind, record, units, now, {
        next: run.fanout_next ?? 0,
        total: run.fanout_total ?? 0,
        branch: branch.name,
      });
    }
  }
  if (resent > 0) {
    await log.warn(`Watchdog: ${resent} branch or unit message(s) of ${def.name} were not finished; requeued`);
    await touch(kind, record, now);
    return 'requeued';
  }
  return hung && (await kind.fail(record, kind.messages.hung)) ? 'failed' : null;
}

/**
 * Every unit is done, but the stage did not move on: the worker that counted
 * the last unit died before advancing (or, before the count and the unit were
 * one write, a count was lost). The work is all there, so the stage advances.
 */
async function advanceFinishedFanout(kind: RunKind, record: RunRecord, log: RunLog): Promise<boolean> {
  const pipeline = record.pipeline ? getPipeline(record.pipeline) : undefined;
  const stage = pipeline && stageOf(pipeline, record.stage_name as string);
  if (!pipeline || !stage) return Boolean(await kind.fail(record, notAvailable(record)));
  await log.warn(`Watchdog: every unit of ${stage.def.name} was done but the stage had not moved on; advanced`);
  return advance(kind, record, pipeline, stage.index, {});
}

/** Resends units of a fan-out whose messages were lost, or whose worker died (expired lease); returns how many. */
async function resendUnfinishedUnits(
  kind: RunKind,
  record: RunRecord,
  units: UnitRecord[],
  now: Date,
  fanout: { next: number; total: number; branch?: string },
): Promise<number> {
  const byIndex = new Map(units.map((u) => [u.index, u]));
  let resent = 0;
  for (let index = 0; index < Math.min(fanout.next, fanout.total); index++) {
    const unit = byIndex.get(index);
    if (unit?.state === 'done') continue;
    if (unit?.state === 'running' && unit.lease_until > now.toISOString()) continue;
    await sendUnit(kind.name, record, index, fanout.branch);
    resent++;
  }
  return resent;
}

async function touch(kind: RunKind, record: RunRecord, now: Date): Promise<void> {
  await kind.update(
    record.id,
    { set: { heartbeat_at: now.toISOString() }, condition: 'run_id = :run', values: { ':run': record.run_id } },
    now,
  );
}

/** POST /api/admin/jobs/{id}/dismiss: a hung job is failed with a retryable message and refunded. */
export async function dismissJob(job: Job): Promise<Job> {
  if (!isProcessing(job.status))
    throw new ConflictError(`Only a processing job can be dismissed; this one is ${job.status}.`);
  const failed = await jobRunKind.fail(job, jobRunKind.messages.dismissed);
  if (!failed) throw new ConflictError('The job finished or changed while it was being dismissed.');
  return failed;
}

/** The admin route: not team-scoped. */
export async function dismissJobById(jobId: string) {
  const job = await jobRunKind.get(jobId);
  if (!job) throw new NotFoundError('Job not found');
  return jobView(await dismissJob(job));
}
