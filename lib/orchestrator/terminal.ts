/**
 * The terminal paths of a job (spec: States and transitions):
 *  - complete: billing finalized once (in the completing write), logs archived;
 *  - error: up-front charge refunded, logs archived.
 * Both are conditional on the job still being in a processing state of the
 * same run, so a late or duplicated message cannot finish a job twice. The
 * winner of that write publishes the run's end (lib/jobs/run-end-service.ts), to
 * which the usage counters, the chat post and the outbound signals subscribe.
 *
 * Refunds are owed in the same write that ends the run (lib/billing/settlement-store.ts):
 * the whole charge on failure, and on completion the part spent up front but not
 * billed (a failed AI request is never billed). They are settled right after;
 * what the billing service does not confirm the billing sweep retries.
 */
import { addFinalizedSpend } from '../billing/finalize-service';
import { completionBilling, passCompletionBilling } from '../billing/charge-store';
import { settleJobBilling } from '../billing/settlement-service';
import { owesBilling, unbilledRefund, wholeRefund } from '../billing/settlement-rules';
import { owedFields } from '../billing/settlement-store';
import { updateJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import { PREPARING_STATUSES, PROCESSING_STATUSES, statusAfterPreparing } from '../jobs/job-rules';
import { archiveLog, JobLog } from '../jobs/log-store';
import { publishRunEnd } from '../jobs/run-end-service';
import { logger } from '../observability/logger';
import type { PipelineDefinition } from './pipeline';

/** A failure a pipeline reports with a message meant for the user (e.g. every AI call failed). */
export class PipelineFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PipelineFailure';
  }
}

export async function completeJob(job: Job, pipeline: PipelineDefinition): Promise<void> {
  if (pipeline.preparation) return completePreparation(job, pipeline);
  const log = new JobLog(job.id);
  let summary: Awaited<ReturnType<PipelineDefinition['complete']>>;
  try {
    summary = await pipeline.complete({ job, log, heartbeat: async () => undefined });
  } catch (err) {
    await failJob(
      job,
      err instanceof PipelineFailure
        ? err.message
        : `Finishing the job failed: ${err instanceof Error ? err.message : String(err)}`,
    );
    return;
  }
  // Billing is recorded in the same write as the status, so a complete job is never seen unbilled.
  // A pass is billed once per run: its run id names it.
  const billing = pipeline.followUp ? passCompletionBilling(summary, `pass:${job.run_id}`) : completionBilling(summary);
  // A pass was charged on its own round only if it was charged at all (pass_charge_round).
  const chargedRun =
    !pipeline.followUp || (Boolean(job.pass_charge_round) && job.pass_charge_round === job.billing_rounds);
  const owed = owedFields(job, [chargedRun ? unbilledRefund(job, billing.credits) : null]);
  const done = await updateJob(job.id, ['job', 'run', 'billing'], {
    expectStatus: PROCESSING_STATUSES,
    set: {
      ...billing.set,
      ...owed.set,
      status: 'complete',
      current_stage: 'Complete',
      progress_pct: 100,
      finished_at: new Date().toISOString(),
      items_found: summary.items_found,
      stage_state: 'done',
    },
    add: { ...billing.add, ...owed.add },
    condition: `run_id = :run AND (${billing.condition})`,
    values: { ':run': job.run_id, ...billing.values },
  });
  if (!done) return;
  await addFinalizedSpend(done, billing.credits);
  if (owesBilling(done)) await settleJobBilling(done.id);
  logger.info('billing finalized', {
    job_id: job.id,
    credits: billing.credits,
    follow_up_pass: Boolean(pipeline.followUp),
  });
  if (pipeline.followUp) {
    await log.info(`Pass complete: ${summary.items_found} items, ${summary.credits} credits`);
    await archiveLogSafely(job.id);
    await publishRunEnd({ job: done, outcome: 'pass_complete', credits: billing.credits });
    return;
  }
  await log.info(`Complete: ${summary.items_found} items, ${summary.credits} credits`);
  await archiveLogSafely(job.id);
  await publishRunEnd({ job: done, outcome: 'complete', credits: billing.credits });
}

/**
 * Ends a job in error: refunds any up-front charge (idempotent), archives the
 * log and posts the failure. Returns null when the job was not processing
 * (already finished, or another run owns it).
 */
export async function failJob(job: Job, message: string): Promise<Job | null> {
  if (job.follow_up_pass) return failPass(job, message);
  if (PREPARING_STATUSES.includes(job.status)) return endPreparation(job, { error: message });
  const owed = owedFields(job, [wholeRefund(job)]);
  const failed = await updateJob(job.id, ['job', 'run', 'billing'], {
    expectStatus: PROCESSING_STATUSES,
    set: {
      ...owed.set,
      status: 'error',
      error_message: message,
      current_stage: 'Failed',
      finished_at: new Date().toISOString(),
      stage_state: 'done',
      stage_runner: null,
    },
    add: owed.add,
    condition: 'run_id = :run',
    values: { ':run': job.run_id },
  });
  if (!failed) return null;
  if (owesBilling(failed)) await settleJobBilling(failed.id);
  await new JobLog(job.id).error(message);
  await archiveLogSafely(job.id);
  await publishRunEnd({ job: failed, outcome: 'error', error: message });
  return failed;
}

/** A preparing run that finished: the job moves on to the status after it with what the run made. */
async function completePreparation(job: Job, pipeline: PipelineDefinition): Promise<void> {
  let items: number;
  try {
    items = (await pipeline.complete({ job, log: new JobLog(job.id), heartbeat: async () => undefined })).items_found;
  } catch (err) {
    await endPreparation(job, {
      error: `Finishing the read failed: ${err instanceof Error ? err.message : String(err)}`,
    });
    return;
  }
  await endPreparation(job, { items });
}

/**
 * Ends a preparing run (or a job left preparing with no run, which the
 * watchdog times out): the job moves to the status after preparing, keeping
 * whatever the run made; a failure is recorded on the job and in its log.
 * Nothing was charged, so nothing is refunded. Conditional on the run, so a
 * late message cannot end a later run.
 */
async function endPreparation(job: Job, outcome: { items: number } | { error: string }): Promise<Job | null> {
  const status = statusAfterPreparing(job);
  const ended = await updateJob(job.id, ['job', 'run', 'contents'], {
    expectStatus: PREPARING_STATUSES,
    set: {
      status,
      current_stage: status,
      progress_pct: 0,
      stage_state: 'done',
      stage_runner: null,
      preparation_error: 'error' in outcome ? outcome.error : null,
    },
    ...(job.run_id ? { condition: 'run_id = :run', values: { ':run': job.run_id } } : {}),
  });
  if (!ended) return null;
  const log = new JobLog(job.id);
  if ('error' in outcome) await log.error(outcome.error);
  else await log.info(`Read finished: ${outcome.items} photo(s); ${status.replace('_', ' ')}`);
  // A claim-level import's reader ends here for good (complete); a room's read hands its job on, whose log goes on.
  if (status === 'complete') await archiveLogSafely(job.id);
  await publishRunEnd({
    job: ended,
    ...('error' in outcome ? { outcome: 'preparation_error', error: outcome.error } : { outcome: 'prepared' }),
  });
  return ended;
}

/** A failed follow-up pass: the job is complete again with the items it had, and the pass's charge is undone. */
async function failPass(job: Job, message: string): Promise<Job | null> {
  // Only the pass's own charge is undone; the job's earlier charge stands for the items it made.
  const owed = owedFields(job, [
    job.pass_charge_round && job.billing_rounds === job.pass_charge_round ? wholeRefund(job) : null,
  ]);
  const back = await updateJob(job.id, ['job', 'run', 'billing', 'photo'], {
    expectStatus: PROCESSING_STATUSES,
    set: {
      ...owed.set,
      status: 'complete',
      current_stage: 'Complete',
      progress_pct: 100,
      last_pass_error: message,
      finished_at: new Date().toISOString(),
      stage_state: 'done',
      stage_runner: null,
    },
    add: owed.add,
    condition: 'run_id = :run',
    values: { ':run': job.run_id },
  });
  if (!back) return null;
  if (owesBilling(back)) await settleJobBilling(back.id);
  await new JobLog(job.id).error(message);
  await archiveLogSafely(job.id);
  await publishRunEnd({ job: back, outcome: 'pass_error', error: message });
  return back;
}

/** Every terminal path archives the log; a failed archive never breaks the job. */
async function archiveLogSafely(jobId: string): Promise<void> {
  await archiveLog(jobId).catch((err) => logger.error('job log archive failed', { job_id: jobId, error: String(err) }));
}
