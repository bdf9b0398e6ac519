/**
 * Covers: lib/faults/fault-points.ts (endsInvocation), lib/faults/armed-fault-points.ts.
 *
 * endsInvocation tells a catch or finally block that a fault point ended the
 * invocation, so it does what a crash does (nothing): true only for what an
 * armed point threw, and only while fault points are on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { armedFile } from '../../../lib/faults/armed-fault-points';
import { endsInvocation, faultPoint } from '../../../lib/faults/fault-points';

let dir: string;
const saved = { points: process.env.FAULT_POINTS, dir: process.env.FAULT_POINTS_DIR };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fault-points-'));
  Object.assign(process.env, { FAULT_POINTS: 'on', FAULT_POINTS_DIR: dir });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const [name, value] of [
    ['FAULT_POINTS', saved.points],
    ['FAULT_POINTS_DIR', saved.dir],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

/** What faultPoint threw at an armed point. */
function tripped(): unknown {
  writeFileSync(armedFile(dir, 'capture:downloaded', 'job-1'), '');
  try {
    faultPoint('capture:downloaded', ['job-1']);
  } catch (err) {
    return err;
  }
  throw new Error('the armed point did not trip');
}

it('is true for what an armed fault point threw', () => {
  expect(endsInvocation(tripped())).toBe(true);
});

it('is false for any other error, and for no error', () => {
  for (const err of [new Error('boom'), Object.assign(new Error('x'), { name: 'FaultPointInvocationEnded' }), null])
    expect(endsInvocation(err)).toBe(false);
});

it('is false once fault points are off, even for what a point threw', () => {
  const err = tripped();
  process.env.FAULT_POINTS = 'off';
  expect(endsInvocation(err)).toBe(false);
});
