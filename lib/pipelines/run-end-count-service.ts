/**
 * The usage counters' part of a run's end (lib/jobs/run-end-service.ts): a
 * completed run counts its job complete with its items and credits, a
 * completed follow-up pass adds only its credits, a failed run counts the
 * failure and lists it on the failure feed. Imports and passes that fail
 * count nothing (the job itself was counted by its first run).
 */
import type { RunEnd } from '../jobs/run-end-service';
import { recordJobCompleted, recordJobFailed } from '../stats/service';

export async function countRunEnd({ job, outcome, credits = 0, error }: RunEnd): Promise<void> {
  if (outcome === 'complete') await recordJobCompleted(job, credits);
  else if (outcome === 'pass_complete') await recordJobCompleted(job, credits, { pass: true });
  else if (outcome === 'error') await recordJobFailed(job, error ?? 'unknown error');
}
