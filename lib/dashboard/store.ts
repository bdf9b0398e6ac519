/** What the dashboard reads: the team's jobs (a few attributes each) and each job's live item count. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { jobIndexes } from '../jobs/keys';
import { itemIndexes } from '../inventory/keys';
import { queryAll } from '../db/query';
import type { JobStatus } from '../jobs/job-rules';

export interface JobRunSpan {
  id: string;
  status: JobStatus;
  started_at: string | null;
  finished_at: string | null;
}

/** Every job of the team, projected to its status and run span (the team's job index, gsi2). */
export async function listTeamJobSpans(teamId: string): Promise<JobRunSpan[]> {
  const rows = await queryAll<Partial<JobRunSpan> & { id: string }>(jobIndexes.teamJobs(teamId), {
    ProjectionExpression: 'id, #status, started_at, finished_at',
    ExpressionAttributeNames: { '#status': 'status' },
  });
  return rows.map((r) => ({
    id: r.id,
    status: r.status as JobStatus,
    started_at: r.started_at ?? null,
    finished_at: r.finished_at ?? null,
  }));
}

/** How many of the job's items are not archived; DynamoDB counts them, no item is returned. */
export async function countLiveJobItems(jobId: string): Promise<number> {
  const index = itemIndexes.jobItems(jobId);
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.index,
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: 'attribute_not_exists(is_archived) OR is_archived = :false',
        ExpressionAttributeValues: { ':pk': index.pk, ':false': false },
        Select: 'COUNT',
        ExclusiveStartKey,
      }),
    );
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}
