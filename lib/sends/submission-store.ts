/**
 * Submissions: one record per claims platform send (spec: Submission record),
 * listed per claim newest first (gsi1 CLAIM#<claim_id>#SUBMISSIONS), and the
 * claim's one open send (CLAIMSEND#<claim_id>).
 *
 * A send is a run on the engine (claims-platform-run-service.ts): the
 * Submission row carries the run's fields. The request opens it with one
 * transaction: the claim's open-send row moves from the send it last saw to
 * this one (so of two requests that saw the same state, one opens and the
 * other answers the winner's send), and the Submission is written with its
 * run open in the stage the request itself runs, under the request's lease,
 * at the step `charging` with the charge it is about to make. A processing
 * Submission sits on the open-runs index the watchdog walks, so a send whose
 * request died is found once its lease has run out. A failure and the refund
 * it owes are written in one transaction.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { owedSendRefundPut } from '../billing/send-refund-store';
import type { UnconfirmedSpend } from '../billing/send-refund-record-rules';
import { deleteKeys, partitionKeys } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { sendIndexes, sendKeys } from './keys';
import { indexRows, queryAll } from '../db/query';
import { type RowUpdate, rowUpdateInput, setClauses, updateRowReturningNew } from '../db/update';
import type { ClaimSend, RequestStep, Submission } from './submission-record-rules';

const ROUND_PREFIX = 'round_';

const asSubmission = (row: Record<string, unknown>) => withoutKeys(row) as unknown as Submission;

/** A send's place on the open-runs index the watchdog walks: listed while processing, by its last heartbeat. */
const openRuns = (id: string) => ({
  pk: sendIndexes.openSubmissions().pk,
  id,
  listed: (status: string) => status === 'processing',
});

export async function getClaimSend(claimId: string): Promise<ClaimSend> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: sendKeys.claimSend(claimId), ConsistentRead: true }),
  );
  const rounds: Record<string, number> = {};
  for (const [name, value] of Object.entries(Item ?? {}))
    if (name.startsWith(ROUND_PREFIX)) rounds[name.slice(ROUND_PREFIX.length)] = Number(value);
  return { submission_id: (Item?.submission_id as string | undefined) ?? null, rounds };
}

/**
 * Opens a send: the claim's open send moves from `seen.previous` to this
 * Submission, the batch's charge round is taken, and the Submission is
 * written, all or nothing. False when another request moved the claim's open
 * send first (its send is this request's answer).
 */
export async function openSubmission(
  submission: Submission,
  seen: { previous: string | null; alreadySubmitted: number; round: number },
): Promise<boolean> {
  const index = sendIndexes.claimSubmissions(submission.claim_id);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: sendKeys.claimSend(submission.claim_id),
              UpdateExpression: 'SET submission_id = :id, claim_id = :claim, entity = :entity, #round = :round',
              ConditionExpression: seen.previous ? 'submission_id = :previous' : 'attribute_not_exists(submission_id)',
              ExpressionAttributeNames: { '#round': `${ROUND_PREFIX}${seen.alreadySubmitted}` },
              ExpressionAttributeValues: {
                ':id': submission.id,
                ':claim': submission.claim_id,
                ':entity': 'ClaimSend',
                ':round': seen.round,
                ...(seen.previous ? { ':previous': seen.previous } : {}),
              },
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...sendKeys.submission(submission.id),
                entity: 'Submission',
                gsi1pk: index.pk,
                gsi1sk: `${submission.created_at}#${submission.id}`,
                activepk: sendIndexes.openSubmissions().pk,
                activesk: `${submission.heartbeat_at}#${submission.id}`,
                ...submission,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/**
 * Takes back a send refused before anything was charged (402): the
 * Submission and its item rows go and the claim's open send is as it was.
 * The charge round stays taken: the billing service remembers a refusal under
 * its reference, so the next send asks under the next round's.
 */
export async function withdrawSubmission(
  submission: Pick<Submission, 'id' | 'claim_id'>,
  seen: { previous: string | null },
): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: sendKeys.submission(submission.id),
            ConditionExpression: '#status_ = :processing AND request_step = :charging',
            ExpressionAttributeNames: { '#status_': 'status' },
            ExpressionAttributeValues: { ':processing': 'processing', ':charging': 'charging' },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: sendKeys.claimSend(submission.claim_id),
            UpdateExpression: seen.previous ? 'SET submission_id = :previous' : 'REMOVE submission_id',
            ConditionExpression: 'submission_id = :id',
            ExpressionAttributeValues: {
              ':id': submission.id,
              ...(seen.previous ? { ':previous': seen.previous } : {}),
            },
          },
        },
      ],
    }),
  );
  await deleteKeys(
    (await partitionKeys(sendKeys.submission(submission.id).pk)).filter((k) => k.sk.startsWith('ITEM#')),
  );
}

export async function getSubmission(id: string): Promise<Submission | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: sendKeys.submission(id), ConsistentRead: true }),
  );
  return Item ? asSubmission(Item) : null;
}

export async function listClaimSubmissions(claimId: string): Promise<Submission[]> {
  const rows = await queryAll<Record<string, unknown>>(sendIndexes.claimSubmissions(claimId), {
    ScanIndexForward: false,
  });
  return rows.map(asSubmission);
}

type StepFields = Partial<Pick<Submission, 'credits' | 'charge_spend' | 'done_count'>>;

/** One conditional update of a send's row, keeping its place on the open-runs index (the run kind's store). */
export function submissionUpdateInput(id: string, update: RowUpdate, now = new Date()) {
  return rowUpdateInput(sendKeys.submission(id), update, now, openRuns(id));
}

/** The send after `update`, or null when its condition did not hold. */
export async function updateSubmission(id: string, update: RowUpdate, now = new Date()): Promise<Submission | null> {
  const row = await updateRowReturningNew(submissionUpdateInput(id, update, now));
  return row && asSubmission(row);
}

/**
 * Moves a send's request from step `from` to `to` with `fields`; null when
 * the send is no longer there (the watchdog failed it, its lease having run
 * out, or a request of the same run moved it first).
 */
export async function advanceSubmission(
  submission: Pick<Submission, 'id' | 'run_id'>,
  from: RequestStep,
  to: RequestStep,
  fields: StepFields = {},
): Promise<Submission | null> {
  return updateSubmission(submission.id, {
    set: { ...fields, request_step: to },
    expectStatus: ['processing'],
    condition: 'run_id = :run AND request_step = :from',
    values: { ':run': submission.run_id, ':from': from },
  });
}

/** The fields a finished send keeps: off the open index, no request step, its run done. */
function finishUpdate(
  id: string,
  fields: Record<string, unknown>,
  guard: { condition: string; values: Record<string, unknown>; names?: Record<string, string> },
) {
  const set = setClauses({ ...fields, request_step: null, stage_state: 'done', stage_runner: null });
  return {
    TableName: tableName(),
    Key: sendKeys.submission(id),
    UpdateExpression: `SET ${set.expression} REMOVE activepk, activesk`,
    ConditionExpression: `attribute_exists(pk) AND #status_ = :processing AND ${guard.condition}`,
    ExpressionAttributeNames: { ...set.names, '#status_': 'status', ...(guard.names ?? {}) },
    ExpressionAttributeValues: { ...set.values, ':processing': 'processing', ...guard.values },
  };
}

/**
 * Fails a send whose request is at step `from` in the run it was seen in,
 * recording the refund it owes in the same transaction. False when the send
 * had moved on.
 */
export async function failSubmission(
  submission: Pick<Submission, 'id' | 'created_at' | 'run_id'>,
  from: RequestStep,
  error: string,
  options: { refund?: { teamId: string; reference: string; spend?: UnconfirmedSpend } | null } = {},
): Promise<boolean> {
  const now = new Date();
  const fields = {
    status: 'failed',
    error,
    completed_at: now.toISOString(),
    processing_seconds: secondsSince(submission.created_at, now),
  };
  const guard = {
    condition: 'request_step = :from AND run_id = :run',
    values: { ':from': from, ':run': submission.run_id },
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: finishUpdate(submission.id, fields, guard) },
          ...(options.refund
            ? [
                {
                  Put: owedSendRefundPut(
                    options.refund.teamId,
                    options.refund.reference,
                    now,
                    undefined,
                    options.refund.spend,
                  ),
                },
              ]
            : []),
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** Completes a send (its run done, or a dry run); null when it is no longer processing. */
export async function completeSubmission(
  submission: Pick<Submission, 'id' | 'created_at'>,
  fields: StepFields & Partial<Pick<Submission, 'claim_key'>> = {},
): Promise<Submission | null> {
  const now = new Date();
  const update = finishUpdate(
    submission.id,
    {
      ...fields,
      status: 'complete',
      completed_at: now.toISOString(),
      processing_seconds: secondsSince(submission.created_at, now),
    },
    { condition: 'attribute_exists(run_id)', values: {} },
  );
  try {
    const { Attributes } = await db().send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
    return asSubmission(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

function secondsSince(createdAt: string, now: Date): number {
  return Math.round((now.getTime() - Date.parse(createdAt)) / 100) / 10;
}

/** The ids of processing sends (the open-runs index), the quietest first. */
export async function* openSubmissionIds(): AsyncGenerator<string> {
  for await (const row of indexRows(sendIndexes.openSubmissions())) yield String(row.pk).slice('SUBMISSION#'.length);
}

/** The purge's part: a claim's submissions, their item and unit rows and its open-send row go with it. */
export async function deleteClaimSubmissions(claimId: string): Promise<number> {
  const rows = await listClaimSubmissions(claimId);
  for (const row of rows) await deleteKeys(await partitionKeys(sendKeys.submission(row.id).pk));
  await deleteKeys([sendKeys.claimSend(claimId)]);
  return rows.length;
}
