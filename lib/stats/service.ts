/**
 * Counting what happens, for the admin overview: each function is called by
 * the write that makes the event happen, once (the winner of that write's
 * condition), and adds to the usage counters (lib/stats/rules.ts).
 *
 * Best-effort: a counter that cannot be written is logged and never fails
 * the job, the claim or the send it counts. A crash between the event's
 * write and its count loses that one increment; the records themselves
 * (jobs, claims, submissions) stay the truth.
 */
import { logger } from '../observability/logger';
import { processingSeconds, type MediaType, type SendCounter, type UsageEvent, usageIncrements } from './rules';
import { addUsageRows, putFailureEntry } from './store';

/** What the counters need of a job. */
export interface CountedJob {
  id: string;
  team_id: string;
  source_type: MediaType;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  items_found: number;
}

async function count(teamId: string, at: string, event: UsageEvent): Promise<void> {
  try {
    await addUsageRows(teamId, new Date(at), usageIncrements(event));
  } catch (err) {
    logger.warn('usage counters not updated', { team_id: teamId, error: String(err) });
  }
}

/** A media job was created. */
export async function recordJobCreated(job: CountedJob): Promise<void> {
  await count(job.team_id, job.created_at, { media: job.source_type, counts: { jobs: 1 } });
}

/**
 * A job completed with `credits` billed. A follow-up pass (read the rest)
 * adds only its credits: the job was counted complete, with its items, by
 * its first run.
 */
export async function recordJobCompleted(
  job: CountedJob,
  credits: number,
  options: { pass?: boolean } = {},
): Promise<void> {
  const at = job.finished_at ?? new Date().toISOString();
  await count(job.team_id, at, {
    media: job.source_type,
    counts: options.pass
      ? { credits }
      : {
          completed: 1,
          credits,
          items: job.items_found,
          processing_seconds: processingSeconds(job.started_at, job.finished_at),
        },
  });
}

/** A job failed: counted, and put on the failure feed the overview lists. */
export async function recordJobFailed(job: CountedJob, message: string): Promise<void> {
  const at = job.finished_at ?? new Date().toISOString();
  await count(job.team_id, at, { media: job.source_type, counts: { failed: 1 } });
  await putFailureEntry({
    job_id: job.id,
    team_id: job.team_id,
    source_type: job.source_type,
    error_message: message,
    failed_at: at,
  }).catch((err) => logger.warn('failure feed not updated', { job_id: job.id, error: String(err) }));
}

/** One AI call's spend on a job (counted when the call is recorded, so a retried job's earlier runs count once). */
export async function recordAiSpend(
  job: Pick<CountedJob, 'team_id' | 'source_type'>,
  spend: { calls: number; tokens: number; costUsd: number },
  at = new Date(),
): Promise<void> {
  await count(job.team_id, at.toISOString(), {
    media: job.source_type,
    counts: { ai_calls: spend.calls, ai_tokens: spend.tokens, ai_cost_usd: spend.costUsd },
  });
}

/** A claim was created. */
export async function recordClaimCreated(claim: { team_id: string; created_at: string }): Promise<void> {
  await count(claim.team_id, claim.created_at, { counts: { claims: 1 } });
}

/** A send went out to a destination, counted under the destination's own counter (lib/sends/destination-rules.ts). */
export async function recordSend(teamId: string, counter: SendCounter, at = new Date()): Promise<void> {
  await count(teamId, at.toISOString(), { counts: { [counter]: 1 } });
}
