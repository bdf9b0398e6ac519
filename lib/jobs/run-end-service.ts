/**
 * What the end of a job's run tells the rest of the service. The engine
 * publishes one RunEnd per run end, right after the conditional write that
 * ended the run (lib/orchestrator/terminal.ts), so each end is published
 * once; the folders that react to it subscribe here — the usage counters
 * (lib/pipelines/run-end-count-service.ts), the chat post (lib/pipelines/outcome-chat-service.ts) and
 * the outbound signals (lib/orchestrator/signals.ts) — and the engine imports
 * none of them. The deployment's wiring (lib/pipelines/run-end-subscribers.ts)
 * registers them in every function that can end a run (a packaging check
 * holds every bundle that publishes to it).
 *
 * Each subscriber runs whatever the others did: one that throws is logged and
 * never breaks the job or the others. Billing is settled in the ending write
 * itself, never here, so a worker that dies between that write and the
 * publish loses at most that end's counters and posts, never money.
 */
import type { RunOutcome } from '../observability/analytics-rules';
import { logger } from '../observability/logger';
import type { Job } from './job-record-rules';

/** One run's end: the job as its ending write left it, how the run ended, what it billed or why it failed. */
export interface RunEnd {
  job: Job;
  outcome: RunOutcome;
  /** The credits the run billed (a complete run or pass). */
  credits?: number;
  /** The message the run failed with (error, pass_error, preparation_error). */
  error?: string;
}

type RunEndSubscriber = (end: RunEnd) => Promise<void> | void;

const subscribers = new Map<string, RunEndSubscriber>();

/** Registers (or replaces) the subscriber named `name`; called by the deployment's wiring. */
export function subscribeToRunEnds(name: string, subscriber: RunEndSubscriber): void {
  subscribers.set(name, subscriber);
}

/** Hands a run's end to every subscriber, one after another; never throws. */
export async function publishRunEnd(end: RunEnd): Promise<void> {
  if (subscribers.size === 0)
    logger.error('run end published with no subscriber registered: counters, chat and signals miss it', {
      job_id: end.job.id,
      outcome: end.outcome,
    });
  for (const [name, subscriber] of subscribers) {
    try {
      await subscriber(end);
    } catch (err) {
      logger.warn('run end subscriber failed; the run and the other subscribers are unaffected', {
        subscriber: name,
        job_id: end.job.id,
        outcome: end.outcome,
        error: String(err),
      });
    }
  }
}
