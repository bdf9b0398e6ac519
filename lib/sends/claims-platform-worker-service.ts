/**
 * The submissions queue (spec: Claims platform send, rules 2 and 5). A send's
 * fan-out message becomes one message per item still pending (ten to a
 * SendMessageBatch call), and the send moves to `sending` under a lease long
 * enough for every item message to be counted or dead-lettered. One item is
 * the item, its photos by URL (primary first), then the platform's analysis;
 * then the item is marked submitted and counted on its Submission, which
 * completes with the last one.
 *
 * Every call is idempotent at the platform (PUT by our ids), so a message
 * delivered twice repeats them harmlessly and is counted once. A transient
 * failure (no answer, 5xx) throws, so the queue delivers the message again;
 * on its last delivery (the queue's fifth, or a direct invoke's third: Lambda
 * retries a failed asynchronous invoke twice), or for a refusal (401, 404,
 * 422), the item is counted failed and stays unsubmitted for a later send.
 */
import type { SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import { settings as currentSettings } from '../config';
import { ClaimsPlatformClient, type ClaimsPlatformResult } from '../integrations/claims-platform';
import { getItem, listItemPhotos, updateItemFields } from '../inventory/item-store';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { countDelivery } from '../queue/delivery';
import { dispatchAll } from '../queue/dispatch';
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
import { countSubmissionItem, submissionItemIds } from './submission-item-store';
import { advanceSubmission, completeSubmission, getSubmission, type Submission } from './submission-store';

/** The queue's maxReceiveCount (serverless.yml, SubmissionsQueue): the last delivery counts a failure. */
const LAST_DELIVERY = 5;

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

async function handleSubmissionItem(message: { submission_id: string; item_id: string }, record?: DeliveryRecord) {
  const submission = await getSubmission(message.submission_id);
  if (submission?.status !== 'processing' || !submission.claim_key) return;
  // Counted once per delivery, also for a message handed over by direct invoke while the queue is down.
  const lastDelivery = record ? (await countDelivery(record, LAST_DELIVERY)).last : false;
  const item = await getItem(message.item_id);
  const context = { submission_id: submission.id, item_id: message.item_id };
  if (!item || item.is_archived) {
    logger.warn('submission item gone or archived before it was sent; counted failed', context);
    return count(submission, message.item_id, { ok: false });
  }
  if (item.claims_platform_submitted_at) return count(submission, item.id, { ok: true, photos: 0 });

  const config = currentSettings();
  const team = await getTeam(submission.team_id);
  const token = sendToken(team?.team_token ?? null, config.CLAIMS_PLATFORM_BEARER_TOKEN);
  if (!token || !config.CLAIMS_PLATFORM_BASE_URL.trim()) {
    logger.error('claims platform token or base URL gone during a submission; item counted failed', context);
    reportItemFailure(submission, item.id, 'The claims platform token or base URL was gone during a submission');
    return count(submission, item.id, { ok: false });
  }
  const client = new ClaimsPlatformClient({ baseUrl: config.CLAIMS_PLATFORM_BASE_URL, token });
  const claimKey = submission.claim_key;
  const refused = (detail: string) => {
    logger.warn('claims platform refused a submission item; it stays unsubmitted', { ...context, detail });
    reportItemFailure(submission, item.id, 'The claims platform refused a submission item, or never answered for it');
    return count(submission, item.id, { ok: false });
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

  await updateItemFields(item.id, { claims_platform_submitted_at: new Date().toISOString() });
  return count(submission, item.id, { ok: true, photos: photos.length });
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
): Promise<void> {
  const share = submission.dry_run || outcome.ok ? 0 : Math.floor(submission.credits / submission.item_count);
  const refund =
    share > 0
      ? {
          team_id: submission.team_id,
          reference: submission.charge_key,
          part: { refund_reference: itemRefundReference(submission.charge_key, itemId), amount: share },
        }
      : null;
  if (!(await countSubmissionItem(submission.id, itemId, outcome, refund))) return;
  if (refund) {
    const team = await getTeam(submission.team_id);
    if (team) await requestOwedSendRefund(team, refund);
  }
  const counted = await getSubmission(submission.id);
  if (counted?.status !== 'processing' || counted.done_count + counted.failed_count < counted.item_count) return;
  const completed = await completeSubmission(counted);
  if (completed)
    logger.info('claims platform send complete', {
      submission_id: submission.id,
      claim_id: submission.claim_id,
      items: completed.done_count,
      failed: completed.failed_count,
      photos: completed.photo_count,
      seconds: completed.processing_seconds,
    });
}
