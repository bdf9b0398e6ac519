/**
 * The engine's rows in the table: fan-out unit leases and the fan-in count
 * (of a stage, or of one branch of a branch stage).
 * The only place in lib/orchestrator that builds DynamoDB commands (a run's
 * subject row goes through its kind's store: run-kind.ts).
 *
 * A unit becomes done and is counted into its run's fan-in in ONE
 * transaction, so no crash, throttle or lost race can leave a unit done but
 * uncounted (the fan-in would never finish) or counted twice.
 */
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../db/client';
import type { BranchRun } from '../db/run-state';
import { withRetry } from '../retry';
import { branchPathNames, stepKey } from './branch-rules';
import type { RunKind, RunRecord, RunUpdate, UpdateInput } from './run-kind';

export const leaseUntil = (now = Date.now()) => new Date(now + settings().STAGE_LEASE_SECONDS * 1000).toISOString();

const unitSk = (runId: string, stage: string, index: number) => `${runId}#${stage}#${String(index).padStart(6, '0')}`;
const unitKey = (kind: RunKind, record: Pick<RunRecord, 'id' | 'run_id'>, stage: string, index: number) => ({
  pk: kind.unitPartition(record.id),
  sk: unitSk(record.run_id as string, stage, index),
});

export interface UnitRecord {
  index: number;
  state: 'running' | 'done';
  outcome?: 'ok' | 'failed';
  runner: string;
  lease_until: string;
  attempts: number;
  error?: string;
}

const indexOf = (sk: string) => Number(sk.slice(sk.lastIndexOf('#') + 1));
const toUnit = (item: Record<string, unknown>): UnitRecord => ({
  ...(item as unknown as UnitRecord),
  index: indexOf(String(item.sk)),
});

/** Claims a unit: free, or running under an expired lease (its worker died). */
export async function claimUnit(
  kind: RunKind,
  record: RunRecord,
  stage: string,
  index: number,
  runner: string,
): Promise<UnitRecord | null> {
  const now = new Date().toISOString();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: unitKey(kind, record, stage, index),
        UpdateExpression:
          'SET #state = :running, runner = :runner, lease_until = :lease, entity = :entity ADD attempts :one',
        ConditionExpression: 'attribute_not_exists(pk) OR (#state = :running AND lease_until < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':runner': runner,
          ':lease': leaseUntil(),
          ':now': now,
          ':entity': 'JobUnit',
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toUnit(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Lets another delivery take the unit at once (used before asking SQS to retry it). */
export async function releaseUnit(
  kind: RunKind,
  record: RunRecord,
  stage: string,
  index: number,
  runner: string,
): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: unitKey(kind, record, stage, index),
        UpdateExpression: 'SET lease_until = :past',
        ConditionExpression: '#state = :running AND runner = :runner',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':past': new Date(0).toISOString(), ':running': 'running', ':runner': runner },
      }),
    )
    .catch(() => undefined);
}

/** Every unit row of a stage of the subject's current run. */
export async function listUnits(
  kind: RunKind,
  record: Pick<RunRecord, 'id' | 'run_id'>,
  stage: string,
): Promise<UnitRecord[]> {
  return (await unitRows(kind, record, stage)).map(toUnit);
}

async function unitRows(
  kind: RunKind,
  record: Pick<RunRecord, 'id' | 'run_id'>,
  stage: string,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': kind.unitPartition(record.id), ':prefix': `${record.run_id}#${stage}#` },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    rows.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return rows;
}

export type FanInResult =
  /** Done and counted; `record` is the subject right after the count (fanout_next − 1 is the unit this completion dispatches). */
  | { kind: 'counted'; record: RunRecord }
  /** Another runner took the unit over (or finished it): this runner's result is not counted. */
  | { kind: 'lost' }
  /** The run left this fan-out (failed, restarted, advanced): nothing to count into. */
  | { kind: 'stale' };

const RETRYABLE_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'TransactionInProgressException',
  'InternalServerError',
]);
const RETRYABLE_REASONS = new Set([
  'ConditionalCheckFailed',
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

const cancellationReasons = (err: unknown): { Code?: string }[] =>
  isTransactionCanceled(err) ? ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []) : [];

/** A throttle, a conflict, or the run's counters moved (another unit counted first): read again and retry. */
const isRetryableFanIn = (err: unknown) =>
  RETRYABLE_ERRORS.has((err as { name?: string } | undefined)?.name ?? '') ||
  cancellationReasons(err).some((r) => RETRYABLE_REASONS.has(r.Code ?? ''));

/**
 * Marks the claimed unit done and counts it into the run's fan-in, as one
 * transaction: the unit's conditional update (still ours, still running) and
 * the subject's conditional ADD of fanout_done and fanout_next, conditioned on
 * the counters it read, so each completion knows exactly which unit it
 * dispatches next and whether it was the last. A lost race on the subject
 * (another unit counted first), a transaction conflict or a throttle reads it
 * again and retries; nothing is written unless both writes are.
 */
export async function finishAndCount(
  kind: RunKind,
  job: RunRecord,
  stage: string,
  index: number,
  runner: string,
  outcome: 'ok' | 'failed',
  error?: string,
): Promise<FanInResult> {
  const attempt = async (): Promise<FanInResult> => {
    const current = await kind.get(job.id);
    if (!current || current.run_id !== job.run_id || current.stage_name !== stage || current.stage_state !== 'fanout')
      return { kind: 'stale' };
    const now = new Date();
    const countJob = kind.updateInput(
      job.id,
      {
        set: { heartbeat_at: now.toISOString() },
        add: { fanout_done: 1, fanout_next: 1 },
        condition:
          'run_id = :run AND stage_name = :stage AND stage_state = :fanout AND fanout_done = :seen_done AND fanout_next = :seen_next',
        values: {
          ':run': job.run_id,
          ':stage': stage,
          ':fanout': 'fanout',
          ':seen_done': current.fanout_done,
          ':seen_next': current.fanout_next,
        },
      },
      now,
    );
    if (!(await transactUnitAndJob(finishUnitUpdate(kind, job, stage, index, runner, outcome, now, error), countJob)))
      return { kind: 'lost' };
    return {
      kind: 'counted',
      record: {
        ...current,
        fanout_done: current.fanout_done + 1,
        fanout_next: current.fanout_next + 1,
        heartbeat_at: now.toISOString(),
      },
    };
  };
  return withRetry(attempt, FAN_IN_RETRY);
}

/** What the write that counts a branch's last unit also sets: the branch done, counted into the stage's join. */
export type BranchClosing = (current: RunRecord) => Pick<RunUpdate, 'set' | 'condition' | 'values'>;

/**
 * finishAndCount for a unit of one branch of a branch stage: the unit's
 * conditional update and the count into the branch's own counters
 * (branches.<branch>.fanout_done/next, conditioned on the values read), as
 * one transaction. When this count is the branch's last, the same write
 * also closes the branch (`closing`: state done, branches_done + 1
 * conditioned on the value read, the job's status), so a branch is marked
 * done and counted into the join exactly once.
 */
export async function finishAndCountBranch(
  kind: RunKind,
  job: RunRecord,
  stage: string,
  branch: string,
  index: number,
  runner: string,
  outcome: 'ok' | 'failed',
  closing: BranchClosing,
  error?: string,
): Promise<FanInResult> {
  const attempt = async (): Promise<FanInResult> => {
    const current = await kind.get(job.id);
    const run = current?.branches?.[branch];
    if (
      !current ||
      !run ||
      current.run_id !== job.run_id ||
      current.stage_name !== stage ||
      current.stage_state !== 'branches' ||
      run.state !== 'fanout'
    )
      return { kind: 'stale' };
    const now = new Date();
    const done = (run.fanout_done ?? 0) + 1;
    const next = (run.fanout_next ?? 0) + 1;
    const last = done >= (run.fanout_total ?? 0);
    const close = last ? closing(current) : { set: {}, condition: undefined, values: {} };
    const countJob = kind.updateInput(
      job.id,
      {
        set: {
          ...close.set,
          heartbeat_at: now.toISOString(),
          [`branches.${branch}.fanout_done`]: done,
          [`branches.${branch}.fanout_next`]: next,
        },
        condition: [
          'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND #B_MAP.#B_NAME.#B_STATE = :fanout',
          '#B_MAP.#B_NAME.fanout_done = :seen_done AND #B_MAP.#B_NAME.fanout_next = :seen_next',
          ...(close.condition ? [close.condition] : []),
        ].join(' AND '),
        values: {
          ...close.values,
          ':run': job.run_id,
          ':stage': stage,
          ':in_branches': 'branches',
          ':fanout': 'fanout',
          ':seen_done': run.fanout_done ?? 0,
          ':seen_next': run.fanout_next ?? 0,
        },
        names: branchPathNames(branch),
      },
      now,
    );
    const unit = finishUnitUpdate(kind, job, stepKey(stage, branch), index, runner, outcome, now, error);
    if (!(await transactUnitAndJob(unit, countJob))) return { kind: 'lost' };
    const counted: BranchRun = { ...run, fanout_done: done, fanout_next: next, state: last ? 'done' : 'fanout' };
    return {
      kind: 'counted',
      record: {
        ...current,
        ...(close.set as Partial<RunRecord>),
        branches: { ...current.branches, [branch]: counted },
        branches_done: (current.branches_done ?? 0) + (last ? 1 : 0),
        heartbeat_at: now.toISOString(),
      },
    };
  };
  return withRetry(attempt, FAN_IN_RETRY);
}

// Jittered, growing pauses: units that finish together spread out. Each lost race is another unit counted, so a
// stage whose units all finish at once needs about as many attempts as it runs units side by side: 12 were spent
// by one of a 300-page list's units on a busy machine, and its message went back to the queue to be delivered again.
const FAN_IN_RETRY = { attempts: 30, backoffMs: 20, maxBackoffMs: 2000, jitter: true, retryable: isRetryableFanIn };

/** The unit's half of a fan-in transaction: done, with its outcome, if this runner still holds it. */
function finishUnitUpdate(
  kind: RunKind,
  job: RunRecord,
  step: string,
  index: number,
  runner: string,
  outcome: 'ok' | 'failed',
  now: Date,
  error?: string,
) {
  return {
    TableName: tableName(),
    Key: unitKey(kind, job, step, index),
    UpdateExpression: `SET #state = :done, outcome = :outcome, finished_at = :now${error ? ', #error = :error' : ''}`,
    ConditionExpression: '#state = :running AND runner = :runner',
    ExpressionAttributeNames: { '#state': 'state', ...(error ? { '#error': 'error' } : {}) },
    ExpressionAttributeValues: {
      ':done': 'done',
      ':running': 'running',
      ':runner': runner,
      ':outcome': outcome,
      ':now': now.toISOString(),
      ...(error ? { ':error': error.slice(0, 500) } : {}),
    },
  };
}

/** Writes both halves or neither; false when the unit was not ours any more (another runner took it). */
async function transactUnitAndJob(unit: ReturnType<typeof finishUnitUpdate>, countJob: UpdateInput): Promise<boolean> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [{ Update: unit }, { Update: countJob }] }));
    return true;
  } catch (err) {
    if (cancellationReasons(err)[0]?.Code === 'ConditionalCheckFailed') return false;
    throw err;
  }
}
