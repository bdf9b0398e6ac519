/**
 * Interruptions and the watchdog (spec: States and transitions, the
 * processing-state rows):
 *  - first interruption → pending with 'Restarting after an interruption',
 *    partial results cleared, recovery_attempts incremented, run restarted;
 *  - second interruption → error, refund, retryable message;
 *  - quiet longer than STUCK_JOB_MINUTES → requeue if orphaned (its message
 *    was lost), recover if its worker died (a stage's or a branch's lease
 *    expired), advance a fan-out whose units are all done (the worker that
 *    finished the last one died before advancing) or a joined branch stage,
 *    fail if hung (quiet longer than STUCK_JOB_MINUTES_WITH_QUEUE while still
 *    holding its lease);
 *  - older than JOB_TIMEOUT_S, or stuck longer than 24 hours → error, refund,
 *    never requeued.
 */
import { randomUUID } from 'node:crypto';
import { PING_BODY } from '../background/heartbeat';
import { settings } from '../config';
import { ConflictError, NotFoundError } from '../errors';
import { getJob, updateJob, type Job } from '../jobs/job-store';
import { isProcessing, isRunning, PREPARING_STATUSES, RUNNING_STATUSES } from '../jobs/job-rules';
import { JobLog } from '../jobs/log-store';
import { jobView } from '../jobs/view';
import { type SweepJobs, watchdogSweepReport } from '../observability/error-report-rules';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { sendToQueue } from '../queue/queues';
import { branchPathNames, stepKey } from './branch-rules';
import { getPipeline, isBranchStage, preparingPipelineFor } from './pipeline';
import { activeJobIds, listUnits, type UnitRecord } from './store';
import { failJob } from './terminal';
import { advance } from './advance';
import { queuedStage, sendBranch, sendStage, sendUnit, stageOf } from './transitions';

export const RESTARTING = 'Restarting after an interruption';
export const INTERRUPTED_TWICE = 'Processing was interrupted twice. Nothing was charged; please process the job again.';
export const STUCK_FOR_A_DAY = 'Processing stopped: the job was stuck for more than 24 hours. Nothing was charged.';
const HUNG = 'Processing stopped: the job stopped making progress. Nothing was charged; please process it again.';
const DISMISSED = 'Stopped by an administrator. Nothing was charged; please process the job again.';
const DAY_MS = 86_400_000;
const NOTHING_CONFIRMED =
  'No contents list was confirmed for this upload before its upload links expired; the photos that arrived are ready for grouping.';
/** How long after its upload links expire a preparing job that never started is left alone. */
const UNCONFIRMED_GRACE_SECONDS = 600;

/** Called when a stage (or branch) message could not take its lease: was it because the holder died? */
export async function handlePossibleInterruption(
  jobId: string,
  runId: string,
  branch?: string,
  now = new Date(),
): Promise<void> {
  const job = await getJob(jobId);
  if (!job || job.run_id !== runId) return;
  if (branch) {
    if (job.stage_state === 'branches' && branchLeaseExpired(job, branch, now))
      await recoverInterrupted(job, now, branch);
    return;
  }
  if (job.stage_state !== 'running') return;
  if (job.stage_lease_until && job.stage_lease_until < now.toISOString()) await recoverInterrupted(job, now);
}

const branchLeaseExpired = (job: Job, branch: string, now: Date) => {
  const run = job.branches?.[branch];
  return run?.state === 'running' && Boolean(run.lease_until) && (run.lease_until as string) < now.toISOString();
};

/**
 * A dead worker interrupts the job, whether it ran a stage or one branch of
 * a branch stage: the first interruption restarts the whole run from the
 * first stage, the second fails the job. A branch is not restarted on its
 * own: the interruption rules (one restart, partial results cleared, a fresh
 * run) are the job's, and a new run_id is what keeps every record and message
 * of the interrupted run (its other branches' results and units included)
 * from mixing with the new one.
 */
async function recoverInterrupted(
  job: Job,
  now = new Date(),
  branch?: string,
): Promise<'restarted' | 'failed' | 'raced'> {
  const pipeline = job.pipeline ? getPipeline(job.pipeline) : undefined;
  if (!pipeline)
    return (await failJob(job, `The ${job.pipeline} pipeline is not available in this deployment.`))
      ? 'failed'
      : 'raced';
  if (job.recovery_attempts >= 1) return (await failJob(job, INTERRUPTED_TWICE)) ? 'failed' : 'raced';
  const at = now.toISOString();
  const restarted = await updateJob(
    job.id,
    {
      expectStatus: RUNNING_STATUSES,
      set: {
        // A preparing run restarts in its preparing status (it never passes through pending).
        status: pipeline.preparation ? pipeline.stages[0].status : 'pending',
        current_stage: RESTARTING,
        progress_pct: 0,
        run_id: randomUUID(),
        ...queuedStage(pipeline.stages[0].name),
        items_found: 0,
        heartbeat_at: at,
      },
      add: { recovery_attempts: 1 },
      // Only one of several detectors (redelivery, watchdog) wins the restart.
      ...(branch
        ? {
            condition:
              'run_id = :run AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :running AND #B_MAP.#B_NAME.lease_until < :now',
            values: { ':run': job.run_id, ':in_branches': 'branches', ':running': 'running', ':now': at },
            names: branchPathNames(branch),
          }
        : {
            condition: 'run_id = :run AND stage_state = :running AND stage_lease_until < :now',
            values: { ':run': job.run_id, ':running': 'running', ':now': at },
          }),
    },
    now,
  );
  if (!restarted) return 'raced';
  await pipeline.clearPartialResults?.(restarted);
  await new JobLog(job.id).warn(`${RESTARTING} (stage ${job.stage_name}${branch ? `, branch ${branch}` : ''})`);
  await sendStage(restarted);
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
  // The index is sparse (processing jobs only), so every one is looked at:
  // the age limits apply even to a job that keeps heartbeating.
  for await (const jobId of activeJobIds()) {
    const job = await getJob(jobId);
    if (!job || !isRunning(job.status)) continue;
    checked++;
    try {
      const action = await inspect(job, now);
      if (action) jobs[action].push(job.id);
    } catch (err) {
      logger.error('watchdog could not handle a job', { job_id: job.id, error: String(err) });
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
  return report;
}

async function inspect(job: Job, now: Date): Promise<keyof SweepJobs | null> {
  const config = settings();
  if (!job.run_id && PREPARING_STATUSES.includes(job.status)) {
    // Its files were never confirmed: once their upload links have expired, nothing more can arrive.
    const waitedMs = now.getTime() - Date.parse(job.created_at);
    if (waitedMs <= (config.PRESIGNED_URL_TTL_SECONDS + UNCONFIRMED_GRACE_SECONDS) * 1000) return null;
    const pipeline = preparingPipelineFor(job.status);
    if (!pipeline?.uploadsExpired) return (await failJob(job, NOTHING_CONFIRMED)) ? 'failed' : null;
    await new JobLog(job.id).warn('Watchdog: upload links expired before every file was confirmed; settling them');
    await pipeline.uploadsExpired(job);
    const after = await getJob(job.id);
    if (after?.run_id) return 'recovered';
    return after && PREPARING_STATUSES.includes(after.status) ? null : 'failed';
  }
  const startedAt = Date.parse(job.started_at ?? job.created_at);
  if (now.getTime() - startedAt > DAY_MS) return (await failJob(job, STUCK_FOR_A_DAY)) ? 'failed' : null;
  if (now.getTime() - startedAt > config.JOB_TIMEOUT_S * 1000) {
    return (await failJob(
      job,
      `Processing stopped: the job ran longer than ${Math.round(config.JOB_TIMEOUT_S / 60)} minutes. Nothing was charged; please process it again.`,
    ))
      ? 'failed'
      : null;
  }
  const quietMs = now.getTime() - Date.parse(job.heartbeat_at ?? job.updated_at);
  if (quietMs <= config.STUCK_JOB_MINUTES * 60_000) return null;
  const hung = quietMs > config.STUCK_JOB_MINUTES_WITH_QUEUE * 60_000;
  const log = new JobLog(job.id);
  switch (job.stage_state) {
    case 'queued':
      // Orphaned: the stage message was lost (or never sent). Resending is safe: the lease decides.
      await log.warn(`Watchdog: stage ${job.stage_name} was queued but not picked up; requeued`);
      await touch(job, now);
      await sendStage(job);
      return 'requeued';
    case 'fanout': {
      const units = await listUnits(job, job.stage_name as string);
      const done = new Set(units.filter((u) => u.state === 'done').map((u) => u.index));
      if (job.fanout_total > 0 && done.size >= job.fanout_total)
        return (await advanceFinishedFanout(job, log)) ? 'recovered' : null;
      const resent = await resendUnfinishedUnits(job, units, now, { next: job.fanout_next, total: job.fanout_total });
      if (resent > 0) {
        await log.warn(`Watchdog: ${resent} unit(s) of ${job.stage_name} were not finished; requeued`);
        await touch(job, now);
        return 'requeued';
      }
      return hung && (await failJob(job, HUNG)) ? 'failed' : null;
    }
    case 'running':
      if (job.stage_lease_until && job.stage_lease_until < now.toISOString())
        return (await recoverInterrupted(job, now)) === 'restarted' ? 'recovered' : 'failed';
      return hung && (await failJob(job, HUNG)) ? 'failed' : null;
    case 'branches':
      return inspectBranches(job, now, hung, log);
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
async function inspectBranches(job: Job, now: Date, hung: boolean, log: JobLog): Promise<keyof SweepJobs | null> {
  const pipeline = job.pipeline ? getPipeline(job.pipeline) : undefined;
  const stage = pipeline && stageOf(pipeline, job.stage_name as string);
  if (!pipeline || !stage || !isBranchStage(stage.def))
    return (await failJob(job, `The ${job.pipeline} pipeline is not available in this deployment.`)) ? 'failed' : null;
  const def = stage.def;
  if ((job.branches_done ?? 0) >= def.branches.length) {
    await log.warn(`Watchdog: every branch of ${def.name} was done but the stage had not moved on; advanced`);
    return (await advance(job, pipeline, stage.index, {})) ? 'recovered' : null;
  }
  const dead = def.branches.find((b) => branchLeaseExpired(job, b.name, now));
  if (dead) return (await recoverInterrupted(job, now, dead.name)) === 'restarted' ? 'recovered' : 'failed';
  let resent = 0;
  for (const branch of def.branches) {
    const run = job.branches?.[branch.name];
    if (!run || run.state === 'queued') {
      await sendBranch(job, branch.name);
      resent++;
    } else if (run.state === 'fanout') {
      // A fan-out branch whose units are all done is closed by its last count (one transaction with it).
      const units = await listUnits(job, stepKey(def.name, branch.name));
      resent += await resendUnfinishedUnits(job, units, now, {
        next: run.fanout_next ?? 0,
        total: run.fanout_total ?? 0,
        branch: branch.name,
      });
    }
  }
  if (resent > 0) {
    await log.warn(`Watchdog: ${resent} branch or unit message(s) of ${def.name} were not finished; requeued`);
    await touch(job, now);
    return 'requeued';
  }
  return hung && (await failJob(job, HUNG)) ? 'failed' : null;
}

/**
 * Every unit is done, but the stage did not move on: the worker that counted
 * the last unit died before advancing (or, before the count and the unit were
 * one write, a count was lost). The work is all there, so the stage advances.
 */
async function advanceFinishedFanout(job: Job, log: JobLog): Promise<boolean> {
  const pipeline = job.pipeline ? getPipeline(job.pipeline) : undefined;
  const stage = pipeline && stageOf(pipeline, job.stage_name as string);
  if (!pipeline || !stage)
    return Boolean(await failJob(job, `The ${job.pipeline} pipeline is not available in this deployment.`));
  await log.warn(`Watchdog: every unit of ${stage.def.name} was done but the stage had not moved on; advanced`);
  return advance(job, pipeline, stage.index, {});
}

/** Resends units of a fan-out whose messages were lost, or whose worker died (expired lease); returns how many. */
async function resendUnfinishedUnits(
  job: Job,
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
    await sendUnit(job, index, fanout.branch);
    resent++;
  }
  return resent;
}

async function touch(job: Job, now: Date): Promise<void> {
  await updateJob(
    job.id,
    { set: { heartbeat_at: now.toISOString() }, condition: 'run_id = :run', values: { ':run': job.run_id } },
    now,
  );
}

/** POST /api/admin/jobs/{id}/dismiss: a hung job is failed with a retryable message and refunded. */
export async function dismissJob(job: Job): Promise<Job> {
  if (!isProcessing(job.status))
    throw new ConflictError(`Only a processing job can be dismissed; this one is ${job.status}.`);
  const failed = await failJob(job, DISMISSED);
  if (!failed) throw new ConflictError('The job finished or changed while it was being dismissed.');
  return failed;
}

/** The admin route: not team-scoped. */
export async function dismissJobById(jobId: string) {
  const job = await getJob(jobId);
  if (!job) throw new NotFoundError('Job not found');
  return jobView(await dismissJob(job));
}
