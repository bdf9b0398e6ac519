/**
 * What the end of a job run tells the outbound signals (spec: Outbound
 * signals): the run's root span `job.process`, the job metrics, the analytics
 * outcome event and, for a failure, one error report (a pipeline failure, or
 * an import crash for a preparing read). A subscriber of run ends
 * (lib/jobs/run-end-service.ts), so it runs once per run end, after the
 * conditional write that ended it. Never throws and never waits: everything
 * is sent when the invocation ends. The job and team ids here leave as keyed
 * hashes (lib/observability/outbound-id-rules.ts): a job id opens the job's media.
 */
import type { RunEnd } from '../jobs/run-end-service';
import { captureAnalytics } from '../observability/analytics';
import { jobOutcomeEvent, type RunOutcome, secondsBetween } from '../observability/analytics-rules';
import { reportError } from '../observability/error-tracking';
import { recordRunSpan } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { recordRunEnd } from '../observability/metrics';

const FAILED: readonly RunOutcome[] = ['error', 'pass_error', 'preparation_error'];

export function signalRunEnd(end: RunEnd): void {
  const { job, outcome } = end;
  try {
    const now = new Date();
    const pipeline = job.pipeline ?? 'none';
    const failed = FAILED.includes(outcome);
    recordRunSpan(job.trace_parent, {
      startedAt: job.started_at,
      error: failed ? (end.error ?? outcome) : null,
      attributes: {
        'job.id': job.id,
        'job.pipeline': pipeline,
        'job.source_type': job.source_type,
        'job.outcome': outcome,
        'job.items_found': job.items_found ?? 0,
        'job.recovery_attempts': job.recovery_attempts ?? 0,
      },
    });
    recordRunEnd({
      pipeline,
      sourceType: job.source_type,
      outcome,
      seconds: secondsBetween(job.started_at, now),
      items: outcome === 'complete' || outcome === 'pass_complete' ? (job.items_found ?? 0) : 0,
      credits: end.credits ?? 0,
    });
    captureAnalytics(jobOutcomeEvent(job, outcome, { credits: end.credits, now }));
    // A preparing job that never ran (its files never came) did not crash: nothing to report.
    if (failed && (outcome !== 'preparation_error' || job.run_id))
      reportError({
        kind: outcome === 'preparation_error' ? 'import_crash' : 'pipeline_failure',
        level: 'error',
        message: end.error ?? outcome,
        tags: {
          job_id: job.id,
          team_id: job.team_id,
          pipeline,
          source_type: job.source_type,
          stage: job.stage_name,
          follow_up_pass: outcome === 'pass_error',
          import_batch_id: job.reads_batch_id ?? job.import_batch_id,
        },
      });
  } catch (err) {
    logger.warn('job outcome signals not recorded', { job_id: job.id, error: String(err) });
  }
}
