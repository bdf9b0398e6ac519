/** Claim rules (spec: Resources > Claim; States > Other lifecycles). Pure: no I/O. */
import type { Claim, ClaimPatch } from './claim-record-rules';

/** The fields a person edits; the update activity names the ones that changed. */
const EDITABLE_CLAIM_FIELDS = [
  'claim_number',
  'insured_name',
  'loss_type',
  'coverage_type',
  'claim_type',
  'zip_code',
  'adjuster_name',
] as const;

export const CLAIM_SUBMITTED = 'This claim has been submitted and cannot be archived.';

/**
 * items_locked: the claim has been sent to the estimation platform. A training
 * claim never locks, and the admin unlock overrides the lock.
 */
export function itemsLocked(
  claim: Pick<Claim, 'estimation_claim_id' | 'estimation_submitted_at' | 'is_training' | 'estimation_items_unlocked'>,
): boolean {
  if (claim.is_training || claim.estimation_items_unlocked) return false;
  return Boolean(claim.estimation_claim_id || claim.estimation_submitted_at);
}

/** The editable fields a patch named whose value actually changed. */
export function changedClaimFields(before: Claim, after: Claim, patch: ClaimPatch) {
  return EDITABLE_CLAIM_FIELDS.filter((f) => f in patch && before[f] !== after[f]);
}
