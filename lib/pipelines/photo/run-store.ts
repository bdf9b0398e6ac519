/**
 * What a photo run keeps between its stages, in the job's partition: the plan
 * (the groups and the prompts, fixed when the run starts) and one result per
 * group that reached the AI. Both are keyed by run, so a restarted run never
 * reads an interrupted run's results.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../../db/client';
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

const planKey = (jobId: string, runId: string) => ({ pk: `JOB#${jobId}`, sk: `PHOTOPLAN#${runId}` });
const resultPrefix = (runId: string) => `PHOTORESULT#${runId}#`;
const resultKey = (jobId: string, runId: string, group: number) => ({
  pk: `JOB#${jobId}`,
  sk: `${resultPrefix(runId)}${String(group).padStart(6, '0')}`,
});

export async function putPlan(jobId: string, plan: RunPlan): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { ...planKey(jobId, plan.run_id), entity: 'PhotoPlan', ...plan } }),
  );
}

// A run's plan never changes once written, so units of one container read it once.
const planCache = new Map<string, RunPlan>();

export async function getPlan(jobId: string, runId: string): Promise<RunPlan | null> {
  const cached = planCache.get(`${jobId}#${runId}`);
  if (cached) return cached;
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: planKey(jobId, runId), ConsistentRead: true }),
  );
  if (!Item) return null;
  const plan = withoutKeys(Item) as unknown as RunPlan;
  if (planCache.size > 50) planCache.clear();
  planCache.set(`${jobId}#${runId}`, plan);
  return plan;
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
