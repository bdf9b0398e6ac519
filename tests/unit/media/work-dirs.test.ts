/** Scratch directories: a task removes what a process that is gone left behind, never a living one's. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWorkDir } from '../../../lib/media/work-dirs';

it("removes a gone process's directories of the same purpose, and keeps a living one's and other purposes'", async () => {
  // A process that has exited: its pid names no living process.
  const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
  const purpose = `work-dirs-test-${process.pid}`;
  const abandoned = join(tmpdir(), `${purpose}-${gone}-abc`);
  const living = join(tmpdir(), `${purpose}-${process.ppid}-def`);
  const other = join(tmpdir(), `other-${purpose}-${gone}-ghi`);
  for (const dir of [abandoned, living, other]) mkdirSync(dir, { recursive: true });
  const made = await makeWorkDir(purpose);
  try {
    expect(made.startsWith(join(tmpdir(), `${purpose}-${process.pid}-`))).toBe(true);
    expect(existsSync(made)).toBe(true);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(living)).toBe(true);
    expect(existsSync(other)).toBe(true);
  } finally {
    for (const dir of [made, abandoned, living, other]) rmSync(dir, { recursive: true, force: true });
  }
});
