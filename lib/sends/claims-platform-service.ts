/**
 * The claims platform send (spec: Claims platform send, rules 1-8; Claims,
 * the claims-platform and submissions rows). The request does what must be
 * answered at once: the charge, then the remote claim (created or updated by
 * our claim id) and its rooms; a refusal there is refunded and answered 502.
 * The items then go in the background: the send is a run on the engine
 * (claims-platform-run-service.ts) whose first stage is this request, and whose
 * next sends one item per unit; the Submission goes processing → complete
 * when the run does, and an item that failed stays unsubmitted for a later
 * send.
 *
 * Exactly once (submission-store.ts has the record): the request opens the
 * claim's one open send with a conditional write, so of a double click one
 * request opens the send and the other answers it, and a request while a
 * send is open answers that send. The Submission records the charge before it
 * is asked for, under the request's lease on its run; the watchdog fails and
 * refunds a send whose request died once that lease has run out. The charge
 * key counts the items already submitted (as-send:{claim_id}:{already_submitted});
 * a later round of the same count adds :r<round>, so no reference is used twice.
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity-rules';
import { chargeSend } from '../billing/send-charge-service';
import { setClaimSubmitted } from '../claims/store';
import type { Claim } from '../claims/claim-record-rules';
import { settings as currentSettings, type Settings } from '../config';
import { faultPoint } from '../faults/fault-points';
import { ConflictError, InsufficientCreditsError, InvalidRequestError, NotFoundError } from '../errors';
import { teamFeatures } from '../features/store';
import { ClaimsPlatformClient } from '../integrations/claims-platform';
import { updateItemFields } from '../inventory/item-store';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { finishRequestStage, requestStageFields } from '../orchestrator/request-stage';
import { listClaimRooms } from '../rooms/store';
import { recordSend } from '../stats/service';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { loadClaimForTeam } from '../claims/access-service';
import { listActiveClaimItems } from './claim-items-service';
import {
  claimsPlatformDestination,
  claimsPlatformSendPipeline,
  claimsSendRunKind,
  failSend,
} from './claims-platform-run-service';
import {
  claimsPlatformFailure,
  dryRunClaimKey,
  itemsToSubmit,
  NOTHING_TO_SUBMIT,
  requestLeaseMs,
  remoteClaimFields,
  SEND_IN_PROGRESS,
  sendRefusal,
  sendToken,
  submissionChargeKey,
} from './claims-platform-rules';
import { recordSubmissionItems, submissionItemIds } from './submission-item-store';
import {
  advanceSubmission,
  completeSubmission,
  getClaimSend,
  getSubmission,
  listClaimSubmissions,
  openSubmission,
  withdrawSubmission,
} from './submission-store';
import type { ClaimSend, Submission } from './submission-record-rules';
import { submissionView } from './submission-view';

/** The sync calls of a send (claim, then rooms) share an HTTP function's 29 s. */
const SYNC_CALL_DEADLINE_MS = 10_000;

export interface ClaimsPlatformDeps {
  config?: Settings;
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

/** What a send of the selected rooms would carry and cost; the items of a send still open (`inFlight`) are left out. */
async function planSend(claim: Claim, team: Team, roomIds: string[] | undefined, inFlight: Set<string> = new Set()) {
  const [active, features] = await Promise.all([listActiveClaimItems(claim.id), teamFeatures(team.id)]);
  const batch = itemsToSubmit(
    active.filter((i) => !inFlight.has(i.id)),
    roomIds,
  );
  const alreadySubmitted = active.filter((i) => i.claims_platform_submitted_at || inFlight.has(i.id)).length;
  const perItem = features.enterprise || claim.is_training ? 0 : 1;
  return { batch, alreadySubmitted, perItem, enterprise: features.enterprise };
}

/** The claim's open-send row, and its send when that is still processing. */
async function openSendOf(claimId: string): Promise<{ claimSend: ClaimSend; open: Submission | null }> {
  const claimSend = await getClaimSend(claimId);
  const current = claimSend.submission_id ? await getSubmission(claimSend.submission_id) : null;
  return { claimSend, open: current?.status === 'processing' ? current : null };
}

/** POST claims-platform-quote: 1 credit per item in the batch; enterprise teams and training claims pay nothing. */
export async function quoteClaimsPlatformSend(identity: Identity, claimId: string, body: { room_ids?: string[] }) {
  const { claim, team } = await claimAndTeam(identity, claimId);
  // Items of a send still going out count as submitted: a quote never offers them again.
  const { open } = await openSendOf(claim.id);
  const inFlight = new Set(open ? await submissionItemIds(open.id, 'pending') : []);
  const plan = await planSend(claim, team, body.room_ids, inFlight);
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

/** POST submit-to-claims-platform. */
export async function submitToClaimsPlatform(
  identity: Identity,
  claimId: string,
  body: { room_ids?: string[]; shopping_profile_id?: string | null; depreciation_profile_id?: string | null },
  deps: ClaimsPlatformDeps = {},
) {
  const config = deps.config ?? currentSettings();
  const view = (s: Submission) => submissionView(s, config.CLAIMS_PLATFORM_APP_URL);
  const { claim, team } = await claimAndTeam(identity, claimId);
  const dryRun = claim.is_training;
  const client = dryRun ? null : createClaimsPlatformClient(config, team);

  const { claimSend, open } = await openSendOf(claim.id);
  // A send still open is this request's answer (a double click, or a click while it goes out).
  if (open) return view(open);
  const plan = await planSend(claim, team, body.room_ids);
  if (plan.batch.length === 0) throw new InvalidRequestError(NOTHING_TO_SUBMIT);
  const round = (claimSend.rounds[plan.alreadySubmitted] ?? 0) + 1;
  const seen = { previous: claimSend.submission_id, alreadySubmitted: plan.alreadySubmitted, round };
  const now = new Date();
  const runner = randomUUID();
  const submission: Submission = {
    // The send's run, opened with its first stage taken by this request under the request's lease.
    ...requestStageFields(claimsPlatformSendPipeline, runner, requestLeaseMs(currentSettings()), now),
    id: randomUUID(),
    claim_id: claim.id,
    team_id: claim.team_id,
    status: 'processing',
    request_step: 'charging',
    charge_key: submissionChargeKey(claim.id, plan.alreadySubmitted, round),
    credits: dryRun ? 0 : plan.batch.length * plan.perItem,
    item_count: plan.batch.length,
    photo_count: 0,
    done_count: 0,
    failed_count: 0,
    claim_key: null,
    remote_claim_id: null,
    dry_run: dryRun,
    error: null,
    created_by_user_id: identity.user.id,
    created_at: now.toISOString(),
    completed_at: null,
    processing_seconds: null,
  };
  if (!(await openSubmission(submission, seen))) {
    // Another request opened the claim's send first: its send is this request's answer.
    const winner = await getClaimSend(claim.id);
    const sent = winner.submission_id ? await getSubmission(winner.submission_id) : null;
    if (sent) return view(sent);
    throw new ConflictError(SEND_IN_PROGRESS);
  }
  await recordSubmissionItems(
    submission.id,
    plan.batch.map((i) => i.id),
  );
  if (dryRun) return view(await completeDryRun(submission, claim, plan.batch));
  // A test ends the request at each step, through the real route, at the step's fault point (lib/faults).
  faultPoint('claims-send:recorded', [claim.id]);

  let charged: Awaited<ReturnType<typeof chargeSend>>;
  try {
    charged = await chargeSend({
      team,
      user: identity.user,
      credits: submission.credits,
      reference: submission.charge_key,
      description: `Claims platform send: ${plan.batch.length} item${plan.batch.length === 1 ? '' : 's'} (claim ${claim.claim_number})`,
    });
  } catch (err) {
    // A flat refusal (402) charged nothing: the send is taken back, leaving nothing behind.
    if (err instanceof InsufficientCreditsError) await withdrawSubmission(submission, seen);
    throw err;
  }
  faultPoint('claims-send:spent', [claim.id]);
  await recordSend(claim.team_id, claimsPlatformDestination.statsCounter, now);
  const syncing = await advanceSubmission(submission, 'charging', 'syncing', {
    credits: charged.credits,
    // A lost answer: every refund this send owes asks for the spend again first.
    charge_spend: charged.charged && charged.unconfirmed ? (charged.spend ?? null) : null,
  });
  if (!syncing) return view((await getSubmission(submission.id)) ?? submission);
  faultPoint('claims-send:charged', [claim.id]);

  // The remote claim and its rooms, synchronously: a refusal here is refunded and answered 502.
  const synced = await syncRemoteClaim(client as ClaimsPlatformClient, claim, identity.user, body);
  if (!synced.ok) {
    await failSend(syncing, 'syncing', synced.detail, team);
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
  // The request's stage is done: the items go to the workers, one unit each.
  const started = await finishRequestStage(claimsSendRunKind, syncing, claimsPlatformSendPipeline, {
    runner,
    set: { request_step: null, claim_key: synced.claim_key, remote_claim_id: synced.claim_id },
    beforeNext: () => faultPoint('claims-send:synced', [claim.id]),
  });
  const after = (await getSubmission(submission.id)) ?? syncing;
  if (!started) return view(after);
  logger.info('claims platform send started', {
    claim_id: claim.id,
    submission_id: submission.id,
    items: submission.item_count,
    credits: after.credits,
  });
  return view(after);
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
async function completeDryRun(submission: Submission, claim: Claim, batch: { id: string }[]): Promise<Submission> {
  const at = new Date().toISOString();
  for (const item of batch) await updateItemFields(item.id, { claims_platform_submitted_at: at });
  if (!claim.submitted_at) await setClaimSubmitted(claim.id, at);
  await recordSend(claim.team_id, claimsPlatformDestination.statsCounter, new Date(submission.created_at));
  return (
    (await completeSubmission(submission, {
      claim_key: dryRunClaimKey(claim.id),
      done_count: submission.item_count,
    })) ?? submission
  );
}
