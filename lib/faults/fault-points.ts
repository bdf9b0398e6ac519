/**
 * Named fault points: the boundaries of the money-bearing flows at which a
 * test can end an invocation the way a crash or a Lambda timeout does, in
 * the local and test stacks only.
 *
 * A fault point is inert unless FAULT_POINTS is 'on' in the environment.
 * `serverless package` defines FAULT_POINTS as 'off' at build time
 * (deploy/package-bundles.js), so esbuild drops the armed branch and the
 * module behind it from every deployed bundle (a packaging test checks); the
 * local stack and the tests build without that definition and turn it on.
 * An armed point (armed-fault-points.ts) trips once: it throws
 * InvocationEnded, and nothing after the boundary runs in that invocation.
 * A crash runs no catch or finally block either: a handler around a point
 * that cleans up, logs and carries on, or gives a lease back asks
 * endsInvocation first, and rethrows at once (or skips its work) when it is
 * true, so the tests see what a crash leaves.
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
  // The estimation send's stage (its request, or the worker that carries it on): after the batch and its reference
  // are recorded, before the spend is asked; after the spend answered, before its answer is recorded; after that
  // record, before the remote call; after the remote accepted the batch, before its answer is recorded; after that
  // record, before the stamps; after a refusal's failure and owed refund are recorded, before the refund is asked.
  'estimation-send:recorded',
  'estimation-send:spent',
  'estimation-send:charged',
  'estimation-send:accepted',
  'estimation-send:delivered',
  'estimation-send:failed',
  // The homeowner submit round's maker (the submit request, or a stage worker): after it marked the rows it
  // takes, before it makes their jobs; after the first room's jobs are made, before the next room's; after every job
  // is made and the re-encodes are queued, before the round is recorded made.
  'insured-round:marked',
  'insured-round:making',
  'insured-round:made',
  // A capture import's download unit: after its downloads are in the bucket, before their records are written.
  'capture:downloaded',
  // The engine's fan-out (scoped by job and by claim): after a stage recorded its fan-out, before its first units are
  // sent; after a unit's work, before it is counted; after a unit was counted, before the next unit is sent or the
  // stage advanced.
  'engine:fanned-out',
  'engine:unit-done',
  'engine:mid-fan-out',
  // The refunds: a job's owed refund and a send's, after the billing service was asked, before its answer is recorded.
  'job-refund:asked',
  'send-refund:asked',
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

/**
 * True only for what an armed fault point threw: the invocation is ending as
 * a crash would, so a catch rethrows at once and a cleanup is skipped. Always
 * false unless FAULT_POINTS is 'on' (deployed bundles keep none of it).
 */
export function endsInvocation(err: unknown): boolean {
  if (process.env.FAULT_POINTS === 'on')
    return (require('./armed-fault-points') as typeof import('./armed-fault-points')).isInvocationEnded(err);
  return false;
}
