/**
 * The remote half of an estimation send: which calls a destination makes and
 * what their answers mean (spec: Estimation platform send, the destination
 * rule, rules 3, 5 and 6). Every call here is idempotent at the remote, so a
 * send finished again after an interruption repeats them safely.
 */
import type { Claim } from '../claims/claim-record-rules';
import type { Settings } from '../config';
import { ConflictError, type DomainError } from '../errors';
import {
  type EstimationClaimPayload,
  type EstimationItem,
  EstimationPlatformClient,
} from '../integrations/estimation-platform';
import type { Team } from '../teams/team-record-rules';
import { completedPricing, type Destination, type Pricing, REMOTE_CLAIM_GONE, remoteFailure } from './estimation-rules';
import type { RemoteOutcome } from './estimation-store';

/**
 * A send makes up to three calls (target lookup or catalog, then create or
 * append, then the follow-up append): each gets this much, so the request
 * mostly stays inside an HTTP function's 29 s; a request that runs short of
 * time hands its send to the workers (estimation-service.ts).
 */
const SEND_CALL_DEADLINE_MS = 8_000;

/** The client for the team's key; the caller has checked that the base URL and the key are set. */
export function createEstimationClient(
  config: Pick<Settings, 'ESTIMATION_PLATFORM_BASE_URL'>,
  team: Pick<Team, 'estimation_platform_key'>,
  options: { deadlineMs?: number } = {},
): EstimationPlatformClient {
  return EstimationPlatformClient.fromSettings(config, team.estimation_platform_key ?? '', {
    deadlineMs: options.deadlineMs ?? SEND_CALL_DEADLINE_MS,
    timeoutMs: Math.min(options.deadlineMs ?? SEND_CALL_DEADLINE_MS, 8_000),
  });
}

export type RemoteCall = { ok: true; remote: RemoteOutcome } | { ok: false; error: DomainError };

/** The remote claim a named target is, found in the firm's list (the append answer does not carry its id). */
export async function loadTargetClaim(
  client: EstimationPlatformClient,
  claimKey: string,
): Promise<{ ok: true; claim_id: string } | { ok: false; error: DomainError }> {
  const listed = await client.searchClaims('');
  if (listed.outcome !== 'ok') return { ok: false, error: remoteFailure(listed, 'read') };
  const found = listed.body.claims.find((c) => c.claim_key === claimKey);
  return found ? { ok: true, claim_id: found.claim_id } : { ok: false, error: new ConflictError(REMOTE_CLAIM_GONE) };
}

async function appendTo(
  client: EstimationPlatformClient,
  claim: { claim_key: string; claim_id: string },
  items: EstimationItem[],
  created: boolean,
): Promise<RemoteCall> {
  const appended = await client.appendItems(claim.claim_key, items);
  if (appended.outcome !== 'ok') return { ok: false, error: remoteFailure(appended, 'append') };
  return {
    ok: true,
    remote: { ...claim, created, added: appended.body.added, skipped: appended.body.skipped },
  };
}

/**
 * Makes the calls of one batch: an append to the linked or named claim, or a
 * create (whose created=false is followed by an append to the claim it names).
 * Pricing travels only on the create, completed from the catalog when a
 * schedule was chosen without its profile.
 */
export async function deliverToEstimationPlatform(input: {
  client: EstimationPlatformClient;
  claim: Pick<Claim, 'estimation_claim_id'>;
  destination: Destination;
  items: EstimationItem[];
  pricing: Pricing;
  payload: (pricing: Pricing) => EstimationClaimPayload;
}): Promise<RemoteCall> {
  const { client, claim, destination, items } = input;
  if (destination.mode !== 'create') {
    // The remote claim's id: stored with the link, found before the charge for a named target, else looked up.
    const knownId = destination.mode === 'append_linked' ? claim.estimation_claim_id : destination.claim_id;
    const target = knownId
      ? { ok: true as const, claim_id: knownId }
      : await loadTargetClaim(client, destination.claim_key);
    if (!target.ok) return target;
    return appendTo(client, { claim_key: destination.claim_key, claim_id: target.claim_id }, items, false);
  }
  let pricing = input.pricing;
  if (pricing.depreciation_schedule_id?.trim() && !pricing.shopping_profile_id?.trim()) {
    const catalog = await client.catalog();
    if (catalog.outcome !== 'ok') return { ok: false, error: remoteFailure(catalog, 'read') };
    pricing = completedPricing(pricing, catalog.body.schedules);
  }
  const created = await client.createClaim(input.payload(pricing));
  if (created.outcome !== 'ok') return { ok: false, error: remoteFailure(created, 'create') };
  const remote = { claim_key: created.body.claim_key, claim_id: created.body.claim_id };
  if (created.body.created) {
    return { ok: true, remote: { ...remote, created: true, added: items.length, skipped: 0 } };
  }
  // The claim existed (a repeat of a create whose answer was lost, or a claim made elsewhere): rule 5.
  return appendTo(client, remote, items, false);
}
