/**
 * Covers: the job record's slices (lib/jobs/job-record-rules.ts `JobSlices`)
 * and who writes them.
 *
 * A job update names the slices it writes (`updateJob(id, [slices], …)`,
 * `jobUpdateInput` likewise), and the compiler holds its fields to them. This
 * holds the names to the folders that own them: a flow writes only its own
 * slice. The orchestrator ends a run in one conditional write with its
 * billing (the settlement and the terminal status together), so it names
 * billing too; the training sandbox completes its instant jobs billed nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import type { JobSlice } from '../../../lib/jobs/job-record-rules';

const root = join(__dirname, '..', '..', '..');

/** The folders that may write each slice. */
const OWNERS: Record<JobSlice, readonly string[]> = {
  job: ['lib/jobs', 'lib/orchestrator', 'lib/training'],
  run: ['lib/orchestrator'],
  billing: ['lib/billing', 'lib/orchestrator', 'lib/training'],
  ai: ['lib/jobs'],
  recording: ['lib/jobs', 'lib/orchestrator'],
  photo: ['lib/photos', 'lib/orchestrator'],
  contents: ['lib/photos', 'lib/orchestrator'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const lib = sources(join(root, 'lib')).map((path) => ({
  path: relative(root, path).split(sep).join(posix.sep),
  text: readFileSync(path, 'utf8'),
}));

/** Each job update in lib: the file, and the slices it names (null when they are not a literal list). */
function jobUpdates() {
  return lib.flatMap((file) => {
    // A list named once in the file (the engine's ENGINE_SLICES) counts as written there.
    const named = new Map(
      [...file.text.matchAll(/const (\w+) = \[([^\]]*)\] as const/g)].map((m) => [m[1], m[2]] as const),
    );
    return (
      [...file.text.matchAll(/\b(?:updateJob|jobUpdateInput)\(\s*[^,()]+,\s*(\[[^\]]*\]|\w+)/g)]
        // The store's updateJob hands its caller's list on to jobUpdateInput.
        .filter((m) => m[1] !== 'slices')
        .map((m) => {
          const list = m[1].startsWith('[') ? m[1].slice(1, -1) : named.get(m[1]);
          const slices = list === undefined ? null : [...list.matchAll(/'(\w+)'/g)].map((s) => s[1] as JobSlice);
          return { file: file.path, folder: file.path.split('/').slice(0, 2).join('/'), slices };
        })
    );
  });
}

it('finds the job updates of lib (the engine, billing, photos, jobs, training)', () => {
  const folders = new Set(jobUpdates().map((u) => u.folder));
  expect([...folders].sort()).toEqual(['lib/billing', 'lib/jobs', 'lib/orchestrator', 'lib/photos', 'lib/training']);
});

it('names its slices in every job update, as a list written at the call', () => {
  expect(jobUpdates().filter((u) => u.slices === null || u.slices.length === 0)).toEqual([]);
});

it('writes each slice only from a folder that owns it', () => {
  const trespasses = jobUpdates().flatMap((u) =>
    (u.slices ?? []).filter((slice) => !OWNERS[slice]?.includes(u.folder)).map((slice) => `${u.file}: ${slice}`),
  );
  expect(trespasses).toEqual([]);
});
