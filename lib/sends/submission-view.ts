/** A Submission as the API shows it (spec: Submission record). */
import { claimDeepLink } from './claims-platform-rules';
import type { Submission } from './submission-record-rules';

/** `appUrl`: CLAIMS_PLATFORM_APP_URL, for the deep link to the remote claim (none when empty or a dry run). */
export function submissionView(submission: Submission, appUrl: string) {
  return {
    id: submission.id,
    claim_id: submission.claim_id,
    status: submission.status,
    item_count: submission.item_count,
    photo_count: submission.photo_count,
    done_count: submission.done_count,
    failed_count: submission.failed_count,
    credits_charged: submission.credits,
    claim_key: submission.claim_key,
    deep_link: submission.dry_run ? null : claimDeepLink(appUrl, submission.claim_key),
    dry_run: submission.dry_run,
    error: submission.error,
    created_at: submission.created_at,
    completed_at: submission.completed_at,
    processing_seconds: submission.processing_seconds,
  };
}
