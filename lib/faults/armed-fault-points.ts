/**
 * The armed side of fault points (fault-points.ts), never in a deployed
 * bundle. A test arms a point for one id by creating the file
 * `<FAULT_POINTS_DIR>/<point>@<id>` (tests/support/fault-points.ts); the
 * first invocation that reaches the point with that id removes the file and
 * ends, so a point trips once per arming whatever the concurrency (removing
 * a file succeeds once).
 */
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** What an invocation ended by a fault point throws (the marker the packaging test looks for is in its name). */
class InvocationEnded extends Error {
  override readonly name = 'FaultPointInvocationEnded';
}

export const armedFile = (dir: string, point: string, id: string) => join(dir, `${point}@${id}`);

/** @public loaded by fault-points.ts with require(), which knip cannot follow. */
export const isInvocationEnded = (err: unknown): boolean => err instanceof InvocationEnded;

/** @public loaded by fault-points.ts with require(), which knip cannot follow. */
export function tripIfArmed(point: string, scope: readonly string[]): void {
  const dir = process.env.FAULT_POINTS_DIR;
  if (!dir) return;
  for (const id of scope) {
    try {
      unlinkSync(armedFile(dir, point, id));
    } catch {
      continue;
    }
    throw new InvocationEnded(`fault point ${point} tripped for ${id}: the invocation ends here`);
  }
}
