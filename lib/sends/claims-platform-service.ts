/**
 * The claims platform send (spec: Claims platform send, rules 1-8; Claims,
 * the claims-platform and submissions rows). The request does what must be
 * answered at once: the charge, then the remote claim (created or updated by
 * our claim id) and its rooms; a refusal there is refunded and answered 502.
 * Each item, with its photos and the platform's analysis, is then a message
 * on the submissions queue (claims-platform-worker-service.ts), so the request
 * returns promptly; the Submission goes processing → complete when the last
 * item is counted, and an item that failed stays unsubmitted for a later send.
 *
 * Exactly once: the charge key counts the items already submitted
 * (as-send:{claim_id}:{already_submitted}) and the Submission's id is derived
 * from it, so a double click or a retried request finds the same charge at the
 * billing service (no second spend) and the same Submission (answered as it
 * is). A refunded failure moves the key to its next round (…:r2), as the
 * billing service answers a repeated key with its first answer.
 */
import type { Identity } from '../auth/identity-rules';
import { chargeSend, refundSend } from '../billing/send-charge-service';
import { type Claim, setClaimSubmitted } from '../claims/store';
import { settings as currentSettings, type Settings } from '../config';
import { InvalidRequestError, NotFoundError } from '../errors';
import { teamFeatures } from '../features/store';
import { ClaimsPlatformClient } from '../integrations/claims-platform';
import { updateItemFields } from '../inventory/item-store';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { listClaimRooms } from '../rooms/store';
import { getTeam, type Team } from '../teams/store';
import { loadClaimForTeam } from '../tenancy/service';
import { listActiveClaimItems } from './claim-items-service';
import {
  claimsPlatformFailure,
  dryRunClaimKey,
  itemsToSubmit,
  NOTHING_TO_SUBMIT,
  remoteClaimFields,
  sendFinishedSince,
  sendRefusal,
  sendToken,
  submissionChargeKey,
  submissionIdOf,
} from './claims-platform-rules';
import {
  getSubmission,
  listClaimSubmissions,
  putNewSubmission,
  type Submission,
  updateSubmission,
} from './submission-store';
import { submissionView } from './submission-view';
import { recordSend } from '../stats/service';

/** The sync calls of a send (claim, then rooms) share an HTTP function's 29 s. */
const SYNC_CALL_DEADLINE_MS = 10_000;

export interface ClaimsPlatformDeps {
  config?: Settings;
  /** When the request arrived (the gateway's clock): a send finished since then is this request's answer. */
  receivedAt?: Date;
}

async function claimAndTeam(identity: Identity, claimId: string): Promise<{ claim: Claim; team: Team }> {
  const claim = await loadClaimForTeam(identity, claimId);
  const team = await getTeam(claim.team_id);
  if (!team) throw new NotFoundError('Claim not found');
  return { claim, team };
}

/** A client for the team's token (else the global bearer); 409 when the platform or the token is missing. */
function createClaimsPlatformClient(config: Settings, team: Pick<Team, 'team_token'>): ClaimsPlatformClient {
  const token = sendToken(team.team_token, config.CLAIMS_PLATFORM_BEARER_TOKEN);
  const refusal = sendRefusal({ baseUrl: config.CLAIMS_PLATFORM_BASE_URL, token });
  if (refusal) throw refusal;
  return new ClaimsPlatformClient({
    baseUrl: config.CLAIMS_PLATFORM_BASE_URL,
    token: token as string,
    deadlineMs: SYNC_CALL_DEADLINE_MS,
  });
}

/** GET claims-platform-profiles: the team's shopping and depreciation profiles for the submit modal. */
export async function listClaimsPlatformProfiles(identity: Identity, claimId: string, deps: ClaimsPlatformDeps = {}) {
  const config = deps.config ?? currentSettings();
  const { claim, team } = await claimAndTeam(identity, claimId);
  if (claim.is_training) return { shopping_profiles: [], depreciation_profiles: [] };
  const answer = await createClaimsPlatformClient(config, team).profiles();
  if (answer.outcome !== 'ok') throw claimsPlatformFailure(refusalDetail(answer));
  return answer.body;
}

/** What a send of the selected rooms would carry and cost. */
async function planSend(claim: Claim, team: Team, roomIds: string[] | undefined) {
  // Submissions before items: the worker marks an item before it counts it, so a send read as
  // complete has every item it carried marked in the read that follows (none is planned twice).
  const [submissions, features] = await Promise.all([listClaimSubmissions(claim.id), teamFeatures(team.id)]);
  const active = await listActiveClaimItems(claim.id);
  // Items of a send still running count as sent: the worker marks them one by one, and a repeated
  // request (a double click) must neither send them again nor read a different batch from them.
  const running = submissions.filter((s) => s.status === 'processing');
  const inFlight = new Set(running.flatMap((s) => s.item_ids));
  const batch = itemsToSubmit(
    active.filter((i) => !inFlight.has(i.id)),
    roomIds,
  );
  const alreadySubmitted = active.filter((i) => i.claims_platform_submitted_at || inFlight.has(i.id)).length;
  const perItem = features.enterprise || claim.is_training ? 0 : 1;
  return { batch, alreadySubmitted, perItem, enterprise: features.enterprise, running: running[0] ?? null };
}

/** POST claims-platform-quote: 1 credit per item in the batch; enterprise teams and training claims pay nothing. */
export async function quoteClaimsPlatformSend(identity: Identity, claimId: string, body: { room_ids?: string[] }) {
  const { claim, team } = await claimAndTeam(identity, claimId);
  const plan = await planSend(claim, team, body.room_ids);
  return {
    item_count: plan.batch.length,
    credits: plan.batch.length * plan.perItem,
    credit_cost_per_item: plan.perItem,
    already_submitted: plan.alreadySubmitted,
    enterprise: plan.enterprise,
    training: claim.is_training,
  };
}

/** GET submissions: the claim's sends newest first, with the claim's item totals. */
export async function listSubmissions(identity: Identity, claimId: string, deps: ClaimsPlatformDeps = {}) {
  const config = deps.config ?? currentSettings();
  const { claim } = await claimAndTeam(identity, claimId);
  const [submissions, active] = await Promise.all([listClaimSubmissions(claim.id), listActiveClaimItems(claim.id)]);
  return {
    submissions: submissions.map((s) => submissionView(s, config.CLAIMS_PLATFORM_APP_URL)),
    total_items: active.length,
    unsubmitted_items: active.filter((i) => !i.claims_platform_submitted_at).length,
  };
}

/**
 * The round of this batch's charge key: the first whose submission did not
 * fail. An existing live submission for the key is this request's answer.
 */
async function findAttempt(
  claimId: string,
  alreadySubmitted: number,
): Promise<{ existing: Submission } | { chargeKey: string; id: string }> {
  for (let round = 1; ; round++) {
    const chargeKey = submissionChargeKey(claimId, alreadySubmitted, round);
    const id = submissionIdOf(chargeKey);
    const existing = await getSubmission(id);
    if (!existing) return { chargeKey, id };
    if (existing.status !== 'failed') return { existing };
  }
}

/** POST submit-to-claims-platform. */
export async function submitToClaimsPlatform(
  identity: Identity,
  claimId: string,
  body: { room_ids?: string[]; shopping_profile_id?: string | null; depreciation_profile_id?: string | null },
  deps: ClaimsPlatformDeps = {},
) {
  const config = deps.config ?? currentSettings();
  const { claim, team } = await claimAndTeam(identity, claimId);
  const dryRun = claim.is_training;
  const client = dryRun ? null : createClaimsPlatformClient(config, team);
  const plan = await planSend(claim, team, body.room_ids);
  const attempt = await findAttempt(claim.id, plan.alreadySubmitted);
  if ('existing' in attempt) return submissionView(attempt.existing, config.CLAIMS_PLATFORM_APP_URL);
  if (plan.batch.length === 0) {
    // Everything left is in a send still running, or in one that finished after this request
    // arrived (the second click of a double click, handled late): this request repeats it. The
    // submissions are read again: a send that began and ended between the plan's two reads is only
    // in a fresh list.
    const repeated =
      plan.running ?? sendFinishedSince(await listClaimSubmissions(claim.id), deps.receivedAt ?? new Date());
    if (repeated) return submissionView(repeated, config.CLAIMS_PLATFORM_APP_URL);
    throw new InvalidRequestError(NOTHING_TO_SUBMIT);
  }

  const credits = plan.batch.length * plan.perItem;
  const charge = dryRun
    ? null
    : await chargeSend({
        team,
        user: identity.user,
        credits,
        reference: attempt.chargeKey,
        description: `Claims platform send: ${plan.batch.length} item${plan.batch.length === 1 ? '' : 's'} (claim ${claim.claim_number})`,
      });
  const now = new Date();
  const submission: Submission = {
    id: attempt.id,
    claim_id: claim.id,
    team_id: claim.team_id,
    status: 'processing',
    charge_key: attempt.chargeKey,
    credits: charge?.credits ?? 0,
    item_ids: plan.batch.map((i) => i.id),
    item_count: plan.batch.length,
    photo_count: 0,
    done_count: 0,
    failed_count: 0,
    failed_item_ids: [],
    claim_key: null,
    remote_claim_id: null,
    dry_run: dryRun,
    error: null,
    created_by_user_id: identity.user.id,
    created_at: now.toISOString(),
    completed_at: null,
    processing_seconds: null,
  };
  if (!(await putNewSubmission(submission))) {
    // A concurrent request for the same batch wrote it first (same charge key: charged once).
    const existing = await getSubmission(attempt.id);
    if (existing) return submissionView(existing, config.CLAIMS_PLATFORM_APP_URL);
  } else {
    await recordSend(claim.team_id, 'claims_platform', now);
  }

  if (!client) return submissionView(await completeDryRun(submission, claim), config.CLAIMS_PLATFORM_APP_URL);

  // The remote claim and its rooms, synchronously: a refusal here is refunded and answered 502.
  const sender = identity.user;
  const synced = await syncRemoteClaim(client, claim, sender, body);
  if (!synced.ok) {
    if (submission.credits > 0) await refundSend({ team, reference: submission.charge_key });
    await updateSubmission(submission.id, 'processing', { status: 'failed', error: synced.detail });
    logger.warn('claims platform send refused', { claim_id: claim.id, detail: synced.detail });
    // The platform's own words may quote the claim: error tracking gets the ids only.
    reportError({
      kind: 'claims_platform_submission',
      level: 'error',
      message: 'The claims platform refused the claim and room sync of a send',
      tags: { step: 'claim_sync', claim_id: claim.id, submission_id: submission.id, team_id: claim.team_id },
    });
    throw claimsPlatformFailure(synced.detail);
  }
  if (!claim.submitted_at) await setClaimSubmitted(claim.id, now.toISOString());
  const started =
    (await updateSubmission(submission.id, 'processing', {
      claim_key: synced.claim_key,
      remote_claim_id: synced.claim_id,
    })) ?? submission;
  for (const itemId of submission.item_ids)
    await dispatch('submissions', { submission_id: submission.id, item_id: itemId });
  logger.info('claims platform send started', {
    claim_id: claim.id,
    submission_id: submission.id,
    items: submission.item_count,
    credits: submission.credits,
  });
  return submissionView(started, config.CLAIMS_PLATFORM_APP_URL);
}

async function syncRemoteClaim(
  client: ClaimsPlatformClient,
  claim: Claim,
  sender: { external_id: string | null },
  body: { shopping_profile_id?: string | null; depreciation_profile_id?: string | null },
): Promise<{ ok: true; claim_key: string; claim_id: string } | { ok: false; detail: string }> {
  const upserted = await client.upsertClaim(claim.id, remoteClaimFields(claim, sender, body));
  if (upserted.outcome !== 'ok') return { ok: false, detail: refusalDetail(upserted) };
  const rooms = await listClaimRooms(claim.id, false);
  const synced = await client.syncRooms(
    upserted.body.claim_key,
    rooms.map((r) => ({ external_id: r.id, name: r.name })),
  );
  if (synced.outcome !== 'ok') return { ok: false, detail: refusalDetail(synced) };
  return { ok: true, claim_key: upserted.body.claim_key, claim_id: upserted.body.claim_id };
}

function refusalDetail(result: { outcome: string; detail?: string }): string {
  if (result.outcome === 'unauthorized') return "the platform refused the team's token (401)";
  return result.detail ?? result.outcome;
}

/** A training claim's dry run: nothing leaves, the items are marked submitted, a stand-in key is recorded. */
async function completeDryRun(submission: Submission, claim: Claim): Promise<Submission> {
  const at = new Date().toISOString();
  for (const id of submission.item_ids) await updateItemFields(id, { claims_platform_submitted_at: at });
  if (!claim.submitted_at) await setClaimSubmitted(claim.id, at);
  return (
    (await updateSubmission(submission.id, 'processing', {
      status: 'complete',
      claim_key: dryRunClaimKey(claim.id),
      done_count: submission.item_count,
      completed_at: at,
      processing_seconds: 0,
    })) ?? submission
  );
}
