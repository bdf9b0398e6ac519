/**
 * POST /api/claims/{id}/submit-to-estimation-platform (spec: Estimation
 * platform send). The rules are in estimation-rules.ts; this is the order of
 * the steps and what makes the send exactly-once:
 *
 *  1. Refusals that need no network: the claim (403/404), the platform's base
 *     URL and the team's key (409), nothing new to send (400).
 *  2. The claim's send lease (estimation-store.ts): one send per claim at a
 *     time. A request that arrives while another send of the claim runs waits
 *     for it. Then, when every item it would send now was carried by that send
 *     (nothing of its own is left), that send's result is its answer (a double
 *     click sends and charges once); otherwise it sends what is left itself
 *     (another user's request after adding items sends them, never dropped).
 *  3. The batch and its charge reference are recorded before the spend, the
 *     spend is made (402 stops here, nothing sent, and the round moves on: the
 *     service keeps a refused reference refused), then the remote call.
 *  4. The remote's answer is recorded before the local stamps, then the items
 *     are stamped, the claim linked, the spend added to the claim.
 *
 * A process that dies anywhere leaves the record in 'sending' or 'delivered'
 * with an expired lease. The next send of the claim finishes it first: the
 * same batch under the same reference (the billing service answers a repeated
 * reference with its first answer: no second charge), the same remote call
 * (create is idempotent on external_reference, append per item: nothing is
 * added twice, and created=false or skipped items still name the claim), then
 * the stamps. A refused send records its failure, which moves the charge
 * round on (a later attempt is charged again under a new reference), in one
 * write with the refund it owes, and only then asks for that refund (the
 * billing sweep asks again until the service confirms it): a reference is
 * never refunded while the record could still be finished under it.
 */
import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity-rules';
import { type Claim, getClaim } from '../claims/store';
import { settings as currentSettings, type Settings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { faultPoint } from '../faults/fault-points';
import { getTeam } from '../teams/store';
import { loadClaimForTeam } from '../tenancy/service';
import { listActiveClaimItems } from './claim-items-service';
import {
  type Checkpoint,
  completeInterruptedSend,
  requestLeaseMs,
  SEND_IN_PROGRESS,
  type SendStep,
  startSendBatch,
} from './estimation-batch-service';
import {
  answeredBySend,
  itemsToSend,
  NO_TEAM_KEY,
  NOT_CONFIGURED,
  NOTHING_NEW,
  sendDestination,
} from './estimation-rules';
import type * as schemas from './estimation-schemas';
import {
  acquireSendLease,
  batchItemIds,
  type EstimationSend,
  getEstimationSend,
  releaseSendLease,
  type SendResult,
} from './estimation-store';

type SendBody = import('zod').output<typeof schemas.estimationSendBody>;

/** The steps with a named fault point (lib/faults/fault-points.ts). */
type FaultPointStep = 'recorded' | 'spent' | 'charged' | 'accepted';
const FAULT_POINT_STEPS: ReadonlySet<SendStep> = new Set<FaultPointStep>(['recorded', 'spent', 'charged', 'accepted']);

/** How long a request waits for a send of the same claim already running. */
const WAIT_FOR_RUNNING_SEND_MS = 10_000;
const WAIT_STEP_MS = 250;

export interface SendDeps {
  config?: Settings;
  /** When the request reached the service (the gateway's receive time); default now. */
  receivedAt?: Date;
  /**
   * Fault injection for tests: called at each step; whatever it throws stops
   * the send there as a dead process would (nothing more runs, the lease stays held).
   */
  interrupt?: (step: SendStep) => void;
}

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
  const claim = await loadClaimForTeam(identity, claimId);
  const team = await getTeam(claim.team_id);
  if (!team) throw new NotFoundError('Claim not found');
  const dryRun = claim.is_training;
  if (!dryRun && !config.ESTIMATION_PLATFORM_BASE_URL.trim()) throw new ConflictError(NOT_CONFIGURED);
  if (!dryRun && !team.estimation_platform_key) throw new ConflictError(NO_TEAM_KEY);

  const arrived = (deps.receivedAt ?? new Date()).toISOString();
  // Nothing new and no send of the claim running, left unfinished or ended since this request
  // arrived: refused before anything is written.
  const existing = await getEstimationSend(claim.id);
  const unsettled =
    existing &&
    (existing.lease_until > Date.now() ||
      existing.state === 'sending' ||
      existing.state === 'delivered' ||
      (existing.result?.sent_at ?? '') >= arrived);
  if (!unsettled && itemsToSend(await listActiveClaimItems(claim.id), body.item_ids).length === 0) {
    throw new InvalidRequestError(NOTHING_NEW);
  }

  const owner = randomUUID();
  const lease = await acquireOrWait(claim, owner, arrived);
  let released = false;
  const checkpoint: Checkpoint = (step) => {
    try {
      deps.interrupt?.(step);
      // Through the real route, the request ends at the step's fault point (lib/faults), as a crash would end it.
      if (FAULT_POINT_STEPS.has(step)) faultPoint(`estimation-send:${step as FaultPointStep}`, [claim.id]);
    } catch (err) {
      released = true; // a dead process releases nothing
      throw err;
    }
  };
  try {
    let recovered: SendResult | null = null;
    if (lease.previous && (lease.previous.state === 'sending' || lease.previous.state === 'delivered')) {
      recovered = await completeInterruptedSend(lease.previous, owner, team, config, checkpoint);
    }
    const current = (await getClaim(claim.id, true)) ?? claim;
    const active = await listActiveClaimItems(current.id);
    const batch = itemsToSend(active, body.item_ids);
    // Nothing of its own left to send: a repeat of the send that overlapped it, or of an interrupted send that
    // has just been finished, gets that send's result; anything left is this request's to send.
    const answer = recovered ?? lease.overlapped;
    if (answer && answeredBySend(batch.length, body.item_ids, answer.item_ids)) return withDeepLink(answer, config);
    if (batch.length === 0) throw new InvalidRequestError(NOTHING_NEW);
    // The round after whatever the previous send (or its recovery) left: a failure (refused or refunded) moved it on.
    const previousRound = (await getEstimationSend(claim.id))?.round ?? 1;
    const result = await startSendBatch({
      claim: current,
      team,
      identity,
      owner,
      round: previousRound,
      batchIds: batch.map((i) => i.id),
      destination: sendDestination(current, body.target_claim_key),
      pricing: {
        depreciation_schedule_id: body.depreciation_schedule_id,
        shopping_profile_id: body.shopping_profile_id,
      },
      dryRun,
      config,
      checkpoint,
    });
    released = true;
    return withDeepLink(result, config);
  } finally {
    if (!released) await releaseSendLease(claim.id, owner).catch(() => undefined);
  }
}

/**
 * Takes the claim's lease, waiting for a running send to end. `overlapped`
 * is the result of a send that overlapped this request (it held the lease
 * meanwhile or ended after the request arrived), with the items it carried:
 * the caller decides whether it answers the request (answeredBySend).
 */
async function acquireOrWait(
  claim: Claim,
  owner: string,
  arrived: string,
): Promise<{ previous: EstimationSend | null; overlapped: SendResult | null }> {
  const deadline = Date.now() + WAIT_FOR_RUNNING_SEND_MS;
  let waited = false;
  for (;;) {
    const now = Date.now();
    const lease = await acquireSendLease(claim, owner, now, now + requestLeaseMs());
    if (!lease.busy) {
      const previous = lease.previous;
      // A send that ended after this request arrived overlapped it (a double click that lost the race).
      if (previous?.state === 'done' && previous.result && (waited || previous.result.sent_at >= arrived)) {
        return { previous, overlapped: { ...previous.result, item_ids: await batchItemIds(previous) } };
      }
      return { previous, overlapped: null };
    }
    if (Date.now() >= deadline) throw new ConflictError(SEND_IN_PROGRESS);
    waited = true;
    await sleep(WAIT_STEP_MS);
  }
}
