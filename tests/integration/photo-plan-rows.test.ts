/**
 * A photo run's plan on the real table (lib/pipelines/photo/run-store.ts): the
 * plan of a contents list's 1,800 photos is larger than DynamoDB's 400 KB item
 * limit, so its groups are stored in parts and read back whole, in order; a
 * plan missing one of its parts is refused rather than read short.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/client';
import type { PlannedGroup } from '../../lib/pipelines/photo/plan-rules';
import { getPlan, putPlan, type RunPlan } from '../../lib/pipelines/photo/run-store';

const PHOTOS = 1800;
const PER_GROUP = 5;

/** A contents list's plan: groups of five photos, each with the list's caption and label. */
function listPlan(runId: string): RunPlan {
  const groups: PlannedGroup[] = Array.from({ length: PHOTOS / PER_GROUP }, (_, g) => ({
    group_index: g,
    kind: 'ai',
    prompt: 'merged',
    is_segment: false,
    photos: Array.from({ length: PER_GROUP }, (_, p) => {
      const index = g * PER_GROUP + p;
      return {
        index,
        filename: `orig_${String(index + 1).padStart(4, '0')}.jpg`,
        key: `teams/1/claims/c/rooms/r/jobs/j/photos/orig_${String(index + 1).padStart(4, '0')}.jpg`,
        original_filename: `vendor-contents-list.pdf, page ${Math.floor(index / 6) + 1}`,
        is_segment: false,
        normalized: true,
      };
    }),
    manual_name: null,
    quantity: null,
    notes: [`Sofa, 3-seat, grey fabric, purchased 2019 from the furniture store, good condition (line ${g + 1})`],
    labels: [`Item ${String(g + 1).padStart(4, '0')}`],
    pass: 1,
    names_found: [],
  }));
  return { run_id: runId, pass: 1, groups, prompts: { merged: 'List every item.', unmerged: 'One item per photo.' } };
}

const planRows = async (jobId: string, runId: string) =>
  (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': `JOB#${jobId}`, ':sk': `PHOTOPLAN#${runId}` },
      }),
    )
  ).Items ?? [];

describe('a photo run plan larger than one item', () => {
  it('is stored in parts under 400 KB each and read back whole', async () => {
    const jobId = randomUUID();
    const runId = randomUUID();
    const plan = listPlan(runId);
    expect(Buffer.byteLength(JSON.stringify(plan))).toBeGreaterThan(400 * 1024);
    await putPlan(jobId, plan);
    const rows = await planRows(jobId, runId);
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect(Buffer.byteLength(JSON.stringify(row))).toBeLessThan(400 * 1024);
    expect(await getPlan(jobId, runId)).toEqual(plan);
    // Written again (a restarted stage): the same rows, the same plan.
    await putPlan(jobId, plan);
    expect(await planRows(jobId, runId)).toHaveLength(rows.length);
  });

  it('is refused when one of its parts is missing', async () => {
    const jobId = randomUUID();
    const runId = randomUUID();
    await putPlan(jobId, listPlan(runId));
    const part = (await planRows(jobId, runId)).find((r) => r.entity === 'PhotoPlanPart');
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: part?.pk, sk: part?.sk } }));
    await expect(getPlan(jobId, runId)).rejects.toThrow(/parts/);
  });
});
