/**
 * The work of an estimation send's one stage (estimation-run-service.ts), run
 * by its request or, after the request died, by an engine worker: from where
 * the record says the send got, charge the recorded batch under its
 * reference, call the remote, record its answer, stamp the items and link the
 * claim. Every step is safe to run again: a repeated reference is answered
 * with the service's first answer (no second charge), a create is idempotent
 * on external_reference and an append per item (nothing added twice), a stamp
 * is written once. Each step is recorded only while the caller still holds
 * the send's stage.
 */
import pLimit from 'p-limit';
import { chargeSend } from '../billing/send-charge-service';
import { getClaim, setEstimationLink } from '../claims/store';
import type { Claim } from '../claims/claim-record-rules';
import type { Settings } from '../config';
import { NotFoundError } from '../errors';
import { faultPoint } from '../faults/fault-points';
import { getItem, updateItemFields } from '../inventory/item-store';
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { getUser } from '../users/store';
import { ITEM_WRITES_AT_ONCE, loadRemoteBatch } from './estimation-batch-payload-service';
import { createEstimationClient, deliverToEstimationPlatform, type RemoteCall } from './estimation-remote-service';
import { createPayload, dryRunRemoteClaim } from './estimation-rules';
import { type EstimationSend, type RemoteOutcome, recordSendStep, type StoredSendResult } from './estimation-store';

/** The send was taken from its holder (the watchdog ended it, or another worker runs it now): it stops here. */
class SendTakenOver extends Error {
  constructor(claimId: string) {
    super(`the estimation send of claim ${claimId} is no longer this runner's`);
  }
}

/** Records a step while the send's stage is still `send`'s holder's; stops the work when it is not. */
async function step(send: EstimationSend, fields: Parameters<typeof recordSendStep>[1]): Promise<EstimationSend> {
  const recorded = await recordSendStep(send, fields);
  if (!recorded) throw new SendTakenOver(send.claim_id);
  return recorded;
}

/**
 * Carries a recorded send to its end and answers what its closing write
 * records (the response, without its item ids). A refusal (a 402, a mapped
 * remote failure) is thrown as the domain error the request answers; the
 * caller fails the run with the refund it owes.
 */
export async function deliverEstimationSend(
  send: EstimationSend,
  config: Settings,
): Promise<{ result: StoredSendResult; itemIds: string[] }> {
  const team = await getTeam(send.team_id);
  if (!team) throw new NotFoundError('Claim not found');
  const claim = await getClaim(send.claim_id, true);
  if (!claim) throw new NotFoundError('Claim not found');
  let current = send;
  if (current.state === 'sending' && !current.credits) current = await chargeBatch(current, claim, team);
  faultPoint('estimation-send:charged', [claim.id]);
  const batch = await loadRemoteBatch(current, claim, config);
  let remote = current.state === 'delivered' ? current.remote : null;
  if (!remote) {
    const call = await callRemote(current, claim, team, batch, config);
    if (!call.ok) throw call.error;
    faultPoint('estimation-send:accepted', [claim.id]);
    current = await step(current, {
      state: 'delivered',
      remote: call.remote,
      photos_included: batch.photosIncluded,
      warnings: batch.warnings,
    });
    remote = call.remote;
    faultPoint('estimation-send:delivered', [claim.id]);
  }
  return { result: await stampSentItems(current, remote, claim, batch), itemIds: batch.ids };
}

/**
 * Spends a recorded batch's credits under its reference and records what was
 * spent. Asking again for a batch already charged (a send being finished)
 * gets the service's first answer: no second charge. A refusal (402) is
 * thrown: nothing was spent, nothing is sent.
 */
async function chargeBatch(send: EstimationSend, claim: Claim, team: Team): Promise<EstimationSend> {
  if (send.dry_run || !send.reference || send.planned_credits <= 0) return send;
  const sender = send.sender_user_id ? await getUser(send.sender_user_id) : null;
  const count = send.item_count;
  const charge = await chargeSend({
    team,
    user: sender,
    credits: send.planned_credits,
    reference: send.reference,
    description: `Estimation platform send: ${count} item${count === 1 ? '' : 's'} (claim ${claim.claim_number})`,
  });
  faultPoint('estimation-send:spent', [claim.id]);
  const lost = charge.charged && charge.unconfirmed ? charge : null;
  return step(send, {
    credits: charge.credits,
    charge_unconfirmed: Boolean(lost),
    charge_spend: lost?.spend ?? null,
  });
}

async function callRemote(
  send: EstimationSend,
  claim: Claim,
  team: Team,
  batch: Awaited<ReturnType<typeof loadRemoteBatch>>,
  config: Settings,
): Promise<RemoteCall> {
  if (send.dry_run)
    return {
      ok: true,
      remote: {
        ...dryRunRemoteClaim(claim.id),
        created: !claim.estimation_claim_key,
        added: batch.items.length,
        skipped: 0,
      },
    };
  const creator =
    (await getUser(claim.created_by_user_id)) ?? (send.sender_user_id ? await getUser(send.sender_user_id) : null);
  return deliverToEstimationPlatform({
    client: createEstimationClient(config, team),
    claim,
    destination: send.destination ?? { mode: 'create' },
    items: batch.items,
    payload: (pricing) =>
      createPayload({
        claim,
        createdBy: { external_id: creator?.external_id ?? null, email: creator?.email ?? '' },
        pricing,
        items: batch.items,
      }),
    pricing: send.pricing ?? {},
  });
}

/** Stamps the batch's items sent and links the claim; answers the send's response. */
async function stampSentItems(
  send: EstimationSend,
  remote: RemoteOutcome,
  claim: Claim,
  batch: { ids: string[] },
): Promise<StoredSendResult> {
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
  if (claim.estimation_claim_key !== remote.claim_key || !claim.estimation_submitted_at) {
    const linked = await setEstimationLink(claim, remote, now);
    if (!linked)
      logger.error('estimation link not stored: the claim is gone or linked elsewhere', {
        claim_id: claim.id,
        claim_key: remote.claim_key,
      });
  }
  return {
    claim_key: remote.claim_key,
    claim_id: remote.claim_id,
    created: remote.created,
    items_sent: batch.ids.length,
    added: remote.added,
    skipped: remote.skipped,
    credits_charged: send.credits,
    photos_included: send.photos_included,
    dry_run: send.dry_run,
    warnings: send.warnings ?? [],
    sent_at: sentAt,
  };
}
