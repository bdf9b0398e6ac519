/** Claims as the API shows them (spec: Resources > Claim). */
import type * as z from 'zod';
import { itemsLocked } from './rules';
import type { claimResponse } from './schemas';
import type { Claim } from './claim-record-rules';

/**
 * Names every answered field: the claim's row also carries the item-numbering bookkeeping other modules write
 * on it (item_number_max, numbering_seq, numbering_lease, numbering_written_at), which is not the API's.
 */
export function claimView(claim: Claim): z.output<typeof claimResponse> {
  return {
    id: claim.id,
    team_id: claim.team_id,
    created_by_user_id: claim.created_by_user_id,
    claim_number: claim.claim_number,
    insured_name: claim.insured_name,
    loss_type: claim.loss_type,
    coverage_type: claim.coverage_type,
    claim_type: claim.claim_type,
    zip_code: claim.zip_code,
    adjuster_name: claim.adjuster_name,
    is_archived: claim.is_archived,
    archived_at: claim.archived_at,
    submitted_at: claim.submitted_at,
    is_training: claim.is_training,
    estimation_claim_key: claim.estimation_claim_key,
    estimation_claim_id: claim.estimation_claim_id,
    estimation_submitted_at: claim.estimation_submitted_at,
    estimation_items_unlocked: claim.estimation_items_unlocked,
    items_locked: itemsLocked(claim),
    spend_usd: Math.round(claim.spend_credits ?? 0),
    created_at: claim.created_at,
    updated_at: claim.updated_at,
  };
}
