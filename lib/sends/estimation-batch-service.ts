/**
 * The steps of one estimation send batch, after the lease is held
 * (estimation-service.ts has the order and the exactly-once argument): record
 * the batch and its charge reference, spend, call the remote, record its
 * answer, stamp. Also the finishing of a batch a dead process left behind.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { Identity } from '../auth/identity-rules';
import { chargeSend, requestOwedSendRefund } from '../billing/send-charge-service';
import { addClaimSpend, type Claim, getClaim, setEstimationLink } from '../claims/store';
import { type Settings, settings } from '../config';
import { ConflictError, DomainError, InsufficientCreditsError, NotFoundError } from '../errors';
import { teamFeatures } from '../features/store';
import { getItem, updateItemFields } from '../inventory/item-store';
import { logger } from '../observability/logger';
import type { Team } from '../teams/store';
import { getUser } from '../users/store';
import { ITEM_WRITES_AT_ONCE, loadRemoteBatch } from './estimation-batch-payload-service';
import {
  createEstimationClient,
  deliverToEstimationPlatform,
  loadTargetClaim,
  type RemoteCall,
} from './estimation-remote-service';
import {
  createPayload,
  type Destination,
  dryRunRemoteClaim,
  type Pricing,
  sendChargeReference,
  sendCredits,
} from './estimation-rules';
import {
  acquireSendLease,
  type EstimationSend,
  getEstimationSend,
  recordBatchItems,
  type RemoteOutcome,
  recordSendFailure,
  recordSendStep,
  type SendResult,
} from './estimation-store';
import { recordSend } from '../stats/service';

/** A request's lease on the claim's send (ESTIMATION_SEND_LEASE_SECONDS): longer than an HTTP function may run (29 s), so a live send never loses it. */
export const requestLeaseMs = (config: Pick<Settings, 'ESTIMATION_SEND_LEASE_SECONDS'> = settings()) =>
  config.ESTIMATION_SEND_LEASE_SECONDS * 1000;

export const SEND_IN_PROGRESS =
  'A send to the estimation platform is already in progress for this claim; try again in a moment.';

/**
 * The points between the steps at which a send can be cut off (a process that dies there): after the batch is
 * recorded, after the spend answered (before its record), after the charge is recorded, after the remote accepted
 * the batch (before its record), after that record, after a failure is recorded.
 */
export type SendStep = 'recorded' | 'spent' | 'charged' | 'accepted' | 'delivered' | 'failed';
export type Checkpoint = (step: SendStep) => void;

export interface SendPlan {
  claim: Claim;
  team: Team;
  identity: Identity | null;
  owner: string;
  round: number;
  batchIds: string[];
  destination: Destination;
  pricing: Pricing;
  dryRun: boolean;
  config: Settings;
  checkpoint: Checkpoint;
}

/** Steps 3 and 4 for one batch; the lease is released at the end either way. */
export async function startSendBatch(plan: SendPlan): Promise<SendResult> {
  const { claim, team, owner, round, batchIds, dryRun, config } = plan;
  const features = await teamFeatures(team.id);
  const credits = sendCredits({
    itemCount: batchIds.length,
    creditsPerItem: config.COST_PER_CONTENTS_ESTIMATION_ITEM,
    enterprise: features.enterprise,
    training: claim.is_training,
  });
  const reference = sendChargeReference(claim, batchIds, round);
  const sender = plan.identity?.user ?? null;
  let destination = plan.destination;
  if (destination.mode === 'append_target' && !dryRun) {
    // A named target that is gone is refused before anything is charged.
    const target = await loadTargetClaim(createEstimationClient(config, team), destination.claim_key);
    if (!target.ok) throw target.error;
    destination = { ...destination, claim_id: target.claim_id };
  }
  const batchId = randomUUID();
  await recordBatchItems(claim.id, batchId, batchIds);
  if (
    !(await recordSendStep(claim.id, owner, {
      state: 'sending',
      round,
      reference,
      credits: 0,
      charge_unconfirmed: false,
      charge_spend: null,
      batch_id: batchId,
      item_count: batchIds.length,
      destination,
      pricing: plan.pricing,
      photos_included: 0,
      warnings: [],
      dry_run: dryRun,
      sender_user_id: sender?.id ?? null,
      remote: null,
      result: null,
    }))
  )
    throw new ConflictError(SEND_IN_PROGRESS);
  plan.checkpoint('recorded');
  const charged = await chargeBatch(
    (await getEstimationSend(claim.id)) as EstimationSend,
    claim,
    team,
    credits,
    plan.checkpoint,
  );
  plan.checkpoint('charged');
  return deliverAndStamp(charged, owner, team, config, plan.checkpoint);
}

/**
 * Spends a recorded batch's credits under its reference and records what was
 * spent. Asking again for a batch already charged (a send being finished)
 * gets the service's first answer: no second charge. A flat refusal (402)
 * ends the attempt and moves the round on: nothing was spent, nothing is sent.
 */
async function chargeBatch(
  record: EstimationSend,
  claim: Claim,
  team: Team,
  credits: number,
  checkpoint: Checkpoint,
): Promise<EstimationSend> {
  if (record.dry_run || !record.reference) return record;
  const sender = record.sender_user_id ? await getUser(record.sender_user_id) : null;
  const count = record.item_count;
  let charge: Awaited<ReturnType<typeof chargeSend>>;
  try {
    charge = await chargeSend({
      team,
      user: sender,
      credits,
      reference: record.reference,
      description: `Estimation platform send: ${count} item${count === 1 ? '' : 's'} (claim ${claim.claim_number})`,
    });
  } catch (err) {
    // The ledger keeps a refused reference refused (and one reused for another amount answers 409, which a send
    // would take for an outage and go out uncharged): after a 402 the next attempt is a new round.
    const round = err instanceof InsufficientCreditsError ? record.round + 1 : record.round;
    await recordSendStep(
      claim.id,
      record.owner,
      { state: 'failed', round, remote: null, result: null },
      { release: true },
    );
    throw err;
  }
  checkpoint('spent');
  const lost = charge.charged && charge.unconfirmed ? charge : null;
  const fields = { credits: charge.credits, charge_unconfirmed: Boolean(lost), charge_spend: lost?.spend ?? null };
  await recordSendStep(claim.id, record.owner, fields);
  return { ...record, ...fields };
}

/**
 * The remote call of a recorded batch (skipped when its answer is already
 * recorded), then the stamps. A refusal records the failure (moving the round
 * on) with the refund it owes, asks for the refund and throws the mapped error.
 */
async function deliverAndStamp(
  record: EstimationSend,
  owner: string,
  team: Team,
  config: Settings,
  checkpoint: Checkpoint,
): Promise<SendResult> {
  const claim = await getClaim(record.claim_id, true);
  if (!claim) throw new NotFoundError('Claim not found');
  const batch = await loadRemoteBatch(record, claim, config);
  let remote = record.state === 'delivered' ? record.remote : null;
  if (!remote) {
    let call: RemoteCall;
    if (record.dry_run) {
      call = {
        ok: true,
        remote: {
          ...dryRunRemoteClaim(claim.id),
          created: !claim.estimation_claim_key,
          added: batch.items.length,
          skipped: 0,
        },
      };
    } else {
      const creator =
        (await getUser(claim.created_by_user_id)) ??
        (record.sender_user_id ? await getUser(record.sender_user_id) : null);
      call = await deliverToEstimationPlatform({
        client: createEstimationClient(config, team),
        claim,
        destination: record.destination ?? { mode: 'create' },
        items: batch.items,
        payload: (pricing) =>
          createPayload({
            claim,
            createdBy: { external_id: creator?.external_id ?? null, email: creator?.email ?? '' },
            pricing,
            items: batch.items,
          }),
        pricing: record.pricing ?? {},
      });
    }
    if (!call.ok) {
      await failSend(record, owner, team, checkpoint);
      throw call.error;
    }
    remote = call.remote;
    checkpoint('accepted');
    await recordSendStep(claim.id, owner, {
      state: 'delivered',
      remote,
      photos_included: batch.photosIncluded,
      warnings: batch.warnings,
    });
    checkpoint('delivered');
  }
  return stampSentItems({ ...record, remote }, owner, claim, batch);
}

/**
 * A refused batch: its failure (the round moved on, the lease released) and
 * the refund its charge owes are written together first, then the refund is
 * asked for (the billing sweep asks again until the service confirms it).
 * Not the other way round: a request cut off between a refund and the failure
 * write would leave the record 'sending' under the refunded reference, and
 * the next send would finish it there, the service answering the repeated
 * reference as the refunded spend: the items would go out free.
 */
async function failSend(record: EstimationSend, owner: string, team: Team, checkpoint: Checkpoint): Promise<void> {
  // A charge whose answer was lost owes its refund with the spend, which is asked for again (and so confirmed)
  // before anything is refunded: a refund asked first could meet a 404 for a spend landing a moment later.
  const refund =
    !record.dry_run && record.credits > 0 && record.reference
      ? { teamId: team.id, reference: record.reference, spend: record.charge_spend ?? undefined }
      : null;
  // Lost lease: the send is another process's now, which finishes (or fails) it; nothing is owed here.
  const failed = await recordSendFailure(record.claim_id, owner, record.round + 1, refund);
  if (failed && refund) await requestOwedSendRefund(team, { reference: refund.reference });
  checkpoint('failed');
}

async function stampSentItems(
  record: EstimationSend & { remote: RemoteOutcome },
  owner: string,
  claim: Claim,
  batch: { ids: string[]; photosIncluded: number; warnings: string[] },
): Promise<SendResult> {
  const now = new Date();
  const sentAt = now.toISOString();
  const limit = pLimit(ITEM_WRITES_AT_ONCE);
  await Promise.all(
    batch.ids.map((id) =>
      limit(async () => {
        const item = await getItem(id);
        if (item && !item.estimation_sent_at) await updateItemFields(id, { estimation_sent_at: sentAt }, { now });
      }),
    ),
  );
  const { remote } = record;
  if (claim.estimation_claim_key !== remote.claim_key || !claim.estimation_submitted_at) {
    const linked = await setEstimationLink(claim, remote, now);
    if (!linked)
      logger.error('estimation link not stored: the claim is gone or linked elsewhere', {
        claim_id: claim.id,
        claim_key: remote.claim_key,
      });
  }
  const result: SendResult = {
    claim_key: remote.claim_key,
    claim_id: remote.claim_id,
    created: remote.created,
    items_sent: batch.ids.length,
    item_ids: batch.ids,
    added: remote.added,
    skipped: remote.skipped,
    credits_charged: record.credits,
    photos_included: batch.photosIncluded,
    dry_run: record.dry_run,
    warnings: batch.warnings,
    sent_at: sentAt,
  };
  // The round never goes back: a batch whose reference was refunded in an earlier round and is sent after this
  // one must not meet that reference again (the service would answer with the refunded spend and charge nothing).
  const { item_ids, ...stored } = result;
  void item_ids; // the batch's rows hold them
  const done = await recordSendStep(
    claim.id,
    owner,
    { state: 'done', round: record.round, result: stored },
    { release: true },
  );
  // Only the writer of 'done' adds the spend, so a send finished twice adds it once.
  if (done && record.credits > 0) await addClaimSpend(claim.id, record.credits);
  if (done) await recordSend(claim.team_id, 'estimation_platform', now);
  logger.info('estimation send done', {
    claim_id: claim.id,
    claim_key: remote.claim_key,
    items: batch.ids.length,
    credits: record.credits,
    dry_run: record.dry_run,
  });
  return result;
}

/** Finishes a send a dead process left behind (see the module comment); null when it fails again (it is then refunded). */
export async function completeInterruptedSend(
  previous: EstimationSend,
  owner: string,
  team: Team,
  config: Settings,
  checkpoint: Checkpoint,
): Promise<SendResult | null> {
  logger.warn('finishing an interrupted estimation send', {
    claim_id: previous.claim_id,
    state: previous.state,
    reference: previous.reference,
  });
  try {
    let record: EstimationSend = { ...previous, owner };
    if (previous.state === 'sending') {
      const claim = await getClaim(previous.claim_id, true);
      if (!claim) throw new NotFoundError('Claim not found');
      const features = await teamFeatures(team.id);
      const credits = sendCredits({
        itemCount: previous.item_count,
        creditsPerItem: config.COST_PER_CONTENTS_ESTIMATION_ITEM,
        enterprise: features.enterprise,
        training: claim.is_training,
      });
      record = await chargeBatch(record, claim, team, credits, checkpoint);
    }
    return await deliverAndStamp(record, owner, team, config, checkpoint);
  } catch (err) {
    // Only a refusal (a mapped remote failure, a 402) is survivable here; anything else is the request's failure.
    if (!(err instanceof DomainError) || err instanceof InsufficientCreditsError) throw err;
    logger.warn('interrupted estimation send could not be finished; it was refunded', {
      claim_id: previous.claim_id,
      error: err instanceof Error ? err.message : String(err),
    });
    // deliverAndStamp released the lease on failure: take it back for the new request.
    const now = Date.now();
    const lease = await acquireSendLease(
      { id: previous.claim_id, team_id: previous.team_id },
      owner,
      now,
      now + requestLeaseMs(config),
    );
    if (lease.busy) throw new ConflictError(SEND_IN_PROGRESS);
    return null;
  }
}
