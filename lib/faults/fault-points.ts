/**
 * Named fault points: the boundaries of the money-bearing flows at which a
 * test can end an invocation the way a crash or a Lambda timeout does, in
 * the local and test stacks only.
 *
 * A fault point is inert unless FAULT_POINTS is 'on' in the environment.
 * `serverless package` defines FAULT_POINTS as 'off' at build time
 * (functions/package-bundles.js), so esbuild drops the armed branch and the
 * module behind it from every deployed bundle (a packaging test checks); the
 * local stack and the tests build without that definition and turn it on.
 * An armed point (armed-fault-points.ts) trips once: it throws
 * InvocationEnded, and nothing after the boundary runs in that invocation.
 */

/** Every point, named `<flow>:<boundary>`: where the invocation ends when it trips. */
const FAULT_POINTS = [
  // The claims platform send's request: after the send and its charge are recorded, before the spend is asked;
  // after the spend answered, before its answer is recorded; after that record, before the remote claim is synced;
  // after the remote claim and rooms are synced, before the items are handed to the worker.
  'claims-send:recorded',
  'claims-send:spent',
  'claims-send:charged',
  'claims-send:synced',
  // A job's Process click (job-start) and a read-the-rest pass's click (read-the-rest), at its charge: after the
  // spend is recorded as asked for, before it is asked; after the spend answered, before its answer is recorded;
  // after the charge is recorded, before the run starts.
  'job-start:recorded',
  'job-start:spent',
  'job-start:charged',
  'read-the-rest:recorded',
  'read-the-rest:spent',
  'read-the-rest:charged',
  // The estimation send's request: after the batch and its reference are recorded, before the spend is asked;
  // after the spend answered, before its answer is recorded; after that record, before the remote call; after the
  // remote accepted the batch, before its answer is recorded.
  'estimation-send:recorded',
  'estimation-send:spent',
  'estimation-send:charged',
  'estimation-send:accepted',
] as const;
export type FaultPointName = (typeof FAULT_POINTS)[number];

/**
 * Ends the invocation here when a test armed `name` for one of `scope`'s ids
 * (a claim, a job, a team); otherwise does nothing.
 */
export function faultPoint(name: FaultPointName, scope: readonly string[]): void {
  if (process.env.FAULT_POINTS === 'on')
    (require('./armed-fault-points') as typeof import('./armed-fault-points')).tripIfArmed(name, scope);
}
