/**
 * What error tracking is told (spec: Outbound signals: pipeline failures,
 * import crashes, claims platform submission failures and watchdog sweep
 * counts; an info-level message on session expiry), as events in Sentry's
 * format. Pure: no I/O. Reports carry ids and our own messages; scrubEvent
 * (scrub-rules.ts) masks whatever else a message may hold on the way out.
 */
import { scrubEvent, type TrackedEvent } from './scrub-rules';

type ReportKind =
  | 'pipeline_failure'
  | 'import_crash'
  | 'claims_platform_submission'
  | 'watchdog_sweep'
  | 'session_expired';

export interface ErrorReport {
  kind: ReportKind;
  level: 'error' | 'warning' | 'info';
  message: string;
  /** Ids and kinds to search by; empty values are left out. */
  tags?: Record<string, string | number | boolean | null | undefined>;
  /** Counts and other figures. */
  extra?: Record<string, string | number | boolean | null>;
}

/** The exception type an error or warning of each kind is reported as. */
const EXCEPTION_TYPES: Record<ReportKind, string> = {
  pipeline_failure: 'PipelineFailure',
  import_crash: 'ImportCrash',
  claims_platform_submission: 'ClaimsPlatformSubmissionFailure',
  watchdog_sweep: 'WatchdogSweep',
  session_expired: 'SessionExpired',
};

/**
 * A report as an error-tracking event, scrubbed: errors and warnings as an
 * exception of the kind's type with the message as its value (no stack: the
 * failure happened in the pipeline, not where it is reported), infos as a
 * plain message.
 */
export function trackedEventOf(report: ErrorReport): TrackedEvent {
  const tags: Record<string, string> = { kind: report.kind };
  for (const [key, value] of Object.entries(report.tags ?? {}))
    if (value !== null && value !== undefined && value !== '') tags[key] = String(value);
  const event: TrackedEvent = {
    level: report.level,
    tags,
    ...(report.extra ? { extra: report.extra } : {}),
    ...(report.level === 'info'
      ? { message: report.message }
      : { exception: { values: [{ type: EXCEPTION_TYPES[report.kind], value: report.message }] } }),
  };
  return scrubEvent(event);
}

/** The jobs a watchdog sweep acted on, by action. */
export interface SweepJobs {
  requeued: string[];
  recovered: string[];
  failed: string[];
}

/** One watchdog sweep: the jobs it looked at, and those it acted on (lib/orchestrator/recovery.ts, WatchdogReport). */
export interface Sweep {
  checked: number;
  jobs: SweepJobs;
}

/** Job ids named per action in a sweep report; a sweep that touches more says how many it left out. */
export const SWEEP_JOB_IDS_SHOWN = 20;

function jobIdList(ids: string[]): string {
  const shown = ids.slice(0, SWEEP_JOB_IDS_SHOWN).join(',');
  return ids.length > SWEEP_JOB_IDS_SHOWN ? `${shown} (+${ids.length - SWEEP_JOB_IDS_SHOWN} more)` : shown;
}

/**
 * A sweep that acted is reported with its counts and the ids of the jobs it
 * acted on (ids only): a warning when it failed jobs, else info. A sweep
 * that only looked (every minute) is not reported.
 */
export function watchdogSweepReport({ checked, jobs }: Sweep): ErrorReport | null {
  const [requeued, recovered, failed] = [jobs.requeued.length, jobs.recovered.length, jobs.failed.length];
  if (requeued + recovered + failed === 0) return null;
  const extra: Record<string, string | number> = { checked, requeued, recovered, failed };
  for (const action of ['requeued', 'recovered', 'failed'] as const)
    if (jobs[action].length > 0) extra[`${action}_job_ids`] = jobIdList(jobs[action]);
  return {
    kind: 'watchdog_sweep',
    level: failed > 0 ? 'warning' : 'info',
    message: `Watchdog sweep: ${requeued} requeued, ${recovered} recovered, ${failed} failed of ${checked} checked`,
    extra,
  };
}
