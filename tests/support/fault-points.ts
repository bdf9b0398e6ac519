/**
 * Arms the named fault points of lib/faults for the test stack: a file
 * `<FAULT_POINTS_DIR>/<point>@<id>` makes the next invocation that reaches
 * `point` for `id` end there (lib/faults/armed-fault-points.ts removes the
 * file as it trips, so each arming trips once). The directory is the one the
 * global setup gives the stack.
 */
import { existsSync, writeFileSync } from 'node:fs';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { armedFile } from '../../lib/faults/armed-fault-points';
import { expectCrashAnswers } from './openapi-conformance';

const dir = () => {
  const value = process.env.FAULT_POINTS_DIR;
  if (!value) throw new Error('FAULT_POINTS_DIR is not set: fault points need the test stack');
  return value;
};

export function armFaultPoint(point: FaultPointName, id: string): void {
  // The invocation that trips it answers as a crash does: the API document's check lets that answer through.
  expectCrashAnswers();
  writeFileSync(armedFile(dir(), point, id), '');
}

/** True once an invocation reached the armed point and ended there. */
export const faultPointTripped = (point: FaultPointName, id: string) => !existsSync(armedFile(dir(), point, id));
