/**
 * Usage counters for the admin overview (spec: Admin > GET /api/admin/overview).
 * Pure: which time buckets an event is counted in, which buckets a range
 * reads, and how counter rows add up to the overview's figures.
 *
 * Every counted event adds to four rows of its team: its hour, its day, its
 * month and all time. A range then reads a handful of partitions:
 *   today  the current UTC day (one day bucket);
 *   24h    the current hour and the 23 before it;
 *   week   today and the 6 days before it;
 *   30d    today and the 29 days before it;
 *   year   the current month and the 11 before it: the last two as
 *          months, the 10 before them as one rollup (below);
 *   all    the all-time bucket.
 */

export const OVERVIEW_RANGES = ['today', '24h', 'week', '30d', 'year', 'all'] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];

/** The range asked for; unknown or missing values fall back to all. */
export function parseRange(value: string | undefined): OverviewRange {
  return (OVERVIEW_RANGES as readonly string[]).includes(value ?? '') ? (value as OverviewRange) : 'all';
}

export const MEDIA_TYPES = ['video', 'photo', 'audio'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** Counters kept per media type as well as in total. */
export const MEDIA_COUNTERS = [
  'jobs',
  'completed',
  'failed',
  'credits',
  'items',
  'ai_cost_usd',
  'ai_tokens',
  'ai_calls',
  'processing_seconds',
] as const;
/** Counters of the team as a whole. */
export const TEAM_COUNTERS = ['claims', 'submissions', 'estimation_sends'] as const;
type MediaCounter = (typeof MEDIA_COUNTERS)[number];
type TeamCounter = (typeof TEAM_COUNTERS)[number];
/** The counters a send destination's sends add to (lib/sends/destination-rules.ts). */
export type SendCounter = Exclude<TeamCounter, 'claims'>;
type Counter = MediaCounter | TeamCounter;

export type UsageEvent =
  | { media: MediaType; counts: Partial<Record<MediaCounter, number>> }
  | { media?: undefined; counts: Partial<Record<TeamCounter, number>> };

const mediaAttribute = (counter: MediaCounter, media: MediaType) => `${counter}__${media}`;

/** The attribute increments one event makes on each of its rows (zeros left out). */
export function usageIncrements(event: UsageEvent): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [counter, value] of Object.entries(event.counts)) {
    if (!value) continue;
    out[counter] = value;
    if (event.media) out[mediaAttribute(counter as MediaCounter, event.media)] = value;
  }
  return out;
}

const iso = (at: Date) => at.toISOString();
export const hourBucket = (at: Date) => `HOUR#${iso(at).slice(0, 13)}`;
export const dayBucket = (at: Date) => `DAY#${iso(at).slice(0, 10)}`;
export const monthBucket = (at: Date) => `MONTH#${iso(at).slice(0, 7)}`;
export const ALL_BUCKET = 'ALL';

/** The rows an event at `at` is counted in. */
export function bucketsAt(at: Date): string[] {
  return [hourBucket(at), dayBucket(at), monthBucket(at), ALL_BUCKET];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const startOfHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
const startOfDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const startOfMonth = (at: Date, monthsBack: number) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - monthsBack, 1));

/**
 * A rollup: per team, the sum of its rows of some months, kept as a bucket of
 * its own (named for the months it sums) so a range reads one row per team
 * instead of one per team and month. Only settled months are rolled up: an
 * event is counted as it happens, in the bucket of its own time, so a month
 * that ended a month ago is never added to again.
 */
export interface Rollup {
  bucket: string;
  months: string[];
}

/** The rollup of these month buckets (in order): MONTHS#<first>..<last>. */
function monthsRollup(months: readonly string[]): Rollup {
  const month = (bucket: string) => bucket.slice('MONTH#'.length);
  return { bucket: `MONTHS#${month(months[0])}..${month(months[months.length - 1])}`, months: [...months] };
}

/** Per team, the sum of every counter of its rows (a rollup's rows). */
export function rollUp(rows: readonly UsageRow[]): UsageRow[] {
  const byTeam = new Map<string, UsageRow>();
  for (const row of rows) {
    const sums = byTeam.get(row.team_id) ?? { team_id: row.team_id };
    for (const [name, value] of Object.entries(row))
      if (typeof value === 'number' && Number.isFinite(value) && name !== 'expires_at')
        sums[name] = num(sums[name]) + value;
    byTeam.set(row.team_id, sums);
  }
  return [...byTeam.values()];
}

/**
 * The buckets a range sums and the instant it starts (null for all time):
 * the lists of the overview (latest claims, jobs, failures, activity) start
 * at the same instant, so they agree with the counters.
 */
export function rangeBuckets(
  range: OverviewRange,
  now: Date,
): { buckets: string[]; start: string | null; rollup?: Rollup } {
  const hours = (n: number) => Array.from({ length: n }, (_, i) => new Date(now.getTime() - (n - 1 - i) * HOUR_MS));
  const days = (n: number) => Array.from({ length: n }, (_, i) => new Date(now.getTime() - (n - 1 - i) * DAY_MS));
  switch (range) {
    case 'today':
      return { buckets: [dayBucket(now)], start: iso(startOfDay(now)) };
    case '24h': {
      const at = hours(24);
      return { buckets: at.map(hourBucket), start: iso(startOfHour(at[0])) };
    }
    case 'week':
    case '30d': {
      const at = days(range === 'week' ? 7 : 30);
      return { buckets: at.map(dayBucket), start: iso(startOfDay(at[0])) };
    }
    case 'year': {
      const at = Array.from({ length: 12 }, (_, i) => startOfMonth(now, 11 - i));
      const months = at.map(monthBucket);
      // This month and the last are still being added to; the 10 before them are settled.
      return { buckets: months.slice(10), start: iso(at[0]), rollup: monthsRollup(months.slice(0, 10)) };
    }
    default:
      return { buckets: [ALL_BUCKET], start: null };
  }
}

/** A counter row as stored: its team and whatever counters were added to it. */
export type UsageRow = { team_id: string } & Record<string, unknown>;

export type CounterTotals = Record<Counter, number>;
export interface UsageTotals extends CounterTotals {
  by_media: Record<MediaType, Record<MediaCounter, number>>;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
/** Dollar sums keep six decimals: float additions must not show as 0.30000000000000004. */
const money = (value: number) => Math.round(value * 1e6) / 1e6;

function emptyTotals(): UsageTotals {
  const totals = Object.fromEntries([...MEDIA_COUNTERS, ...TEAM_COUNTERS].map((c) => [c, 0])) as unknown as UsageTotals;
  totals.by_media = Object.fromEntries(
    MEDIA_TYPES.map((m) => [m, Object.fromEntries(MEDIA_COUNTERS.map((c) => [c, 0]))]),
  ) as UsageTotals['by_media'];
  return totals;
}

/** Every counter, and each media type's attribute names, built once: a row is summed for every range read. */
const ALL_COUNTERS: readonly Counter[] = [...MEDIA_COUNTERS, ...TEAM_COUNTERS];
const MEDIA_ATTRIBUTES = MEDIA_TYPES.map(
  (media) => [media, MEDIA_COUNTERS.map((counter) => [counter, mediaAttribute(counter, media)] as const)] as const,
);

function addRow(totals: UsageTotals, row: UsageRow): void {
  for (const counter of ALL_COUNTERS) totals[counter] += num(row[counter]);
  for (const [media, attributes] of MEDIA_ATTRIBUTES) {
    const sums = totals.by_media[media];
    for (const [counter, attribute] of attributes) sums[counter] += num(row[attribute]);
  }
}

function rounded(totals: UsageTotals): UsageTotals {
  totals.ai_cost_usd = money(totals.ai_cost_usd);
  for (const media of MEDIA_TYPES) totals.by_media[media].ai_cost_usd = money(totals.by_media[media].ai_cost_usd);
  return totals;
}

/** Every row of a range added up. */
export function sumUsage(rows: readonly UsageRow[]): UsageTotals {
  const totals = emptyTotals();
  for (const row of rows) addRow(totals, row);
  return rounded(totals);
}

/** Per team over the range, by credits spent (then jobs, then team id), the first `limit`. */
export function usageByTeam(rows: readonly UsageRow[], limit: number): Array<{ team_id: string } & UsageTotals> {
  const byTeam = new Map<string, UsageTotals>();
  for (const row of rows) {
    const totals = byTeam.get(row.team_id) ?? emptyTotals();
    addRow(totals, row);
    byTeam.set(row.team_id, totals);
  }
  return [...byTeam.entries()]
    .map(([team_id, totals]) => ({ team_id, ...rounded(totals) }))
    .sort((a, b) => b.credits - a.credits || b.jobs - a.jobs || a.team_id.localeCompare(b.team_id))
    .slice(0, limit);
}

export interface QualityAverages {
  /** Items per completed job. */
  items_per_job: number | null;
  /** Seconds from start to finish per completed job. */
  processing_seconds_per_job: number | null;
  /** Completed jobs among the jobs that finished (completed or failed), 0..1. */
  success_rate: number | null;
  /** AI spend per finished job, in dollars. */
  ai_cost_usd_per_job: number | null;
  /** Credits per completed job. */
  credits_per_job: number | null;
}

const ratio = (part: number, whole: number, digits = 2) =>
  whole > 0 ? Math.round((part / whole) * 10 ** digits) / 10 ** digits : null;

/** The overview's quality averages, from the range's totals (null when nothing finished). */
export function qualityAverages(totals: CounterTotals): QualityAverages {
  const finished = totals.completed + totals.failed;
  return {
    items_per_job: ratio(totals.items, totals.completed),
    processing_seconds_per_job: ratio(totals.processing_seconds, totals.completed, 1),
    success_rate: ratio(totals.completed, finished, 4),
    ai_cost_usd_per_job: ratio(totals.ai_cost_usd, finished, 6),
    credits_per_job: ratio(totals.credits, totals.completed),
  };
}

/** A user counts as active when seen within this long (spec: Provisioning). */
export const ACTIVE_USER_WINDOW_MS = 5 * 60_000;

export const presenceMinute = (at: Date) => iso(at).slice(0, 16);

/** The minute buckets that may hold a sighting within the active window before `now`. */
export function presenceMinutes(now: Date): string[] {
  const minutes = ACTIVE_USER_WINDOW_MS / 60_000;
  return Array.from({ length: minutes + 1 }, (_, i) =>
    presenceMinute(new Date(now.getTime() - (minutes - i) * 60_000)),
  );
}

/** Whole seconds a job ran, from its start to its finish; 0 when either is missing or out of order. */
export function processingSeconds(startedAt: string | null, finishedAt: string | null): number {
  if (!startedAt || !finishedAt) return 0;
  const seconds = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds) : 0;
}
