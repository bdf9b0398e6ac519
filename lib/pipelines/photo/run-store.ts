/**
 * What a photo run keeps between its stages, in the job's partition: the plan
 * (the groups and the prompts, fixed when the run starts) and one result per
 * group that reached the AI. Both are keyed by run, so a restarted run never
 * reads an interrupted run's results.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../../db/client';
import { putRows } from '../../db/batch';
import { withoutKeys } from '../../db/keys';
import { queryPartition } from '../../db/query';
import type { ModelItem } from './answer-schemas';
import type { PlannedGroup } from './plan-rules';

export interface RunPlan {
  run_id: string;
  /** 1 for the first run, 2.. for read-the-rest passes. */
  pass: number;
  groups: PlannedGroup[];
  prompts: { merged: string; unmerged: string };
}

export interface GroupResult {
  group_index: number;
  outcome: 'ok' | 'failed';
  items: ModelItem[];
  cut_short: boolean;
  error: string | null;
  max_tokens: number;
  output_tokens: number;
}

const planPrefix = (runId: string) => `PHOTOPLAN#${runId}`;
const planKey = (jobId: string, runId: string) => ({ pk: `JOB#${jobId}`, sk: planPrefix(runId) });
const planPartKey = (jobId: string, runId: string, part: number) => ({
  pk: `JOB#${jobId}`,
  sk: `${planPrefix(runId)}#${String(part).padStart(4, '0')}`,
});
/**
 * The groups of a plan are stored in parts of at most this many bytes (as JSON), each its own row: one row of a
 * contents list's 1,800 photos would pass DynamoDB's 400 KB item limit.
 */
const PLAN_PART_BYTES = 300_000;

/** The groups in consecutive parts of at most `maxBytes` of JSON each (a group bigger than that is a part alone). */
function planParts(groups: PlannedGroup[], maxBytes: number): PlannedGroup[][] {
  const parts: PlannedGroup[][] = [];
  let size = 0;
  for (const group of groups) {
    const bytes = Buffer.byteLength(JSON.stringify(group));
    if (parts.length === 0 || size + bytes > maxBytes) {
      parts.push([]);
      size = 0;
    }
    parts[parts.length - 1].push(group);
    size += bytes;
  }
  return parts;
}

const resultPrefix = (runId: string) => `PHOTORESULT#${runId}#`;
const resultKey = (jobId: string, runId: string, group: number) => ({
  pk: `JOB#${jobId}`,
  sk: `${resultPrefix(runId)}${String(group).padStart(6, '0')}`,
});

/**
 * Stores the run's plan: its groups in parts, then the plan's own row naming how many parts it has, so a plan read
 * is whole or absent. Written again by a restarted stage, it writes the same rows.
 */
export async function putPlan(jobId: string, plan: RunPlan): Promise<void> {
  const { groups, ...head } = plan;
  const parts = planParts(groups, PLAN_PART_BYTES);
  await putRows(
    parts.map((part, i) => ({ ...planPartKey(jobId, plan.run_id, i), entity: 'PhotoPlanPart', part: i, groups: part })),
  );
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...planKey(jobId, plan.run_id), entity: 'PhotoPlan', ...head, parts: parts.length },
    }),
  );
}

/** The plan's own row (its groups in `parts` rows; inline in a plan written before parts) or one part of its groups. */
type StoredPlanRow =
  | (Omit<RunPlan, 'groups'> & { parts?: number; groups?: PlannedGroup[] })
  | { part: number; groups: PlannedGroup[] };

// A run's plan never changes once written, so units of one container read it once.
const planCache = new Map<string, RunPlan>();

export async function getPlan(jobId: string, runId: string): Promise<RunPlan | null> {
  const cached = planCache.get(`${jobId}#${runId}`);
  if (cached) return cached;
  const rows = await queryPartition<StoredPlanRow>(`JOB#${jobId}`, planPrefix(runId), { consistent: true });
  const head = rows.find((r) => !('part' in r));
  if (!head || 'part' in head) return null;
  const { parts: partCount, groups: inline, ...plan } = head;
  const parts = rows.flatMap((r) => ('part' in r ? [r] : [])).sort((a, b) => a.part - b.part);
  // A plan written before its groups were split into parts holds them in its own row.
  const groups = inline ?? parts.flatMap((p) => p.groups);
  if (!inline && parts.length !== partCount)
    throw new Error(`the plan of run ${runId} has ${parts.length} of its ${partCount} parts`);
  const whole = { ...plan, groups } as RunPlan;
  if (planCache.size > 50) planCache.clear();
  planCache.set(`${jobId}#${runId}`, whole);
  return whole;
}

/** The AI groups of a plan: fan-out unit i is the i-th. */
export const aiCalls = (plan: RunPlan) => plan.groups.filter((g) => g.kind === 'ai');

/** Records a group's result once; a repeated unit keeps the first. */
export async function putResult(jobId: string, runId: string, result: GroupResult): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...resultKey(jobId, runId, result.group_index), entity: 'PhotoGroupResult', ...result },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

export async function getResult(jobId: string, runId: string, group: number): Promise<GroupResult | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: resultKey(jobId, runId, group), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as GroupResult) : null;
}

export async function listResults(jobId: string, runId: string): Promise<Map<number, GroupResult>> {
  const results = await queryPartition<GroupResult>(`JOB#${jobId}`, resultPrefix(runId), { consistent: true });
  return new Map(results.map((r) => [r.group_index, r]));
}
