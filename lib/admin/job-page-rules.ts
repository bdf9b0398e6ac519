/**
 * How the admin job lists (logs, api-requests, media) page through every
 * team's jobs (spec: Admin). Pure: no I/O.
 *
 * A team's list reads the team's own jobs index (gsi2 TEAM#<id>#JOBS, whose
 * sort key is the same <created_at>#<id>), so it reads only that team's jobs.
 * Every other list reads the `jobs` index one UTC day at a time (one partition
 * per day, JOBS#<yyyy-mm-dd>, lib/db/keys.ts), newest day first and newest job
 * first within a day. A day, not an hour: a filtered walk crosses quiet
 * stretches one query per bucket, and an hour bucket would make that 24
 * queries a day for the same rows; a day's jobs (a few hundred bytes each in
 * the slim index) are few enough to read whole, and the day's partition takes
 * only that day's job writes, where the old single JOBS partition took every
 * job write and was read whole on every call.
 *
 * A page starts at the newest job, `offset` matching jobs further on, or where
 * a cursor says the previous page stopped: the day, the sort key
 * (<created_at>#<id>) of the last job it showed (null: the day from its
 * newest) and how many matching jobs are still to be skipped (a page that
 * reached its read bound before its offset; 0 otherwise). It is base64url
 * JSON, checked before any read; anything this service could not have issued
 * is an InvalidCursorError (422, naming query.cursor), never a server error.
 */
import { InvalidCursorError } from '../db/pagination';

/** A filtered walk reads at most this many days for one page; the page then ends early, with a cursor to go on. */
export const MAX_DAYS_PER_PAGE = 62;
/** A team's list (its own jobs index, lib/db/keys.ts gsi2) reads at most this many of the team's jobs for one page. */
export const MAX_TEAM_ROWS_PER_PAGE = 2000;
/** Days read at once grow 1, 2, 4, ... up to this (the first page of an unfiltered list reads one day). */
export const MAX_DAYS_AT_ONCE = 16;
/** A total counts this many day partitions at once (DynamoDB counts; no row comes back). */
export const COUNT_DAYS_AT_ONCE = 16;

/**
 * Where a walk starts or goes on: a day, the sort key of the last job already
 * passed on it (null: none), and how many matching jobs are still to be
 * skipped before the page's first.
 */
export interface JobPosition {
  day: string;
  after: string | null;
  skip: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day (yyyy-mm-dd) of an ISO instant: the job's bucket. */
export const dayOf = (iso: string) => iso.slice(0, 10);

/** The day before `day`. */
export function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) - 86_400_000).toISOString().slice(0, 10);
}

/** Every day from `newest` back to `oldest`, newest first; `newest` alone when `oldest` is not before it. */
export function daysFrom(newest: string, oldest: string): string[] {
  const days = [newest];
  while (days.at(-1)! > oldest) days.push(previousDay(days.at(-1)!));
  return days;
}

function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const at = Date.parse(`${value}T00:00:00.000Z`);
  // Not a date at all (month 13), or one that rolls over (February 30th).
  return !Number.isNaN(at) && new Date(at).toISOString().startsWith(value);
}

/** Where a walk goes on after this job: its day, from just past it, nothing left to skip. */
export function afterJob(job: { created_at: string; id: string }): JobPosition {
  return { day: dayOf(job.created_at), after: `${job.created_at}#${job.id}`, skip: 0 };
}

export function encodeJobCursor(position: JobPosition): string {
  const { day, after, skip } = position;
  return Buffer.from(JSON.stringify(skip > 0 ? { day, after, skip } : { day, after })).toString('base64url');
}

const NOT_OURS = 'not a cursor of this list (pass next_cursor back unchanged)';

/** The position a cursor names; the newest day (`today`) from its top, skipping `offset` matches, when there is none. */
export function decodeJobCursor(cursor: string | undefined, today: string, offset = 0): JobPosition {
  if (!cursor) return { day: today, after: null, skip: offset };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError(NOT_OURS);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InvalidCursorError(NOT_OURS);
  const { day, after, skip = 0, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || !isDay(day) || day > today) throw new InvalidCursorError(NOT_OURS);
  if (after !== null && (typeof after !== 'string' || after.length > 200 || !after.startsWith(`${day}T`)))
    throw new InvalidCursorError(NOT_OURS);
  if (typeof skip !== 'number' || !Number.isSafeInteger(skip) || skip < 0) throw new InvalidCursorError(NOT_OURS);
  return { day, after, skip };
}
