/**
 * Submissions: one record per claims platform send (spec: Submission record),
 * listed per claim newest first (gsi1 CLAIM#<claim_id>#SUBMISSIONS), and the
 * claim's one open send (CLAIMSEND#<claim_id>).
 *
 * A send is a leased state machine. The request opens it with one
 * transaction: the claim's open-send row moves from the send it last saw to
 * this one (so of two requests that saw the same state, one opens and the
 * other answers the winner's send), and the Submission is written in stage
 * `charging` with the charge it is about to make. Each later step moves the
 * stage on with a conditional write and renews the lease; a processing
 * Submission sits on the open-submissions index under its lease's end, so the
 * send sweep (submission-sweep-service.ts) finds the sends whose process died.
 * A failure and the refund it owes are written in one transaction.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { owedSendRefundPut, type UnconfirmedSpend } from '../billing/send-refund-store';
import { deleteKeys, partitionKeys } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { indexRows, queryAll } from '../db/query';
import { setClauses } from '../db/update';

type SubmissionStatus = 'processing' | 'complete' | 'failed';

/**
 * Where a processing send is: `charging` (recorded, its charge asked for),
 * `syncing` (the remote claim and rooms), `fanning_out` (the worker is
 * putting one message per item on the queue), `sending` (items on the queue).
 */
export type SubmissionStage = 'charging' | 'syncing' | 'fanning_out' | 'sending';

export interface Submission {
  id: string;
  claim_id: string;
  team_id: string;
  status: SubmissionStatus;
  /** Null once the send is finished. */
  stage: SubmissionStage | null;
  charge_key: string;
  /** Credits charged (planned, until the billing service answered). */
  credits: number;
  item_count: number;
  /** Photos the platform was given, counted as items finish. */
  photo_count: number;
  done_count: number;
  failed_count: number;
  claim_key: string | null;
  remote_claim_id: string | null;
  dry_run: boolean;
  error: string | null;
  created_by_user_id: string;
  created_at: string;
  completed_at: string | null;
  /** End-to-end time, request to the last item, in seconds. */
  processing_seconds: number | null;
  /** Epoch ms the current step's lease ends (0 once finished). */
  lease_until: number;
  /** Times the send sweep handed an expired send back to the worker. */
  resumes: number;
  /**
   * The charge's spend when its answer was lost (it may or may not be on the
   * ledger): every refund the send owes asks for it again first.
   */
  charge_spend?: UnconfirmedSpend | null;
}

/** The claim's open-send row: the send it points at and the charge round each batch size last used. */
export interface ClaimSend {
  submission_id: string | null;
  /** already_submitted → the last charge round used for it (references are never reused). */
  rounds: Record<string, number>;
}

const ROUND_PREFIX = 'round_';

const asSubmission = (row: Record<string, unknown>) => withoutKeys(row) as unknown as Submission;

/** The open-submissions index entry of a send whose lease ends at `leaseUntil`. */
const openEntry = (id: string, leaseUntil: number) => ({
  activepk: indexes.openSubmissions().pk,
  activesk: `${new Date(leaseUntil).toISOString()}#${id}`,
});

export async function getClaimSend(claimId: string): Promise<ClaimSend> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.claimSend(claimId), ConsistentRead: true }),
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
  const index = indexes.claimSubmissions(submission.claim_id);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.claimSend(submission.claim_id),
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
                ...keys.submission(submission.id),
                entity: 'Submission',
                gsi1pk: index.pk,
                gsi1sk: `${submission.created_at}#${submission.id}`,
                ...openEntry(submission.id, submission.lease_until),
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
            Key: keys.submission(submission.id),
            ConditionExpression: '#status_ = :processing AND stage = :charging',
            ExpressionAttributeNames: { '#status_': 'status' },
            ExpressionAttributeValues: { ':processing': 'processing', ':charging': 'charging' },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.claimSend(submission.claim_id),
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
  await deleteKeys((await partitionKeys(keys.submission(submission.id).pk)).filter((k) => k.sk.startsWith('ITEM#')));
}

export async function getSubmission(id: string): Promise<Submission | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.submission(id), ConsistentRead: true }),
  );
  return Item ? asSubmission(Item) : null;
}

export async function listClaimSubmissions(claimId: string): Promise<Submission[]> {
  const rows = await queryAll<Record<string, unknown>>(indexes.claimSubmissions(claimId), { ScanIndexForward: false });
  return rows.map(asSubmission);
}

type StepFields = Partial<
  Pick<
    Submission,
    'credits' | 'charge_spend' | 'claim_key' | 'remote_claim_id' | 'resumes' | 'done_count' | 'completed_at'
  >
>;

/**
 * Moves a processing send from stage `from` to `to` with `fields`, its lease
 * renewed to `leaseUntil`; null when the send is no longer there (the sweep
 * failed it, or another process moved it first).
 */
export async function advanceSubmission(
  id: string,
  from: SubmissionStage,
  to: SubmissionStage,
  leaseUntil: number,
  fields: StepFields = {},
): Promise<Submission | null> {
  const set = setClauses({ ...fields, stage: to, lease_until: leaseUntil, ...openEntry(id, leaseUntil) });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submission(id),
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: 'attribute_exists(pk) AND #status_ = :processing AND #stage_ = :from',
        ExpressionAttributeNames: { ...set.names, '#status_': 'status', '#stage_': 'stage' },
        ExpressionAttributeValues: { ...set.values, ':processing': 'processing', ':from': from },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asSubmission(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** The fields a finished send keeps: off the open index, no stage, no lease. */
function finishUpdate(id: string, fields: Record<string, unknown>, condition: string, values: Record<string, unknown>) {
  const set = setClauses({ ...fields, stage: null, lease_until: 0 });
  return {
    TableName: tableName(),
    Key: keys.submission(id),
    UpdateExpression: `SET ${set.expression} REMOVE activepk, activesk`,
    ConditionExpression: `attribute_exists(pk) AND #status_ = :processing AND ${condition}`,
    ExpressionAttributeNames: { ...set.names, '#status_': 'status', '#stage_': 'stage' },
    ExpressionAttributeValues: { ...set.values, ':processing': 'processing', ...values },
  };
}

/**
 * Fails a send in stage `from` (and, for the sweep, only while its lease is
 * still the one it saw expire), recording the refund it owes in the same
 * transaction. False when the send had moved on.
 */
export async function failSubmission(
  submission: Pick<Submission, 'id' | 'created_at'>,
  from: SubmissionStage,
  error: string,
  options: {
    refund?: { teamId: string; reference: string; spend?: UnconfirmedSpend } | null;
    leaseSeen?: number;
  } = {},
): Promise<boolean> {
  const now = new Date();
  const fields = {
    status: 'failed',
    error,
    completed_at: now.toISOString(),
    processing_seconds: secondsSince(submission.created_at, now),
  };
  const condition = options.leaseSeen === undefined ? '#stage_ = :from' : '#stage_ = :from AND lease_until = :seen';
  const values = { ':from': from, ...(options.leaseSeen === undefined ? {} : { ':seen': options.leaseSeen }) };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: finishUpdate(submission.id, fields, condition, values) },
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

/** Completes a sending send (every item counted, or a dry run); null when it is no longer processing. */
export async function completeSubmission(
  submission: Pick<Submission, 'id' | 'created_at'>,
  fields: StepFields = {},
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
    'attribute_exists(#stage_)',
    {},
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

/** The ids of processing sends whose lease ended before `now`, the longest expired first. */
export async function* expiredSubmissionIds(now: Date): AsyncGenerator<string> {
  const cutoff = now.toISOString();
  for await (const row of indexRows(indexes.openSubmissions())) {
    if (String(row.activesk) >= cutoff) return;
    yield String(row.pk).slice('SUBMISSION#'.length);
  }
}

/** The purge's part: a claim's submissions, their item rows and its open-send row go with it. */
export async function deleteClaimSubmissions(claimId: string): Promise<number> {
  const rows = await listClaimSubmissions(claimId);
  for (const row of rows) await deleteKeys(await partitionKeys(keys.submission(row.id).pk));
  await deleteKeys([keys.claimSend(claimId)]);
  return rows.length;
}
