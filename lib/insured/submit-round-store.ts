/**
 * A homeowner submit round's own row (INSUREDROUND#<id>, the id derived from
 * the link and the round: insuredRoundId): the round's run on the engine (lib/orchestrator: its fields in
 * lib/db/run-state.ts) and what the round is (its number, what the submit counted,
 * what it made or why it was given up). The link keeps only which round was
 * started last and which is over (submit_round, submitted_round): the round
 * is started on both in one transaction and ended on both in one, so a
 * link's round is open exactly while its round row is being made. A round
 * being made sits on the open-runs index the watchdog walks.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { insuredIndexes, insuredKeys } from './keys';
import { indexRows } from '../db/query';
import { type RowUpdate, rowUpdateInput, setClauses, updateRowReturningNew } from '../db/update';
import { derivedId } from '../inventory/item-rules';
import type { RunRecord } from '../orchestrator/run-kind';
import type { SubmitRoundSummary } from './link-record-rules';

/** Being made (its run under way), made, or given up (the engine ended its run: its rows are back in the draft). */
type RoundStatus = 'making' | 'made' | 'given_up';

export interface InsuredRound extends RunRecord {
  /** insuredRoundId(link_id, round). */
  id: string;
  link_id: string;
  claim_id: string;
  team_id: string;
  round: number;
  status: RoundStatus;
  /** What the submit that started the round counted (answered to a submit meanwhile). */
  summary: SubmitRoundSummary;
  /** What the maker made, recorded with the run's last write. */
  made?: (SubmitRoundSummary & { submitted_at: string }) | null;
  error: string | null;
  finished_at: string | null;
}

/** The run fields a round is opened with (the request's stage taken, or the workers' stage queued). */
export type RoundRun = Omit<RunRecord, 'id' | 'status' | 'created_at'>;

const ROUND_OPEN = 'submit_round = :round AND (attribute_not_exists(submitted_round) OR submitted_round < :round)';
/** Row releases in flight at once (all rows of a link share its partition). */
const RELEASES_IN_FLIGHT = 8;

/** A round's id (a UUID, as the engine's messages name their subject), found again from its link and number. */
export const insuredRoundId = (linkId: string, round: number) => derivedId('insured-round', linkId, round);

const roundKey = (id: string) => insuredKeys.insuredRound(id);

/** A round's place on the open-runs index the watchdog walks: listed while it is being made. */
const openRuns = (id: string) => ({
  pk: insuredIndexes.openInsuredRounds().pk,
  id,
  listed: (status: string) => status === 'making',
});

const asRound = (row: Record<string, unknown>) => withoutKeys(row) as unknown as InsuredRound;

/** A round being made, as its row is first written. */
function newRound(
  link: { id: string; claim_id: string; team_id: string },
  round: number,
  summary: SubmitRoundSummary,
  run: RoundRun,
  createdAt: string,
  updatedAt: string,
): InsuredRound {
  return {
    ...run,
    id: insuredRoundId(link.id, round),
    link_id: link.id,
    claim_id: link.claim_id,
    team_id: link.team_id,
    round,
    status: 'making',
    summary,
    made: null,
    error: null,
    created_at: createdAt,
    updated_at: updatedAt,
    finished_at: null,
  };
}

/** The transaction item that writes a new round's row, listed open (the watchdog walks it) by its heartbeat. */
function roundPut(id: string, record: InsuredRound, heartbeatAt: string) {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...roundKey(id),
        entity: 'InsuredRound',
        activepk: insuredIndexes.openInsuredRounds().pk,
        activesk: `${heartbeatAt}#${id}`,
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getInsuredRound(id: string): Promise<InsuredRound | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: roundKey(id), ConsistentRead: true }));
  return Item ? asRound(Item) : null;
}

export function insuredRoundUpdateInput(id: string, update: RowUpdate, now = new Date()) {
  return rowUpdateInput(roundKey(id), update, now, openRuns(id));
}

/** The round after `update`, or null when its condition did not hold. */
export async function updateInsuredRound(
  id: string,
  update: RowUpdate,
  now = new Date(),
): Promise<InsuredRound | null> {
  const row = await updateRowReturningNew(insuredRoundUpdateInput(id, update, now));
  return row && asRound(row);
}

/** Ids of the rounds being made, one page at a time. */
export async function* openInsuredRoundIds(): AsyncGenerator<string> {
  for await (const row of indexRows(insuredIndexes.openInsuredRounds()))
    yield String(row.pk).slice('INSUREDROUND#'.length);
}

/**
 * Starts submit round `previous + 1` of the link with its run open, in one
 * transaction: the link's round moves on (unless a round is being made, or
 * another submit started this one first) and the round row is written on the
 * open-runs index. The round, or null when another submit won.
 */
export async function startSubmitRound(
  link: { id: string; claim_id: string; team_id: string },
  previous: number,
  summary: SubmitRoundSummary,
  run: RoundRun,
  now: Date,
): Promise<InsuredRound | null> {
  const at = now.toISOString();
  const round = previous + 1;
  const id = insuredRoundId(link.id, round);
  const record = newRound(link, round, summary, run, at, at);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(link.id),
              UpdateExpression: 'SET submit_round = :round, submit_started_at = :at, submit_summary = :summary',
              // Nothing started yet, or the last round started is over: no two rounds at once.
              ConditionExpression:
                previous === 0
                  ? 'attribute_exists(pk) AND (attribute_not_exists(submit_round) OR submit_round = :previous)'
                  : 'submit_round = :previous AND submitted_round = :previous',
              ExpressionAttributeValues: { ':round': round, ':previous': previous, ':at': at, ':summary': summary },
            },
          },
          roundPut(id, record, run.heartbeat_at ?? at),
        ],
      }),
    );
    return record;
  } catch (err) {
    if (isConditionRace(err)) return null;
    throw err;
  }
}

/**
 * Ends round `round` of its run, in one transaction: the round row leaves
 * the open-runs index as made or given up, and the link's round is over
 * (made: submitted_at is the round's; given up: the last made round's stays).
 * A round whose link was ended already (by a maker of the shape before the
 * engine, at the migration) ends its row alone. Null when it had ended
 * already, or another run of it owns it.
 */
export async function endInsuredRound(
  round: Pick<InsuredRound, 'id' | 'link_id' | 'round' | 'run_id'>,
  end: { status: 'made'; at: string } | { status: 'given_up'; at: string; error: string },
): Promise<InsuredRound | null> {
  const set = setClauses({
    status: end.status,
    finished_at: end.at,
    updated_at: end.at,
    stage_state: 'done',
    stage_runner: null,
    ...(end.status === 'given_up' ? { error: end.error } : {}),
  });
  const roundEnd = {
    TableName: tableName(),
    Key: roundKey(round.id),
    UpdateExpression: `SET ${set.expression} REMOVE activepk, activesk`,
    ConditionExpression: '#status_ = :making AND run_id = :run',
    ExpressionAttributeNames: { ...set.names, '#status_': 'status' },
    ExpressionAttributeValues: { ...set.values, ':making': 'making', ':run': round.run_id },
  };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: roundEnd },
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(round.link_id),
              UpdateExpression:
                end.status === 'made'
                  ? 'SET submitted_round = :round, submitted_at = :at, updated_at = :at'
                  : 'SET submitted_round = :round, updated_at = :at',
              ConditionExpression: ROUND_OPEN,
              ExpressionAttributeValues: { ':round': round.round, ':at': end.at },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (!isConditionRace(err)) throw err;
    const { Item: link } = await db().send(
      new GetCommand({ TableName: tableName(), Key: insuredKeys.insuredLink(round.link_id), ConsistentRead: true }),
    );
    if (Number(link?.submitted_round ?? 0) < round.round) return null;
    try {
      await db().send(new UpdateCommand(roundEnd));
    } catch (again) {
      if (isConditionalCheckFailed(again)) return null;
      throw again;
    }
  }
  return getInsuredRound(round.id);
}

/**
 * The migration's write for a link whose round `round` was being made under
 * the shape before the engine: the round row is written with its run, and
 * the link leaves the old open-submits index and sheds that shape's lease and
 * hand-on fields, in one transaction. Null when the round is over or has its
 * row already (a migration run again).
 */
export async function openMigratedRound(
  link: { id: string; claim_id: string; team_id: string },
  round: number,
  summary: SubmitRoundSummary,
  run: RoundRun,
  createdAt: string,
): Promise<InsuredRound | null> {
  const id = insuredRoundId(link.id, round);
  const record = newRound(link, round, summary, run, createdAt, run.updated_at ?? createdAt);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: insuredKeys.insuredLink(link.id),
              UpdateExpression: 'REMOVE activepk, activesk, submit_lease_until, submit_attempts, submit_handed_at',
              ConditionExpression: ROUND_OPEN,
              ExpressionAttributeValues: { ':round': round },
            },
          },
          roundPut(id, record, run.heartbeat_at ?? createdAt),
        ],
      }),
    );
    return record;
  } catch (err) {
    if (isConditionRace(err)) return null;
    throw err;
  }
}

/** Gives rows taken by `round` back to the draft (no round, no job); a row removed or not in it is left alone. */
export async function releaseRoundRows(rows: { pk: string; sk: string }[], round: number): Promise<void> {
  const limit = pLimit(RELEASES_IN_FLIGHT);
  await Promise.all(
    rows.map((key) =>
      limit(async () => {
        try {
          await db().send(
            new UpdateCommand({
              TableName: tableName(),
              Key: key,
              UpdateExpression: 'SET #round = :none, #job = :none',
              ConditionExpression: '#round = :round',
              ExpressionAttributeNames: { '#round': 'round', '#job': 'job_id' },
              ExpressionAttributeValues: { ':round': round, ':none': null },
            }),
          );
        } catch (err) {
          if (!isConditionalCheckFailed(err)) throw err;
        }
      }),
    ),
  );
}
