/** Claim use cases: each call checks scope, changes state, and writes activity. */
import { recordActivity, type Restorer } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { InvalidRequestError, NotFoundError } from '../errors';
import { CLAIM_NOT_FOUND, loadClaimForTeam, loadClaimOrForbidden } from './access-service';
import { CLAIM_SUBMITTED, changedClaimFields } from './rules';
import {
  getClaim,
  listTeamClaims,
  putNewClaim,
  setClaimArchived,
  setClaimUnarchived,
  updateClaimFields,
} from './store';
import type { Claim, ClaimCreate, ClaimPatch } from './claim-record-rules';
import { claimView } from './view';

// Activity goes to the feed of the claim's team, also when an admin of another team acted.
const claimEntity = (claim: Claim) => ({
  team_id: claim.team_id,
  entity_type: 'claim',
  entity_id: claim.id,
  target: claim.claim_number,
});

// State changes without activity: the use cases below and the undo of claim actions share them.

/** Applies a patch to a loaded claim; the claim as it is after. */
async function patchClaimRecord(claim: Claim, patch: ClaimPatch): Promise<Claim> {
  const after = await updateClaimFields(claim.id, patch);
  if (!after) throw new NotFoundError(CLAIM_NOT_FOUND);
  return after;
}

/** Archive: refused if submitted; hidden from default lists, counts, exports and sends. */
export async function archiveClaimRecord(claim: Claim, now = new Date()): Promise<Claim> {
  const archived = await setClaimArchived(claim.id, now);
  if (archived) return archived;
  if (!(await getClaim(claim.id, true))) throw new NotFoundError(CLAIM_NOT_FOUND);
  throw new InvalidRequestError(CLAIM_SUBMITTED);
}

export async function unarchiveClaimRecord(claim: Claim): Promise<Claim> {
  const restored = await setClaimUnarchived(claim.id);
  if (!restored) throw new NotFoundError(CLAIM_NOT_FOUND);
  return restored;
}

export async function createClaim(identity: Identity, input: ClaimCreate) {
  const claim = await putNewClaim(identity.team.id, identity.user.id, input);
  await recordActivity(identity.actor, {
    action_type: 'create_claim',
    action_label: 'Created claim',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

export async function listClaims(identity: Identity, archived: boolean) {
  return (await listTeamClaims(identity.team.id, archived)).map(claimView);
}

export async function showClaim(identity: Identity, claimId: string) {
  return claimView(await loadClaimOrForbidden(identity, claimId));
}

export async function updateClaim(identity: Identity, claimId: string, patch: ClaimPatch) {
  const claim = await loadClaimForTeam(identity, claimId);
  const after = await patchClaimRecord(claim, patch);
  const changed = changedClaimFields(claim, after, patch);
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

export async function archiveClaim(identity: Identity, claimId: string) {
  const claim = await archiveClaimRecord(await loadClaimForTeam(identity, claimId));
  await recordActivity(identity.actor, {
    action_type: 'archive_claim',
    action_label: 'Archived claim',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

export async function unarchiveClaim(identity: Identity, claimId: string) {
  const claim = await unarchiveClaimRecord(await loadClaimForTeam(identity, claimId));
  await recordActivity(identity.actor, {
    action_type: 'unarchive_claim',
    action_label: 'Restored claim from archive',
    ...claimEntity(claim),
    restorable: true,
  });
  return claimView(claim);
}

/** Undo of the claim's activity entries (lib/api/undo-restorers.ts): adding a claim is undone by archiving it. */
export const claimRestorers: Record<string, Restorer> = {
  create_claim: async (e, id) => archiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
  update_claim: async (e, id) =>
    patchClaimRecord(await loadClaimForTeam(id, e.entity_id), (e.snapshot?.before ?? {}) as ClaimPatch),
  archive_claim: async (e, id) => unarchiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
  unarchive_claim: async (e, id) => archiveClaimRecord(await loadClaimForTeam(id, e.entity_id)),
};
