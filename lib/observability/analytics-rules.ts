/**
 * Product analytics events (spec: Outbound signals: analytics mirrors
 * activity and job outcomes; a session_expired event on expiry), shaped for
 * PostHog's capture API (`POST /batch/` with the project key). Pure: no I/O.
 *
 * Events carry ids, kinds, counts and durations only: never an activity's
 * label or target, a name, an email, a file name or an error text, which may
 * all describe a person. The distinct id is our internal user id. Every
 * UUID (those ids too) leaves as its keyed hash (analytics.ts, captureAnalytics).
 */

type PropertyValue = string | number | boolean | null;

export interface AnalyticsEvent {
  event: string;
  distinct_id: string;
  properties: Record<string, PropertyValue>;
  /** ISO 8601, when it happened. */
  timestamp: string;
}

/** The analytics settings (lib/config's Settings has them). */
export interface AnalyticsSettings {
  POSTHOG_API_KEY: string;
  POSTHOG_HOST: string;
}

/** Where batches go, or null when analytics is off (no key, or a host that is not an http(s) URL). */
export function analyticsTarget(settings: AnalyticsSettings): { url: string; apiKey: string } | null {
  const apiKey = settings.POSTHOG_API_KEY.trim();
  const host = settings.POSTHOG_HOST.trim().replace(/\/+$/, '');
  if (!apiKey || !/^https?:\/\/\S+$/i.test(host)) return null;
  return { url: `${host}/batch/`, apiKey };
}

/** The body of one batch request. */
export function batchBody(apiKey: string, events: AnalyticsEvent[]) {
  return {
    api_key: apiKey,
    batch: events.map((e) => ({
      event: e.event,
      distinct_id: e.distinct_id,
      timestamp: e.timestamp,
      properties: { ...e.properties, $lib: 'contents-inventory' },
    })),
  };
}

/** The fields of an activity entry an event mirrors (lib/activity's ActivityEntry has them). */
export interface ActivityFacts {
  id: string;
  team_id: string;
  user_id: string;
  action_type: string;
  entity_type: string | null;
  entity_id: string | null;
  restorable: boolean;
  created_at: string;
  impersonated_by?: string | null;
}

/** An activity entry as an analytics event named after its action (label and target stay behind). */
export function activityEvent(entry: ActivityFacts): AnalyticsEvent {
  return {
    event: entry.action_type,
    distinct_id: entry.user_id,
    timestamp: entry.created_at,
    properties: {
      source: 'activity',
      activity_id: entry.id,
      team_id: entry.team_id,
      entity_type: entry.entity_type,
      entity_id: entry.entity_id,
      restorable: entry.restorable,
      impersonated: Boolean(entry.impersonated_by),
    },
  };
}

/** How a job run ended: a run (complete/error), a follow-up pass, or a preparing read (import). */
export type RunOutcome = 'complete' | 'error' | 'pass_complete' | 'pass_error' | 'prepared' | 'preparation_error';

/** The fields of a job an outcome event reports (lib/jobs' Job has them). */
export interface JobFacts {
  id: string;
  team_id: string;
  claim_id: string;
  room_id: string;
  created_by_user_id: string;
  source_type: string;
  pipeline: string | null;
  items_found: number;
  started_at: string | null;
}

const OUTCOME_EVENTS: Record<RunOutcome, string> = {
  complete: 'job_completed',
  error: 'job_failed',
  pass_complete: 'job_pass_completed',
  pass_error: 'job_pass_failed',
  prepared: 'job_import_finished',
  preparation_error: 'job_import_failed',
};

/** The whole seconds from `start` to `end`, or null without a valid start. */
export function secondsBetween(start: string | null, end: Date): number | null {
  const from = start ? Date.parse(start) : Number.NaN;
  if (!Number.isFinite(from)) return null;
  return Math.max(0, Math.round((end.getTime() - from) / 100) / 10);
}

/** A job run's end as an analytics event of the user who made the job. */
export function jobOutcomeEvent(
  job: JobFacts,
  outcome: RunOutcome,
  end: { credits?: number; now: Date },
): AnalyticsEvent {
  return {
    event: OUTCOME_EVENTS[outcome],
    distinct_id: job.created_by_user_id,
    timestamp: end.now.toISOString(),
    properties: {
      source: 'job',
      job_id: job.id,
      team_id: job.team_id,
      claim_id: job.claim_id,
      room_id: job.room_id || null,
      source_type: job.source_type,
      pipeline: job.pipeline,
      outcome,
      items_found: job.items_found ?? 0,
      credits: end.credits ?? 0,
      duration_seconds: secondsBetween(job.started_at, end.now),
    },
  };
}

/**
 * A request that came with a genuine login token past its expiry. The user is
 * named by our id when the token's user is known here, else the event is
 * anonymous (no person profile is made for it).
 */
export function sessionExpiredEvent(input: {
  userId: string | null;
  via: 'bearer' | 'cookie';
  expiredAt: number | null;
  now: Date;
}): AnalyticsEvent {
  const expiredFor =
    input.expiredAt === null ? null : Math.max(0, Math.round(input.now.getTime() / 1000 - input.expiredAt));
  return {
    event: 'session_expired',
    distinct_id: input.userId ?? 'anonymous',
    timestamp: input.now.toISOString(),
    properties: {
      source: 'auth',
      token_via: input.via,
      expired_seconds_ago: expiredFor,
      ...(input.userId ? {} : { $process_person_profile: false }),
    },
  };
}
