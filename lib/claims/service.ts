/** Claim use cases: each call checks scope, changes state, and writes activity. */
import type { Identity } from '../auth/identity';
import { recordActivity } from '../activity/log';
import { serviceUnavailable, notFound } from '../http/errors';
import { logger } from '../observability/logger';
import { requestPurge } from '../purge/requests';
import { loadClaimForTeam, loadClaimOr403 } from '../tenancy/scope';
import {
  archiveClaim,
  claimView,
  createClaim,
  deleteClaimRow,
  EDITABLE_CLAIM_FIELDS,
  getClaim,
  listTeamClaims,
  patchClaim,
  unarchiveClaim,
  type Claim,
  type ClaimCreate,
  type ClaimPatch,
} from './claim';

// Activity goes to the feed of the claim's team, also when an admin of another team acted.
const claimEntity = (claim: Claim) => ({
  team_id: claim.team_id,
  entity_type: 'claim',
  entity_id: claim.id,
  target: claim.claim_number,
});

export async function createClaimFor(identity: Identity, input: ClaimCreate) {
  const claim = await createClaim(identity.team.id, identity.user.id, input);
  await recordActivity(identity.actor, {
    action_type: 'create_claim',
    action_label: 'Created claim',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

export async function listClaimsFor(identity: Identity, archived: boolean) {
  return (await listTeamClaims(identity.team.id, archived)).map(claimView);
}

export async function getClaimFor(identity: Identity, claimId: string) {
  return claimView(await loadClaimOr403(identity, claimId));
}

export async function updateClaimFor(identity: Identity, claimId: string, patch: ClaimPatch) {
  const claim = await loadClaimForTeam(identity, claimId);
  const { after } = await patchClaim(claim, patch);
  const changed = EDITABLE_CLAIM_FIELDS.filter((f) => f in patch && claim[f] !== after[f]);
  if (changed.length > 0) {
    await recordActivity(identity.actor, {
      action_type: 'update_claim',
      action_label: `Edited claim (${changed.join(', ')})`,
      ...claimEntity(after),
      snapshot: { before: Object.fromEntries(changed.map((f) => [f, claim[f]])) },
      restorable: true,
    });
  }
  return claimView(after);
}

export async function archiveClaimFor(identity: Identity, claimId: string) {
  const claim = await archiveClaim(await loadClaimForTeam(identity, claimId));
  await recordActivity(identity.actor, {
    action_type: 'archive_claim',
    action_label: 'Archived claim',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

export async function unarchiveClaimFor(identity: Identity, claimId: string) {
  const claim = await unarchiveClaim(await loadClaimForTeam(identity, claimId));
  await recordActivity(identity.actor, {
    action_type: 'unarchive_claim',
    action_label: 'Restored claim from archive',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

/**
 * Admin hard delete: not team-scoped. The purge of everything beneath the
 * claim (rooms, jobs, items, stored objects) is queued first, then the claim
 * row goes, so the claim is gone at once and nothing is left orphaned if the
 * queue is down (the request fails and nothing changed).
 */
export async function hardDeleteClaim(identity: Identity, claimId: string) {
  const claim = await getClaim(claimId, true);
  if (!claim) throw notFound('Claim not found');
  try {
    await requestPurge({ kind: 'claim', claim_id: claim.id, team_id: claim.team_id });
  } catch (err) {
    logger.error('could not queue the claim purge', { claim_id: claim.id, error: String(err) });
    throw serviceUnavailable('The deletion could not be started; nothing was deleted. Try again shortly.');
  }
  await deleteClaimRow(claim.id);
  await recordActivity(identity.actor, {
    action_type: 'delete_claim',
    action_label: 'Deleted claim permanently (admin)',
    ...claimEntity(claim),
    restorable: false,
  });
  return { deleted: true, id: claim.id };
}
