/**
 * The submissions queue (spec: Claims platform send, rules 2 and 5). A send's
 * fan-out message becomes one message per item still pending (ten to a
 * SendMessageBatch call), and the send moves to `sending` under a lease long
 * enough for every item message to be counted or dead-lettered. One item is
 * the item, its photos by URL (primary first), then the platform's analysis;
 * then the item is marked submitted and counted on its Submission, which
 * completes with the last one.
 *
 * A worker sends an item only while it holds the lease on the item's row
 * (submission-item-store.ts), longer than the worker may run; the submitted
 * stamp and the count are one write, on condition that it still holds it.
 * So the send sweep, which counts failed only what no live worker holds,
 * never refunds an item that went out.
 *
 * Every call is idempotent at the platform (PUT by our ids), so a message
 * delivered twice repeats them harmlessly and is counted once. A transient
 * failure (no answer, 5xx) frees the item and has the message delivered
 * again after a backoff (5, 10, 20, 40 s), so a send ends soon after its
 * platform recovers; on its last delivery (the queue's fifth, or a direct
 * invoke's third: Lambda retries a failed asynchronous invoke twice), or for
 * a refusal (401, 404, 422), the item is counted failed and stays unsubmitted
 * for a later send.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { functionTimeoutSeconds } from '../background/functions';
import type * as z from 'zod';
import { settings as currentSettings } from '../config';
import { ClaimsPlatformClient, type ClaimsPlatformResult } from '../integrations/claims-platform';
import { getItem, listItemPhotos } from '../inventory/item-store';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { countDelivery, deliveryOf, retryDelaySeconds } from '../queue/delivery';
import { dispatchAll } from '../queue/dispatch';
import { QUEUE_MAX_RECEIVES } from '../queue/queues';
import { requestOwedSendRefund } from '../billing/send-charge-service';
import { getTeam } from '../teams/store';
import {
  itemRefundReference,
  remoteItemFields,
  remotePhotos,
  sendingLeaseMs,
  sendToken,
} from './claims-platform-rules';
import type { submissionMessage } from './claims-platform-schemas';
import {
  claimSubmissionItem,
  countSubmissionItem,
  type ItemCounter,
  releaseSubmissionItem,
  submissionItemIds,
} from './submission-item-store';
import { advanceSubmission, completeSubmission, getSubmission, type Submission } from './submission-store';

class TransientFailure extends Error {}

/** A refusal or, on the last delivery, a transient failure: the item is counted failed. Throws to retry otherwise. */
function failureOf(result: ClaimsPlatformResult<unknown>, lastDelivery: boolean): string | null {
  if (result.outcome === 'ok') return null;
  if (result.outcome === 'unavailable') {
    if (!lastDelivery) throw new TransientFailure(result.detail);
    return result.detail;
  }
  return result.outcome === 'unauthorized' ? 'the platform refused the token (401)' : result.detail;
}

type DeliveryRecord = Pick<SQSRecord, 'attributes'> & Partial<Pick<SQSRecord, 'receiptHandle' | 'messageId'>>;

/**
 * How long a worker holds an item it is sending: longer than the submission
 * worker may run, so the sweep never counts an item a live worker is sending.
 */
const ITEM_LEASE_MS = (functionTimeoutSeconds('submissionWorker') + 30) * 1000;

export async function handleSubmissionMessage(
  message: z.output<typeof submissionMessage>,
  record?: DeliveryRecord,
): Promise<void> {
  if ('fan_out' in message) return fanOutSend(message.submission_id);
  return handleSubmissionItem(message, record);
}

/**
 * Puts a message per pending item on the queue, then moves the send to
 * `sending`. Repeating it (a redelivery, or the send sweep's resume) sends
 * only what is still pending; an item sent twice is counted once.
 */
async function fanOutSend(submissionId: string): Promise<void> {
  const submission = await getSubmission(submissionId);
  if (submission?.status !== 'processing' || submission.stage !== 'fanning_out') return;
  const pending = await submissionItemIds(submission.id, 'pending');
  await dispatchAll(
    'submissions',
    pending.map((itemId) => ({ submission_id: submission.id, item_id: itemId })),
  );
  await advanceSubmission(submission.id, 'fanning_out', 'sending', Date.now() + sendingLeaseMs(currentSettings()));
  logger.info('claims platform send fanned out', { submission_id: submission.id, items: pending.length });
}

/** The message comes back after `seconds` (a direct invoke has no queue entry: Lambda's own retries apply). */
async function retryAfter(record: DeliveryRecord | undefined, seconds: number): Promise<void> {
  if (!record?.receiptHandle) return;
  await deliveryOf('submissions', { receiptHandle: record.receiptHandle, attributes: record.attributes })
    .retryAfter(seconds)
    .catch((err) => logger.warn('could not schedule the submission item retry', { error: String(err) }));
}

async function handleSubmissionItem(message: { submission_id: string; item_id: string }, record?: DeliveryRecord) {
  const submission = await getSubmission(message.submission_id);
  if (submission?.status !== 'processing' || !submission.claim_key) return;
  // Counted once per delivery, also for a message handed over by direct invoke while the queue is down.
  const delivery = record ? await countDelivery(record, QUEUE_MAX_RECEIVES.submissions) : { attempt: 1, last: false };
  const context = { submission_id: submission.id, item_id: message.item_id };
  const runner = randomUUID();
  const now = Date.now();
  const claimed = await claimSubmissionItem(submission.id, message.item_id, runner, now, now + ITEM_LEASE_MS);
  if (claimed.state === 'counted') return;
  if (claimed.state === 'busy') {
    // A duplicate (the sweep's resume) while another worker sends it: that one counts it, or, if it dies, this
    // message's next delivery after its lease does.
    if (delivery.last) return;
    await retryAfter(record, Math.ceil((claimed.leaseUntil - now) / 1000) + 1);
    throw new ItemBusy(`submission item ${message.item_id} is being sent by another worker`);
  }
  try {
    await sendItem(submission, message.item_id, runner, delivery.last, context);
  } catch (err) {
    if (!(err instanceof TransientFailure)) throw err;
    // Free the item and come back after a backoff, not after the queue's visibility timeout: a send ends soon
    // after its platform recovers.
    await releaseSubmissionItem(submission.id, message.item_id, runner);
    await retryAfter(record, retryDelaySeconds(delivery.attempt));
    throw err;
  }
}

class ItemBusy extends Error {}

async function sendItem(
  submission: Submission,
  itemId: string,
  runner: string,
  lastDelivery: boolean,
  context: { submission_id: string; item_id: string },
) {
  const counter = { runner };
  const item = await getItem(itemId);
  if (!item || item.is_archived) {
    logger.warn('submission item gone or archived before it was sent; counted failed', context);
    return count(submission, itemId, { ok: false }, counter);
  }
  if (item.claims_platform_submitted_at) return count(submission, item.id, { ok: true, photos: 0 }, counter);

  const config = currentSettings();
  const team = await getTeam(submission.team_id);
  const token = sendToken(team?.team_token ?? null, config.CLAIMS_PLATFORM_BEARER_TOKEN);
  if (!token || !config.CLAIMS_PLATFORM_BASE_URL.trim()) {
    logger.error('claims platform token or base URL gone during a submission; item counted failed', context);
    reportItemFailure(submission, item.id, 'The claims platform token or base URL was gone during a submission');
    return count(submission, item.id, { ok: false }, counter);
  }
  const client = new ClaimsPlatformClient({ baseUrl: config.CLAIMS_PLATFORM_BASE_URL, token });
  const claimKey = submission.claim_key as string;
  const refused = (detail: string) => {
    logger.warn('claims platform refused a submission item; it stays unsubmitted', { ...context, detail });
    reportItemFailure(submission, item.id, 'The claims platform refused a submission item, or never answered for it');
    return count(submission, item.id, { ok: false }, counter);
  };

  const upserted = await client.upsertItem(claimKey, item.id, remoteItemFields(item));
  const itemFailure = failureOf(upserted, lastDelivery);
  if (itemFailure) return refused(itemFailure);
  const photos = remotePhotos(await listItemPhotos(item.id), config.PUBLIC_BASE_URL);
  for (const photo of photos) {
    const attached = await client.attachPhoto(claimKey, item.id, photo.external_id, {
      url: photo.url,
      is_primary: photo.is_primary,
    });
    const photoFailure = failureOf(attached, lastDelivery);
    if (photoFailure) return refused(photoFailure);
  }
  const analyzed = await client.analyzeItem(claimKey, item.id);
  const analyzeFailure = failureOf(analyzed, lastDelivery);
  if (analyzeFailure) return refused(analyzeFailure);

  // Stamped submitted in the count's own write: if the sweep counted it failed meanwhile, neither lands.
  return count(submission, item.id, { ok: true, photos: photos.length }, { runner, submittedAt: new Date() });
}

/** Error tracking hears of an item that failed for good (ids only: the platform's words may quote the item). */
function reportItemFailure(submission: Submission, itemId: string, message: string): void {
  reportError({
    kind: 'claims_platform_submission',
    level: 'warning',
    message,
    tags: {
      step: 'item',
      submission_id: submission.id,
      claim_id: submission.claim_id,
      item_id: itemId,
      team_id: submission.team_id,
    },
  });
}

/**
 * Counts the item once; the count that reaches the batch size completes the
 * submission. An item that failed for good gives its credit back: the refund
 * is owed in the same write as the count (so exactly once) and asked for at
 * once, the billing sweep asking again until the service answers.
 */
export async function count(
  submission: Submission,
  itemId: string,
  outcome: { ok: true; photos: number } | { ok: false },
  counter: ItemCounter,
): Promise<boolean> {
  const share = submission.dry_run || outcome.ok ? 0 : Math.floor(submission.credits / submission.item_count);
  const refund =
    share > 0
      ? {
          team_id: submission.team_id,
          reference: submission.charge_key,
          part: { refund_reference: itemRefundReference(submission.charge_key, itemId), amount: share },
          ...(submission.charge_spend ? { spend: submission.charge_spend } : {}),
        }
      : null;
  const counted = await countSubmissionItem(submission.id, itemId, outcome, counter, refund);
  if (counted === 'item_gone') {
    logger.warn('submission item deleted while it was sent; counted failed', {
      submission_id: submission.id,
      item_id: itemId,
    });
    return count(submission, itemId, { ok: false }, counter);
  }
  if (counted === 'refused') return false;
  if (refund) {
    const team = await getTeam(submission.team_id);
    if (team) await requestOwedSendRefund(team, refund);
  }
  const after = await getSubmission(submission.id);
  if (after?.status !== 'processing' || after.done_count + after.failed_count < after.item_count) return true;
  const completed = await completeSubmission(after);
  if (completed)
    logger.info('claims platform send complete', {
      submission_id: submission.id,
      claim_id: submission.claim_id,
      items: completed.done_count,
      failed: completed.failed_count,
      photos: completed.photo_count,
      seconds: completed.processing_seconds,
    });
  return true;
}
