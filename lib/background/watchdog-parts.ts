/**
 * The watchdog schedule runs several independent sweeps in one invocation
 * (functions/schedules/watchdog.ts). Each part runs whatever the others do:
 * a part that throws is logged with its name and reported to error tracking
 * (as a watchdog sweep, at error level), and the invocation's report names
 * it, beside the other parts' results. The invocation itself succeeds, so
 * Lambda does not retry every part for one part's failure; the next minute's
 * run tries the failed part again.
 */
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';

type Parts = Record<string, () => Promise<unknown>>;

/** Each part's result, or the error it failed with; `failed_parts` lists the failed ones in order. */
export type PartsReport<P extends Parts> = { [K in keyof P]: Awaited<ReturnType<P[K]>> | { error: string } } & {
  failed_parts: string[];
};

/** Runs the parts one after another (in the order given), each whatever the others did. */
export async function runWatchdogParts<P extends Parts>(parts: P): Promise<PartsReport<P>> {
  const results: Record<string, unknown> = {};
  const failed: string[] = [];
  for (const [part, run] of Object.entries(parts)) {
    try {
      results[part] = await run();
    } catch (err) {
      const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      failed.push(part);
      results[part] = { error };
      logger.error('watchdog part failed; the other parts still ran', { part, error });
      reportError({
        kind: 'watchdog_sweep',
        level: 'error',
        message: `Watchdog part ${part} failed: ${error}`,
        tags: { part },
      });
    }
  }
  return { ...results, failed_parts: failed } as PartsReport<P>;
}
