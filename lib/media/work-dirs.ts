/**
 * Scratch directories under the function's /tmp, named after the process
 * that made them (`<purpose>-<pid>-…`). A worker killed mid-task (a timeout,
 * a crash) never runs its clean-up, and on Lambda /tmp outlives it in the
 * warm container: the next task of the same purpose removes what such a
 * process left before it makes its own. A 512 MiB contents list left behind
 * would otherwise take half of a PDF worker's /tmp.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the `purpose` directories of processes that are gone. */
async function removeAbandoned(purpose: string): Promise<void> {
  const entries = await readdir(tmpdir()).catch(() => [] as string[]);
  const named = new RegExp(`^${purpose}-(\\d+)-`);
  for (const entry of entries) {
    const pid = Number(named.exec(entry)?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid))
      await rm(join(tmpdir(), entry), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A new scratch directory for `purpose` (letters and dashes); the caller removes it when done. */
export async function makeWorkDir(purpose: string): Promise<string> {
  await removeAbandoned(purpose);
  return mkdtemp(join(tmpdir(), `${purpose}-${process.pid}-`));
}
