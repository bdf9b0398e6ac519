/**
 * POST /api/claims/{id}/submit-to-estimation-platform (spec: Estimation
 * platform send). The rules are in estimation-rules.ts; the send is a run on
 * the engine (estimation-run-service.ts) whose one stage this request runs:
 *
 *  1. Refusals that need no network: the claim (403/404), the platform's base
 *     URL and the team's key (409), a named target claim that is gone (409),
 *     nothing new to send (400).
 *  2. One send per claim at a time, decided by one conditional write that
 *     opens the claim's run (estimation-store.ts). A request that finds a
 *     send under way waits for it (then 409 if it is still going); when that
 *     send ends, and the request has nothing of its own left to send, that
 *     send's result is its answer (a double click sends and charges once);
 *     otherwise it sends what is left itself (another user's request after
 *     adding items sends them, never dropped).
 *  3. The batch and its charge reference are recorded (the run opened)
 *     before the spend; then the spend, the remote call, its record, the
 *     stamps (estimation-delivery-service.ts). A refusal fails the run with
 *     the refund it owes, written first, and is answered.
 *
 * A request running short of time hands the stage to the engine workers and
 * answers 503 (Retry-After): the send goes on under the same reference.
 * A request that dies anywhere leaves the run under its lease; once the lease
 * has run out the watchdog has a worker carry the send on under the same
 * reference (no second charge, nothing added twice), or fail and refund it.
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity-rules';
import { getClaim } from '../claims/store';
import type { Claim } from '../claims/claim-record-rules';
import { settings as currentSettings, type Settings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError, UnavailableError } from '../errors';
import { faultPoint } from '../faults/fault-points';
import { teamFeatures } from '../features/store';
import {
  finishRequestStage,
  handRequestStageToWorkers,
  requestStageFields,
  withinRequestTime,
} from '../orchestrator/request-stage';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { loadClaimForTeam } from '../claims/access-service';
import { listActiveClaimItems } from './claim-items-service';
import { createEstimationClient, loadTargetClaim } from './estimation-remote-service';
import {
  answeredBySend,
  itemsToSend,
  NO_TEAM_KEY,
  NOT_CONFIGURED,
  NOTHING_NEW,
  sendChargeReference,
  sendCredits,
  sendDestination,
} from './estimation-rules';
import { deliverOrFail, estimationSendPipeline, estimationSendRunKind } from './estimation-run-service';
import type * as schemas from './estimation-schemas';
import {
  batchItemIds,
  dropBatch,
  type EstimationSend,
  getEstimationSend,
  openEstimationSend,
  recordBatchItems,
  type SendResult,
} from './estimation-store';

type SendBody = import('zod').output<typeof schemas.estimationSendBody>;

const SEND_IN_PROGRESS =
  'A send to the estimation platform is already in progress for this claim; try again in a moment.';

/** How long a request waits for a send of the same claim already under way. */
const WAIT_FOR_RUNNING_SEND_MS = 10_000;
const WAIT_STEP_MS = 250;

/** A request's lease on its send's stage (ESTIMATION_SEND_LEASE_SECONDS): longer than an HTTP function may run (29 s). */
const requestLeaseMs = (config: Pick<Settings, 'ESTIMATION_SEND_LEASE_SECONDS'>) =>
  config.ESTIMATION_SEND_LEASE_SECONDS * 1000;

export interface SendDeps {
  config?: Settings;
  /** The request's time left when it was handed over (its Lambda context's); unbounded when absent. */
  timeLeftMs?: number;
}

/**
 * The time a request keeps back from its last moment, to hand its send over
 * and answer: a conditional write and a queue message, on a busy machine.
 */
const HAND_OVER_MARGIN_MS = 5_000;
/** When a request whose send was handed over suggests asking again: a worker takes the send within seconds. */
const HANDED_OVER_RETRY_AFTER_S = 10;

export const SEND_CONTINUES =
  'The send to the estimation platform is taking longer than usual and carries on in the background; its items are marked sent when it is done.';

export type SendResponse = SendResult & { deep_link: string | null };

function withDeepLink(result: SendResult, config: Settings): SendResponse {
  const app = config.ESTIMATION_PLATFORM_APP_URL.trim().replace(/\/+$/, '');
  return { ...result, deep_link: app && !result.dry_run ? `${app}/claims/${result.claim_id}` : null };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function submitToEstimationPlatform(
  identity: Identity,
  claimId: string,
  body: SendBody,
  deps: SendDeps = {},
): Promise<SendResponse> {
  const config = deps.config ?? currentSettings();
  const handOverAt = deps.timeLeftMs === undefined ? undefined : Date.now() + deps.timeLeftMs - HAND_OVER_MARGIN_MS;
  const claim = await loadClaimForTeam(identity, claimId);
  const team = await getTeam(claim.team_id);
  if (!team) throw new NotFoundError('Claim not found');
  const dryRun = claim.is_training;
  if (!dryRun && !config.ESTIMATION_PLATFORM_BASE_URL.trim()) throw new ConflictError(NOT_CONFIGURED);
  if (!dryRun && !team.estimation_platform_key) throw new ConflictError(NO_TEAM_KEY);

  const deadline = Date.now() + WAIT_FOR_RUNNING_SEND_MS;
  // The batch of the send this request found under way and waited for: its result may be this request's answer.
  let waitedFor: string | null = null;
  for (;;) {
    const existing = await getEstimationSend(claim.id);
    if (existing?.status === 'processing') {
      if (Date.now() >= deadline) throw new ConflictError(SEND_IN_PROGRESS);
      waitedFor = existing.batch_id;
      await sleep(WAIT_STEP_MS);
      continue;
    }
    const current = (await getClaim(claim.id, true)) ?? claim;
    const batch = itemsToSend(await listActiveClaimItems(current.id), body.item_ids);
    if (waitedFor && existing?.status === 'done' && existing.batch_id === waitedFor && existing.result) {
      // Nothing of its own left to send: a repeat of the send it waited for gets that send's result.
      const carried = await batchItemIds(existing);
      if (answeredBySend(batch.length, body.item_ids, carried))
        return withDeepLink({ ...existing.result, item_ids: carried }, config);
    }
    if (batch.length === 0) throw new InvalidRequestError(NOTHING_NEW);
    const opened = await openSend({
      identity,
      claim: current,
      team,
      existing,
      body,
      config,
      ids: batch.map((i) => i.id),
    });
    if (opened) return withDeepLink(await runSend(opened, config, handOverAt), config);
    // Another request opened the claim's send first: this one waits for it.
  }
}

/**
 * Records the batch and opens the claim's send with its stage held by this
 * request; null when another request opened one first. A named target claim
 * that is gone is refused before anything is written.
 */
async function openSend(input: {
  identity: Identity;
  claim: Claim;
  team: Team;
  existing: EstimationSend | null;
  body: SendBody;
  config: Settings;
  ids: string[];
}): Promise<EstimationSend | null> {
  const { identity, claim, team, existing, body, config, ids } = input;
  const dryRun = claim.is_training;
  let destination = sendDestination(claim, body.target_claim_key);
  if (destination.mode === 'append_target' && !dryRun) {
    const target = await loadTargetClaim(createEstimationClient(config, team), destination.claim_key);
    if (!target.ok) throw target.error;
    destination = { ...destination, claim_id: target.claim_id };
  }
  const features = await teamFeatures(team.id);
  // The round after whatever the previous send left: a failure (refused or refunded) moved it on.
  const round = existing?.round ?? 1;
  const batchId = randomUUID();
  await recordBatchItems(claim.id, batchId, ids);
  const now = new Date();
  const send: EstimationSend = {
    ...requestStageFields(estimationSendPipeline, randomUUID(), requestLeaseMs(config), now),
    id: claim.id,
    claim_id: claim.id,
    team_id: claim.team_id,
    status: 'processing',
    state: 'sending',
    round,
    reference: sendChargeReference(claim, ids, round),
    planned_credits: sendCredits({
      itemCount: ids.length,
      creditsPerItem: config.COST_PER_CONTENTS_ESTIMATION_ITEM,
      enterprise: features.enterprise,
      training: claim.is_training,
    }),
    credits: 0,
    charge_unconfirmed: false,
    charge_spend: null,
    batch_id: batchId,
    item_count: ids.length,
    destination,
    pricing: { depreciation_schedule_id: body.depreciation_schedule_id, shopping_profile_id: body.shopping_profile_id },
    photos_included: 0,
    warnings: [],
    dry_run: dryRun,
    sender_user_id: identity.user.id,
    remote: null,
    result: null,
    error: null,
    created_at: now.toISOString(),
  };
  if (!(await openEstimationSend(send, existing?.run_id ?? null))) {
    await dropBatch(claim.id, batchId);
    return null;
  }
  if (existing?.batch_id) await dropBatch(claim.id, existing.batch_id);
  return send;
}

/**
 * The send's stage, run by this request: a refusal is failed (and refunded)
 * and thrown; a result closes the run. Past `handOverAt` the stage is handed
 * to the workers, who carry the send on from its record (no second charge,
 * nothing added twice), and the request answers 503: asked again while the
 * send runs, it waits for it and answers with its result.
 */
async function runSend(send: EstimationSend, config: Settings, handOverAt: number | undefined): Promise<SendResult> {
  const runner = send.stage_runner as string;
  const work = (async () => {
    // A test ends the request here, through the real route, as a crash would (lib/faults).
    faultPoint('estimation-send:recorded', [send.claim_id]);
    const { result, itemIds } = await deliverOrFail(send, config);
    // The run's closing write; lost only when the stage was taken over, whose runner finishes it the same way.
    await finishRequestStage(estimationSendRunKind, send, estimationSendPipeline, { runner, set: { result } });
    return { ...result, item_ids: itemIds };
  })();
  const outcome = await withinRequestTime(work, handOverAt, { claim_id: send.claim_id, send: 'estimation_platform' });
  if (outcome.finished) return outcome.value;
  if (await handRequestStageToWorkers(estimationSendRunKind, send, runner))
    throw new UnavailableError(SEND_CONTINUES, HANDED_OVER_RETRY_AFTER_S);
  // The run moved on as the time ran out: the request's own closing or failing write won, and the work is ending.
  return work;
}
