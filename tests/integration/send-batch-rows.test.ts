/**
 * Sends of many items against the embedded DynamoDB: the batch's item ids
 * live in rows of their own (one per item), so neither the Submission nor the
 * estimation send record grows with the send. As lists, 6,000 ids were
 * ~230 KB, and the estimation record held two: past DynamoDB's 400 KB row
 * limit. 500 items show it here (as a list, ~19 KB) while keeping the test
 * quick: the header rows stay under 4 KB whatever the send's size.
 */
import { randomUUID } from 'node:crypto';
import { sendKeys } from '../../lib/sends/keys';
import { requestStageFields } from '../../lib/orchestrator/request-stage';
import { claimsPlatformSendPipeline } from '../../lib/sends/claims-platform-run-service';
import { estimationSendPipeline } from '../../lib/sends/estimation-run-service';
import {
  batchItemIds,
  dropBatch,
  type EstimationSend,
  openEstimationSend,
  recordBatchItems,
  recordSendStep,
} from '../../lib/sends/estimation-store';
import { countSubmissionItem, recordSubmissionItems, submissionItemIds } from '../../lib/sends/submission-item-store';
import { getSubmission, openSubmission } from '../../lib/sends/submission-store';
import { getRow } from '../support/aws';

jest.setTimeout(120_000);

const ITEMS = 500;
const ids = () => Array.from({ length: ITEMS }, () => randomUUID());
const rowBytes = (row: Record<string, unknown> | null) => Buffer.byteLength(JSON.stringify(row ?? {}));

it('a claims platform send of 500 items keeps a small Submission row and counts each item once', async () => {
  const claimId = randomUUID();
  const itemIds = ids();
  const id = randomUUID();
  const now = Date.now();
  const opened = await openSubmission(
    {
      id,
      claim_id: claimId,
      team_id: randomUUID(),
      // Its run, opened as the request opens it (the request holding its first stage).
      ...requestStageFields(claimsPlatformSendPipeline, randomUUID(), 60_000, new Date(now)),
      status: 'processing',
      request_step: null,
      charge_key: `as-send:${claimId}:0`,
      credits: ITEMS,
      item_count: ITEMS,
      photo_count: 0,
      done_count: 0,
      failed_count: 0,
      claim_key: 'LKQ-BIG',
      remote_claim_id: null,
      dry_run: false,
      error: null,
      created_by_user_id: randomUUID(),
      created_at: new Date(now).toISOString(),
      completed_at: null,
      processing_seconds: null,
    },
    { previous: null, alreadySubmitted: 0, round: 1 },
  );
  expect(opened).toBe(true);
  await recordSubmissionItems(id, itemIds);
  expect(await countSubmissionItem(id, itemIds[0], { ok: true, photos: 2 }, undefined)).toBe('counted');
  expect(await countSubmissionItem(id, itemIds[0], { ok: true, photos: 2 }, undefined)).toBe('refused');
  expect(await countSubmissionItem(id, itemIds[1], { ok: false }, undefined)).toBe('counted');
  expect(await getSubmission(id)).toMatchObject({ done_count: 1, failed_count: 1, photo_count: 2 });
  expect(await submissionItemIds(id, 'pending')).toHaveLength(ITEMS - 2);
  expect(await submissionItemIds(id, 'failed')).toEqual([itemIds[1]]);
  const key = sendKeys.submission(id);
  expect(rowBytes(await getRow(key.pk, key.sk))).toBeLessThan(4096);
});

it('an estimation send of 500 items keeps a small record and reads its batch back', async () => {
  const claimId = randomUUID();
  const first = ids();
  await recordBatchItems(claimId, 'batch-1', first);
  const now = new Date();
  const send: EstimationSend = {
    ...requestStageFields(estimationSendPipeline, randomUUID(), 60_000, now),
    id: claimId,
    claim_id: claimId,
    team_id: randomUUID(),
    status: 'processing',
    state: 'sending',
    round: 1,
    reference: `ce-send:${claimId}`,
    planned_credits: ITEMS,
    credits: 0,
    charge_unconfirmed: false,
    batch_id: 'batch-1',
    item_count: ITEMS,
    destination: { mode: 'create' },
    pricing: {},
    photos_included: 0,
    warnings: [],
    dry_run: false,
    sender_user_id: null,
    remote: null,
    result: null,
    created_at: now.toISOString(),
  };
  expect(await openEstimationSend(send, null)).toBe(true);
  // One send of a claim at a time: a second open loses.
  expect(await openEstimationSend({ ...send, run_id: randomUUID() }, null)).toBe(false);
  expect(await recordSendStep(send, { credits: ITEMS })).toMatchObject({ credits: ITEMS });
  expect((await batchItemIds({ claim_id: claimId, batch_id: 'batch-1' })).sort()).toEqual([...first].sort());
  // The next send's batch, once it is open, drops the rows of the earlier one.
  await recordBatchItems(claimId, 'batch-2', first.slice(0, 3));
  await dropBatch(claimId, 'batch-1');
  expect(await batchItemIds({ claim_id: claimId, batch_id: 'batch-1' })).toEqual([]);
  expect(await batchItemIds({ claim_id: claimId, batch_id: 'batch-2' })).toHaveLength(3);
  const key = sendKeys.estimationSend(claimId);
  expect(rowBytes(await getRow(key.pk, key.sk))).toBeLessThan(4096);
});
