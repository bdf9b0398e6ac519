/**
 * One item of a claims platform send (spec: Claims platform send, rules 2
 * and 5), a unit of the send's run on the engine
 * (claims-platform-pipeline.ts): the item, its photos by URL (primary first),
 * then the platform's analysis; then the item is stamped submitted and
 * counted on its Submission in one write.
 *
 * Every call is idempotent at the platform (PUT by our ids), so a unit run
 * twice repeats them harmlessly and the item is counted once (its row leaves
 * `pending` in the counting write). A transient failure (no answer, 5xx)
 * throws: the engine runs the unit again after a backoff, so a send ends soon
 * after its platform recovers, and an item whose unit it gives up on is
 * counted failed when the send completes. A refusal (401, 404, 422) counts
 * the item failed at once; either way it stays unsubmitted for a later send,
 * and its share of the charge is owed back in the counting write.
 */
import { requestOwedSendRefund } from '../billing/send-charge-service';
import { settings as currentSettings } from '../config';
import { ClaimsPlatformClient, type ClaimsPlatformResult } from '../integrations/claims-platform';
import { getItem, listItemPhotos } from '../inventory/item-store';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import { itemRefundReference, remoteItemFields, remotePhotos, sendToken } from './claims-platform-rules';
import { countSubmissionItem, submissionItemState } from './submission-item-store';
import type { Submission } from './submission-record-rules';

/** The platform did not answer (or answered 5xx): the unit is run again after a backoff. */
class TransientFailure extends Error {}

/** A refusal: the item is counted failed. Throws for a transient failure. */
function failureOf(result: ClaimsPlatformResult<unknown>): string | null {
  if (result.outcome === 'ok') return null;
  if (result.outcome === 'unavailable') throw new TransientFailure(result.detail);
  return result.outcome === 'unauthorized' ? 'the platform refused the token (401)' : result.detail;
}

/** Sends one pending item of the send and counts it; an item counted already (a unit run again) is left. */
export async function deliverSubmissionItem(submission: Submission, itemId: string): Promise<void> {
  if ((await submissionItemState(submission.id, itemId)) !== 'pending') return;
  await sendItem(submission, itemId, { submission_id: submission.id, item_id: itemId });
}

async function sendItem(submission: Submission, itemId: string, context: { submission_id: string; item_id: string }) {
  const item = await getItem(itemId);
  if (!item || item.is_archived) {
    logger.warn('submission item gone or archived before it was sent; counted failed', context);
    return countItem(submission, itemId, { ok: false });
  }
  if (item.claims_platform_submitted_at) return countItem(submission, item.id, { ok: true, photos: 0 });

  const config = currentSettings();
  const team = await getTeam(submission.team_id);
  const token = sendToken(team?.team_token ?? null, config.CLAIMS_PLATFORM_BEARER_TOKEN);
  if (!token || !config.CLAIMS_PLATFORM_BASE_URL.trim()) {
    logger.error('claims platform token or base URL gone during a submission; item counted failed', context);
    reportItemFailure(submission, item.id, 'The claims platform token or base URL was gone during a submission');
    return countItem(submission, item.id, { ok: false });
  }
  const client = new ClaimsPlatformClient({ baseUrl: config.CLAIMS_PLATFORM_BASE_URL, token });
  const claimKey = submission.claim_key as string;
  const refused = (detail: string) => {
    logger.warn('claims platform refused a submission item; it stays unsubmitted', { ...context, detail });
    reportItemFailure(submission, item.id, 'The claims platform refused a submission item');
    return countItem(submission, item.id, { ok: false });
  };

  const upserted = await client.upsertItem(claimKey, item.id, remoteItemFields(item));
  const itemFailure = failureOf(upserted);
  if (itemFailure) return refused(itemFailure);
  const photos = remotePhotos(await listItemPhotos(item.id), config.PUBLIC_BASE_URL);
  for (const photo of photos) {
    const attached = await client.attachPhoto(claimKey, item.id, photo.external_id, {
      url: photo.url,
      is_primary: photo.is_primary,
    });
    const photoFailure = failureOf(attached);
    if (photoFailure) return refused(photoFailure);
  }
  const analyzed = await client.analyzeItem(claimKey, item.id);
  const analyzeFailure = failureOf(analyzed);
  if (analyzeFailure) return refused(analyzeFailure);

  // Stamped submitted in the count's own write: an item counted failed meanwhile (its send ended) is not stamped.
  return countItem(submission, item.id, { ok: true, photos: photos.length }, new Date());
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
 * Counts the item once. An item that failed for good gives its credit back:
 * the refund is owed in the same write as the count (so exactly once) and
 * asked for at once, the billing sweep asking again until the service
 * answers. False when it was counted before (or its send had ended).
 */
export async function countItem(
  submission: Submission,
  itemId: string,
  outcome: { ok: true; photos: number } | { ok: false },
  submittedAt?: Date,
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
  const counted = await countSubmissionItem(submission.id, itemId, outcome, submittedAt, refund);
  if (counted === 'item_gone') {
    logger.warn('submission item deleted while it was sent; counted failed', {
      submission_id: submission.id,
      item_id: itemId,
    });
    return countItem(submission, itemId, { ok: false });
  }
  if (counted === 'refused') return false;
  if (refund) {
    const team = await getTeam(submission.team_id);
    if (team) await requestOwedSendRefund(team, refund);
  }
  return true;
}
