/** Loading a claim by its id for the caller (lib/tenancy/team-scope-rules.ts). */
import type { Identity } from '../auth/identity-rules';
import { ForbiddenError, NotFoundError } from '../errors';
import { ownRecordOr404, reachesTeam } from '../tenancy/team-scope-rules';
import { getClaim } from './store';
import type { Claim } from './claim-record-rules';

export const CLAIM_NOT_FOUND = 'Claim not found';

/** load_claim_for_team: 404 for a missing claim and for another team's claim. */
export async function loadClaimForTeam(identity: Identity, claimId: string): Promise<Claim> {
  return ownRecordOr404(identity, await getClaim(claimId, true), CLAIM_NOT_FOUND);
}

/** For the claim-level routes that refuse another team's claim as forbidden (GET /api/claims/{id}). */
export async function loadClaimOrForbidden(identity: Identity, claimId: string): Promise<Claim> {
  const claim = await getClaim(claimId, true);
  if (!claim) throw new NotFoundError(CLAIM_NOT_FOUND);
  if (!reachesTeam(identity, claim.team_id)) throw new ForbiddenError('This claim belongs to another team.');
  return claim;
}
