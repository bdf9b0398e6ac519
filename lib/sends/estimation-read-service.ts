/**
 * The estimation platform's read routes and the admin unlock (spec: Claims,
 * the estimation-platform-* rows; Estimation platform send, rule 7 and the
 * item freeze rules): the quote, the item list of the modal, the pricing
 * catalog and the claim picker. The catalog and the picker fail soft:
 * available=false with an empty list when the platform is not configured for
 * the team or answers 404; an outage is 502 and a refused key 409.
 */
import { recordActivity } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { setEstimationItemsUnlocked } from '../claims/store';
import { settings as currentSettings, type Settings } from '../config';
import { NotFoundError } from '../errors';
import { teamFeatures } from '../features/store';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { loadClaimForTeam } from '../claims/access-service';
import { claimView } from '../claims/view';
import { listActiveClaimItems } from './claim-items-service';
import { createEstimationClient } from './estimation-remote-service';
import { itemsToSend, preselectedPricing, remoteFailure, sendCredits } from './estimation-rules';

async function claimAndTeam(identity: Identity, claimId: string) {
  const claim = await loadClaimForTeam(identity, claimId);
  const team = await getTeam(claim.team_id);
  if (!team) throw new NotFoundError('Claim not found');
  return { claim, team };
}

/** GET estimation-platform-quote: what sending every unsent item would cost now. */
export async function quoteEstimationSend(identity: Identity, claimId: string, config: Settings = currentSettings()) {
  const { claim, team } = await claimAndTeam(identity, claimId);
  const [items, features] = await Promise.all([listActiveClaimItems(claim.id), teamFeatures(team.id)]);
  const unsent = itemsToSend(items, null).length;
  const perItem = features.enterprise || claim.is_training ? 0 : config.COST_PER_CONTENTS_ESTIMATION_ITEM;
  return {
    unsent_item_count: unsent,
    credit_cost_per_item: perItem,
    total_credits: sendCredits({
      itemCount: unsent,
      creditsPerItem: config.COST_PER_CONTENTS_ESTIMATION_ITEM,
      enterprise: features.enterprise,
      training: claim.is_training,
    }),
    enterprise: features.enterprise,
    training: claim.is_training,
  };
}

/** GET estimation-platform-items: every active item with whether it was sent. */
export async function listEstimationItems(identity: Identity, claimId: string) {
  const { claim } = await claimAndTeam(identity, claimId);
  const items = await listActiveClaimItems(claim.id);
  return {
    items: items.map((item) => ({
      id: item.id,
      item_number: item.item_number,
      name: item.name,
      quantity: item.quantity,
      room: item.room,
      room_id: item.room_id,
      photo_path: item.photo_path,
      estimated_price: item.estimated_price,
      estimation_sent_at: item.estimation_sent_at,
      sent: Boolean(item.estimation_sent_at),
    })),
    unsent_item_count: items.filter((i) => !i.estimation_sent_at).length,
  };
}

/** Whether the platform can be asked for this team at all (base URL and key). */
function reachable(config: Settings, team: Team): boolean {
  return Boolean(config.ESTIMATION_PLATFORM_BASE_URL.trim() && team.estimation_platform_key);
}

/** GET estimation-platform-profiles: depreciation schedules with their shopping profiles, and the preselection. */
export async function listEstimationProfiles(
  identity: Identity,
  claimId: string,
  config: Settings = currentSettings(),
) {
  const { team } = await claimAndTeam(identity, claimId);
  const unavailable = {
    available: false,
    schedules: [],
    preselected: { depreciation_schedule_id: null, shopping_profile_id: null },
  };
  if (!reachable(config, team)) return unavailable;
  const catalog = await createEstimationClient(config, team, { deadlineMs: 15_000 }).catalog();
  if (catalog.outcome === 'not_found') return unavailable;
  if (catalog.outcome !== 'ok') throw remoteFailure(catalog, 'read');
  return {
    available: true,
    schedules: catalog.body.schedules,
    preselected: preselectedPricing(catalog.body.schedules),
  };
}

/** GET estimation-platform-claims: the team's remote claims for the picker, archived ones left out. */
export async function listEstimationClaims(
  identity: Identity,
  claimId: string,
  query: { q?: string },
  config: Settings = currentSettings(),
) {
  const { team } = await claimAndTeam(identity, claimId);
  if (!reachable(config, team)) return { available: false, claims: [] };
  const found = await createEstimationClient(config, team, { deadlineMs: 15_000 }).searchClaims(query.q ?? '');
  if (found.outcome === 'not_found') return { available: false, claims: [] };
  if (found.outcome !== 'ok') throw remoteFailure(found, 'read');
  return {
    available: true,
    claims: found.body.claims
      .filter((c) => !c.archived)
      .map((c) => ({
        claim_number: c.claim_number,
        policyholder: c.policyholder_name,
        claim_key: c.claim_key,
        claim_id: c.claim_id,
      })),
  };
}

/** POST estimation-platform-item-lock (admins only): lifts or restores the freeze of sent items; not restorable. */
export async function setEstimationItemLock(identity: Identity, claimId: string, body: { unlocked: boolean }) {
  const claim = await loadClaimForTeam(identity, claimId);
  const updated = await setEstimationItemsUnlocked(claim.id, body.unlocked);
  if (!updated) throw new NotFoundError('Claim not found');
  await recordActivity(identity.actor, {
    team_id: claim.team_id,
    action_type: body.unlocked ? 'estimation_items_unlock' : 'estimation_items_lock',
    action_label: body.unlocked ? 'Unlocked sent items for editing' : 'Locked sent items again',
    target: claim.claim_number,
    entity_type: 'claim',
    entity_id: claim.id,
    restorable: false,
  });
  return claimView(updated);
}
