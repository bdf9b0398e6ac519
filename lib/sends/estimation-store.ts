/**
 * The estimation platform send record: one row per claim (ESTSEND#<claim_id>)
 * that carries the claim's current (or last) send as a run on the engine
 * (estimation-run-service.ts) and remembers how it ended, so a send cut off
 * anywhere is finished and a repeated one answered.
 *
 * - A send is opened by one conditional write: only while no run of the
 *   claim is under way and the row is still the one the request read, so of
 *   two requests (a double click) one opens and the other answers its send.
 * - Its steps are recorded in order: the batch and its charge reference
 *   (state 'sending'), the remote's answer ('delivered'), the stamps and the
 *   response ('done'); or a refusal ('failed', which moves the charge round
 *   on, written in one transaction with the refund it owes, before the refund
 *   is asked for). Every write of a step is conditional on the run and the
 *   runner holding its stage, so a request or worker that lost it can no
 *   longer write.
 * - The batch's item ids are rows of their own in the claim's send partition
 *   (ITEM#<batch_id>#<item_id>), not lists on the record, so a send of
 *   thousands of items never meets DynamoDB's 400 KB row limit.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { owedSendRefundPut } from '../billing/send-refund-store';
import type { UnconfirmedSpend } from '../billing/send-refund-record-rules';
import { deleteKeys, partitionKeys, putRows } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { sendIndexes, sendKeys } from './keys';
import { indexRows, partitionRows } from '../db/query';
import { type RowUpdate, rowUpdateInput, setClauses, updateRowReturningNew } from '../db/update';
import type { RunRecord } from '../orchestrator/run-kind';
import type { Destination, Pricing } from './estimation-rules';

/** How far the send got: its batch recorded and charged ('sending'), accepted by the remote, finished or refused. */
type SendState = 'sending' | 'delivered' | 'done' | 'failed';
/** The run's status: under way, or how it ended. */
type SendStatus = 'processing' | 'done' | 'failed';

export interface RemoteOutcome {
  claim_key: string;
  claim_id: string;
  created: boolean;
  added: number;
  skipped: number;
}

/** The response of a finished send (also replayed to a repeat of it). */
export interface SendResult {
  claim_key: string;
  claim_id: string;
  created: boolean;
  items_sent: number;
  item_ids: string[];
  added: number;
  skipped: number;
  credits_charged: number;
  photos_included: number;
  dry_run: boolean;
  warnings: string[];
  sent_at: string;
}

export type StoredSendResult = Omit<SendResult, 'item_ids'>;

export interface EstimationSend extends RunRecord {
  /** The claim's id: the send's run is addressed by it. */
  id: string;
  claim_id: string;
  team_id: string;
  status: SendStatus;
  state: SendState;
  /** Charge round of the current (or last) attempt; moves on after a failure. */
  round: number;
  reference: string | null;
  /** Credits the batch costs, decided when it is recorded. */
  planned_credits: number;
  /** Credits the attempt spent, once the billing service answered (0 before, and when uncharged). */
  credits: number;
  /** The spend's answer was lost: the service may hold it. */
  charge_unconfirmed: boolean;
  /** That lost spend, as asked: a refund of it asks for it again first (send-refund-store.ts). */
  charge_spend?: UnconfirmedSpend | null;
  /** The current (or last) batch: its item rows are ITEM#<batch_id>#…. */
  batch_id: string | null;
  item_count: number;
  destination: Destination | null;
  pricing: Pricing | null;
  photos_included: number;
  warnings: string[];
  dry_run: boolean;
  sender_user_id: string | null;
  remote: RemoteOutcome | null;
  /** The finished send's response, without its item ids (those are the batch's rows). */
  result: StoredSendResult | null;
  /** Why the last attempt failed, in the user's words. */
  error?: string | null;
}

/** A row written before sends ran on the engine has no id, run or status: they are read from its state. */
function asEstimationSend(row: Record<string, unknown>): EstimationSend {
  const send = withoutKeys(row) as unknown as EstimationSend;
  return {
    ...send,
    id: send.claim_id,
    // One still sending or delivered is under way (the migration gives it its run); any other has ended.
    status:
      send.status ??
      (send.state === 'sending' || send.state === 'delivered'
        ? 'processing'
        : send.state === 'failed'
          ? 'failed'
          : 'done'),
    planned_credits: send.planned_credits ?? send.credits ?? 0,
  };
}

/** The send's place on the open-runs index the watchdog walks: listed while processing, by its last heartbeat. */
const openRuns = (claimId: string) => ({
  pk: sendIndexes.openEstimationSends().pk,
  id: claimId,
  listed: (status: string) => status === 'processing',
});

export async function getEstimationSend(claimId: string): Promise<EstimationSend | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: sendKeys.estimationSend(claimId), ConsistentRead: true }),
  );
  return Item ? asEstimationSend(Item) : null;
}

/**
 * Opens a send: the claim's row becomes `send` (its run under way) only
 * while no send of the claim is under way and the row is the one the
 * request read (`seenRunId`: its run, null when it had none). False when
 * another request opened one first (its send is this request's answer).
 */
export async function openEstimationSend(send: EstimationSend, seenRunId: string | null): Promise<boolean> {
  // A row of before the engine still sending or delivered has no run yet (the migration gives it one): never replaced.
  const seen = seenRunId ? 'run_id = :seen' : 'attribute_not_exists(run_id) AND NOT (#state IN (:sending, :delivered))';
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...sendKeys.estimationSend(send.claim_id),
          entity: 'EstimationSend',
          activepk: sendIndexes.openEstimationSends().pk,
          activesk: `${send.heartbeat_at}#${send.claim_id}`,
          ...send,
        },
        ConditionExpression: `attribute_not_exists(pk) OR ((attribute_not_exists(#status) OR #status <> :processing) AND ${seen})`,
        ExpressionAttributeNames: { '#status': 'status', ...(seenRunId ? {} : { '#state': 'state' }) },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ...(seenRunId ? { ':seen': seenRunId } : { ':sending': 'sending', ':delivered': 'delivered' }),
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** One conditional update of the send's row, keeping its place on the open-runs index (the run kind's store). */
export function estimationSendUpdateInput(claimId: string, update: RowUpdate, now = new Date()) {
  return rowUpdateInput(sendKeys.estimationSend(claimId), update, now, openRuns(claimId));
}

/** The send after `update`, or null when its condition did not hold. */
export async function updateEstimationSend(
  claimId: string,
  update: RowUpdate,
  now = new Date(),
): Promise<EstimationSend | null> {
  const row = await updateRowReturningNew(estimationSendUpdateInput(claimId, update, now));
  return row && asEstimationSend(row);
}

type StepFields = Partial<
  Pick<
    EstimationSend,
    'state' | 'credits' | 'charge_unconfirmed' | 'charge_spend' | 'remote' | 'photos_included' | 'warnings'
  >
>;

/** The run and the runner that hold the send's stage: every step is written only while they still do. */
export type StageHolder = Pick<EstimationSend, 'claim_id' | 'run_id' | 'stage_runner'>;

const heldBy = (holder: StageHolder): RowUpdate => ({
  expectStatus: ['processing'],
  condition: 'run_id = :run AND stage_state = :running AND stage_runner = :runner',
  values: { ':run': holder.run_id, ':running': 'running', ':runner': holder.stage_runner },
});

/** Writes a step's fields while `holder` holds the send's stage; null when it no longer does. */
export function recordSendStep(holder: StageHolder, fields: StepFields): Promise<EstimationSend | null> {
  return updateEstimationSend(holder.claim_id, { ...heldBy(holder), set: fields });
}

/**
 * Ends the send's run in failure: state 'failed', the charge round moved on,
 * the run off the open index and, in the same transaction, the refund its
 * charge owes (the billing sweep asks for it until the service confirms it).
 * Only then may the refund be asked for: a refunded reference must never be
 * left on a send still under way, which would be finished under it for free.
 * `holder`: only while that runner holds the stage (the request, or a
 * worker); without it, while the run is the one seen and still under way (the
 * watchdog). False when the send had moved on.
 */
export async function recordSendFailure(
  send: Pick<EstimationSend, 'claim_id' | 'run_id' | 'round'>,
  error: string,
  refund: { teamId: string; reference: string; spend?: UnconfirmedSpend } | null,
  holder?: StageHolder,
): Promise<boolean> {
  const guard: RowUpdate = holder
    ? heldBy(holder)
    : { expectStatus: ['processing'], condition: 'run_id = :run', values: { ':run': send.run_id } };
  const update = estimationSendUpdateInput(send.claim_id, {
    ...guard,
    set: {
      status: 'failed',
      state: 'failed',
      round: send.round + 1,
      error,
      remote: null,
      result: null,
      stage_state: 'done',
      stage_runner: null,
    },
  });
  const now = new Date();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: update },
          ...(refund
            ? [{ Put: owedSendRefundPut(refund.teamId, refund.reference, now, undefined, refund.spend) }]
            : []),
        ],
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionRace(err)) throw err;
    const [record, owed] = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    // The refund is owed already (recorded under this reference before): the failure alone.
    if (refund && owed?.Code === 'ConditionalCheckFailed' && (!record?.Code || record.Code === 'None'))
      return recordSendFailure(send, error, null, holder);
    return false;
  }
}

/** Ends the send's run done (after its closing write); false when it had ended already (another writer won). */
export async function recordSendDone(send: Pick<EstimationSend, 'claim_id' | 'run_id'>): Promise<boolean> {
  const done = await updateEstimationSend(send.claim_id, {
    set: { status: 'done', state: 'done', error: null, stage_runner: null },
    expectStatus: ['processing'],
    condition: 'run_id = :run',
    values: { ':run': send.run_id },
  });
  return Boolean(done);
}

/** The claims whose estimation send is under way (the open-runs index), the quietest first. */
export async function* openEstimationSendClaimIds(): AsyncGenerator<string> {
  for await (const row of indexRows(sendIndexes.openEstimationSends())) yield String(row.pk).slice('ESTSEND#'.length);
}

/** Writes the item rows of a new batch (before the send that names it is opened). */
export async function recordBatchItems(claimId: string, batchId: string, itemIds: string[]): Promise<void> {
  await putRows(
    itemIds.map((itemId) => ({
      ...sendKeys.estimationSendItem(claimId, batchId, itemId),
      entity: 'EstimationSendItem',
      item_id: itemId,
    })),
  );
}

/** Drops the item rows of one batch (the previous send's, once a new one is open; or a request's that lost the open). */
export async function dropBatch(claimId: string, batchId: string): Promise<void> {
  const rows = (await partitionKeys(sendKeys.estimationSend(claimId).pk)).filter((k) =>
    k.sk.startsWith(`ITEM#${batchId}#`),
  );
  await deleteKeys(rows);
}

/** The item ids of the record's batch (a record written before batches had rows keeps them in a list). */
export async function batchItemIds(record: Pick<EstimationSend, 'claim_id' | 'batch_id'>): Promise<string[]> {
  if (!record.batch_id) return (record as { item_ids?: string[] }).item_ids ?? [];
  const ids: string[] = [];
  for await (const row of partitionRows(sendKeys.estimationSend(record.claim_id).pk, {
    skPrefix: `ITEM#${record.batch_id}#`,
    consistent: true,
    projection: 'item_id',
  }))
    ids.push(String(row.item_id));
  return ids;
}

/** The purge's part: the record and its batch rows go with the claim. */
export async function deleteEstimationSend(claimId: string): Promise<void> {
  await deleteKeys(await partitionKeys(sendKeys.estimationSend(claimId).pk));
}

/**
 * Gives a send of before the engine (still 'sending' or 'delivered', no run,
 * its lease run out) its run, with `run`'s fields (the migration's). Null
 * when the row has a run already, has ended, or its old lease still holds.
 */
export async function openMigratedEstimationRun(
  claimId: string,
  run: Record<string, unknown> & { heartbeat_at: string },
  now: number,
): Promise<EstimationSend | null> {
  const set = setClauses({
    ...run,
    activepk: sendIndexes.openEstimationSends().pk,
    activesk: `${run.heartbeat_at}#${claimId}`,
  });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sendKeys.estimationSend(claimId),
        UpdateExpression: `SET ${set.expression} REMOVE #owner_, lease_until`,
        ConditionExpression:
          'attribute_not_exists(run_id) AND #state_ IN (:sending, :delivered) AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { ...set.names, '#owner_': 'owner', '#state_': 'state' },
        ExpressionAttributeValues: { ...set.values, ':sending': 'sending', ':delivered': 'delivered', ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asEstimationSend(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** The raw rows of the claims whose send is listed open (a send of before the engine is listed there too). */
export async function* openEstimationSendRows(): AsyncGenerator<Record<string, unknown>> {
  for await (const claimId of openEstimationSendClaimIds()) {
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: sendKeys.estimationSend(claimId), ConsistentRead: true }),
    );
    if (Item) yield withoutKeys(Item);
  }
}
