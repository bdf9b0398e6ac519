/**
 * The admin's permanent deletion of a claim: here, beside the purge it starts,
 * so the claims folder need not know the purge.
 */
import { recordActivity } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { CLAIM_NOT_FOUND } from '../claims/access-service';
import { deleteClaimRow, getClaim } from '../claims/store';
import { NotFoundError, UnavailableError } from '../errors';
import { logger } from '../observability/logger';
import { requestPurge } from './service';

/**
 * Admin hard delete: not team-scoped. The purge of everything beneath the
 * claim (rooms, jobs, items, stored objects) is queued first, then the claim
 * row goes, so the claim is gone at once and nothing is left orphaned if the
 * queue is down (the request fails and nothing changed).
 */
export async function hardDeleteClaim(identity: Identity, claimId: string) {
  const claim = await getClaim(claimId, true);
  if (!claim) throw new NotFoundError(CLAIM_NOT_FOUND);
  try {
    await requestPurge({ kind: 'claim', claim_id: claim.id, team_id: claim.team_id });
  } catch (err) {
    logger.error('could not queue the claim purge', { claim_id: claim.id, error: String(err) });
    throw new UnavailableError('The deletion could not be started; nothing was deleted. Try again shortly.');
  }
  await deleteClaimRow(claim.id);
  await recordActivity(identity.actor, {
    action_type: 'delete_claim',
    action_label: 'Deleted claim permanently (admin)',
    team_id: claim.team_id,
    entity_type: 'claim',
    entity_id: claim.id,
    target: claim.claim_number,
    restorable: false,
  });
  return { deleted: true, id: claim.id };
}
