/**
 * The estimation send against the embedded stack and the run's fakes: a
 * request ended at each of its named fault points (through the real route,
 * as a crash would end it) and left to the stack's watchdog (every 15 s in
 * the test stack) once time has made it a dead request (its lease on the
 * send's run ran out, no heartbeat since), which has a worker carry the send
 * on under the same reference; a worker that dies too, which the watchdog
 * then fails and refunds; a refused send whose request died after its
 * failure was recorded, refunded by the billing sweep; a send slower than its
 * request (billing and the platform slow), handed to the workers at once.
 * Then, in-process, what
 * HTTP cannot reach: a training claim's dry run, the enterprise exemption and
 * deployments without PUBLIC_BASE_URL or the platform's address.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getOwedSendRefund } from '../../lib/billing/send-refund-store';
import { settings } from '../../lib/config';
import { sendKeys } from '../../lib/sends/keys';
import { featureKeys } from '../../lib/features/keys';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { SPEND_PATH } from '../../lib/integrations/billing-contract';
import { PHOTOS_NOT_SENT } from '../../lib/sends/estimation-batch-payload-service';
import { SEND_INTERRUPTED } from '../../lib/sends/estimation-run-service';
import { SEND_CONTINUES, submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { type EstimationSend, getEstimationSend } from '../../lib/sends/estimation-store';
import { findTeamByExternalId } from '../../lib/teams/store';
import { eventually } from '../support/api';
import { doc, getRow, setFields, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import {
  addItem,
  expireEstimationSendLease,
  fake,
  identityOfMember,
  type SendTeam,
  sendTeam,
  spendsOf,
  submit,
} from '../support/sends';

jest.setTimeout(180_000);

const identityFor = (t: SendTeam) => identityOfMember(t.member);

const unsentCount = async (t: SendTeam) =>
  (await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`)).body.unsent_item_count;

/** What the team has paid for its sends on the ledger: every spend less what it has had back. */
const netPaid = async (t: SendTeam) => (await spendsOf(t)).reduce((sum, s) => sum + s.amount - s.refunded, 0);

const ledger = async (t: SendTeam) => (await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded]);

/** The send's request through the real route, ended at `point`: the invocation fails (5xx) and the point tripped. */
async function sendEndedAt(t: SendTeam, point: FaultPointName) {
  armFaultPoint(point, t.claimId);
  const res = await submit(t);
  expect(res.status).toBeGreaterThanOrEqual(500);
  expect(faultPointTripped(point, t.claimId)).toBe(true);
}

/** The claim's send once it has ended (done or failed), waited for over the watchdog's next ticks. */
const sendEnded = (t: SendTeam) =>
  eventually(
    async () => {
      const s = await getEstimationSend(t.claimId);
      return s && s.status !== 'processing' ? s : null;
    },
    150_000,
    500,
  ) as Promise<EstimationSend>;

describe.each([
  ['estimation-send:recorded', 'sending'],
  ['estimation-send:spent', 'sending'],
  ['estimation-send:charged', 'sending'],
  ['estimation-send:delivered', 'delivered'],
] as const)('a send whose request is ended at %s', (point, state) => {
  it.concurrent('stays under way, then a worker carries it on for the watchdog: one charge, each item added once, every item stamped', async () => {
    const t = await sendTeam();
    await sendEndedAt(t, point);
    expect(await getEstimationSend(t.claimId)).toMatchObject({ status: 'processing', state, stage_state: 'running' });
    expect(await unsentCount(t)).toBe(2);
    if (point === 'estimation-send:charged') {
      // While the dead request's lease lasts, another click waits for its send and then gives up: never two at once.
      const again = await submit(t);
      expect(again.status).toBe(409);
      expect(again.body.detail).toMatch(/already in progress/);
    }

    await expireEstimationSendLease(t.claimId);
    expect(await sendEnded(t)).toMatchObject({ status: 'done', state: 'done', recovery_attempts: 1 });
    expect(await unsentCount(t)).toBe(0);
    const [remote] = await fake().claims(t.key);
    expect(remote.items).toHaveLength(2);
    // The platform was asked once: by the request when it died after the platform's answer, else by the worker.
    expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
    expect(await ledger(t)).toEqual([[`ce-send:${t.claimId}`, 2, 0]]);
    const claim = await t.client.get(`/api/claims/${t.claimId}`);
    expect(claim.body.estimation_claim_key).toBe(remote.claim_key);
    expect(claim.body.spend_usd).toBe(2);
    // Off the open index: the watchdog does not look at it again.
    const key = sendKeys.estimationSend(t.claimId);
    expect((await getRow(key.pk, key.sk))?.activepk).toBeUndefined();
  });
});

it.concurrent('a send whose worker dies too is failed by the watchdog and given back whole; the next send pays once', async () => {
  const t = await sendTeam();
  await sendEndedAt(t, 'estimation-send:charged');
  // The worker that carries it on dies at the same point: the send's second interruption.
  armFaultPoint('estimation-send:charged', t.claimId);
  await expireEstimationSendLease(t.claimId);
  await eventually(async () => faultPointTripped('estimation-send:charged', t.claimId), 150_000, 500);
  await expireEstimationSendLease(t.claimId);
  expect(await sendEnded(t)).toMatchObject({ status: 'failed', state: 'failed', error: SEND_INTERRUPTED, round: 2 });
  expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toEqual([]);
  // The refund was owed with the failure and asked for at once (or by the billing sweep).
  await eventually(async () => (await getOwedSendRefund(`ce-send:${t.claimId}`)) === null, 60_000, 500);
  expect(await ledger(t)).toEqual([[`ce-send:${t.claimId}`, 2, 2]]);

  const sent = await submit(t);
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ items_sent: 2, credits_charged: 2 });
  expect(await ledger(t)).toEqual([
    [`ce-send:${t.claimId}`, 2, 2],
    [`ce-send:${t.claimId}:r2`, 2, 0],
  ]);
});

it.concurrent('a refused send whose request is ended right after its failure and owed refund were recorded is refunded by the billing sweep, and charged again when sent again', async () => {
  const t = await sendTeam();
  await fake().failNext('422', { key: t.key, match: 'POST /intake/contents-inventory' });
  await sendEndedAt(t, 'estimation-send:failed');
  expect(await getEstimationSend(t.claimId)).toMatchObject({ status: 'failed', state: 'failed', round: 2 });
  // The billing sweep, on its schedule, asks for the refund the dead request never asked for.
  await eventually(async () => (await netPaid(t)) === 0, 90_000, 500);

  const sent = await submit(t);
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ items_sent: 2, credits_charged: 2 });
  expect(await unsentCount(t)).toBe(0);
  const [remote] = await fake().claims(t.key);
  expect(remote.items).toHaveLength(2);
  // The two items delivered are paid for once; the refused attempt costs nothing.
  expect(await netPaid(t)).toBe(2);
  expect(await ledger(t)).toEqual([
    [`ce-send:${t.claimId}`, 2, 2],
    [`ce-send:${t.claimId}:r2`, 2, 0],
  ]);
});

it.concurrent('a refused send whose charge answer was lost, the spend landing after the send failed, nets to nothing', async () => {
  const t = await sendTeam();
  const team = t.member.current_team_id;
  // Every attempt of the charge goes unanswered; the spend lands well after the client gave up and the send failed.
  await fakeBilling.failNext('late', 3, team, SPEND_PATH, { delayMs: 20_000 });
  await fake().failNext('422', { key: t.key, match: 'POST /intake/contents-inventory' });
  const refused = await submit(t);
  expect(refused.status).toBe(422);
  await fakeBilling.lateApplied(team);
  // The billing sweep, on its schedule, settles what is still owed under the send's reference.
  const reference = `ce-send:${t.claimId}`;
  await eventually(async () => (await getOwedSendRefund(reference)) === null, 90_000, 500);

  expect((await spendsOf(t)).map((s) => [s.reference, s.amount])).toEqual([[reference, 2]]);
  expect(await netPaid(t)).toBe(0);
});

it.concurrent('a send that outlasts its request is handed to the workers at once: 503 with Retry-After, then one charge, each item added once', async () => {
  const t = await sendTeam();
  const team = t.member.current_team_id;
  const profiles = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-profiles`);
  const schedule = profiles.body.schedules.find((s: any) => s.shopping_profiles.length > 0);
  // Slow at every step, each within its own limits: the charge's answer is lost at every attempt (the billing
  // client gives up after its 15 s and the send goes on), then the platform takes 7 s for the catalog (a schedule
  // chosen without its profile) and 7 s for the create, each under the client's 8 s a call: more than the request has.
  await fakeBilling.failNext('late', 3, team, SPEND_PATH, { delayMs: 17_000 });
  const slow = [`${t.key} GET /intake/catalog`, `${t.key} POST /intake/contents-inventory`];
  for (const match of slow) await fake().hold(match, 7_000);
  const res = await submit(t, { depreciation_schedule_id: schedule.id });
  expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 503, detail: SEND_CONTINUES });
  expect(res.headers.get('retry-after')).toBe('10');
  // Handed over, not failed or left to wait out the request's lease: still under way, on a worker.
  const handed = await getEstimationSend(t.claimId);
  expect(handed).toMatchObject({ status: 'processing', recovery_attempts: 0 });
  for (const match of slow) await fake().release(match);

  // A worker carries the send on from its record: the spend recorded unconfirmed is not asked again.
  expect(await sendEnded(t)).toMatchObject({ status: 'done', state: 'done', recovery_attempts: 0 });
  expect(await unsentCount(t)).toBe(0);
  const [remote] = await fake().claims(t.key);
  expect(remote.items).toHaveLength(2);
  await fakeBilling.lateApplied(team);
  expect(await ledger(t)).toEqual([[`ce-send:${t.claimId}`, 2, 0]]);
  const claim = await t.client.get(`/api/claims/${t.claimId}`);
  expect(claim.body.estimation_claim_key).toBe(remote.claim_key);
});

it.concurrent('a send refused for credits (402) leaves its reference behind: the next one, with an item added, is charged for all it sends', async () => {
  const t = await sendTeam([['Sofa'], ['Lamp']], 1);
  const identity = await identityFor(t);
  await expect(submitToEstimationPlatform(identity, t.claimId, {})).rejects.toMatchObject({
    code: 'insufficient_credits',
  });
  expect(await fake().requests({ key: t.key })).toEqual([]);

  // The team buys credits and the adjuster adds an item; the ledger keeps the refused reference refused.
  await fakeBilling.setBalance(t.member.current_team_id, 100);
  await addItem(t, 'Rug');
  const sent = await submitToEstimationPlatform(identity, t.claimId, {});
  expect(sent).toMatchObject({ items_sent: 3, credits_charged: 3 });
  expect(await unsentCount(t)).toBe(0);
  expect(await netPaid(t)).toBe(3);
});

it.concurrent('a training claim is a dry run: no remote call, no charge, a stand-in key, and it never locks', async () => {
  const t = await sendTeam();
  await setFields(`CLAIM#${t.claimId}`, 'CLAIM', { is_training: true });
  const result = await submitToEstimationPlatform(await identityFor(t), t.claimId, {});
  expect(result).toMatchObject({ dry_run: true, credits_charged: 0, items_sent: 2, deep_link: null });
  expect(result.claim_key).toMatch(/^TRAINING-/);
  expect(await fake().requests({ key: t.key })).toEqual([]);
  expect(await spendsOf(t)).toEqual([]);
  const claim = await t.client.get(`/api/claims/${t.claimId}`);
  expect(claim.body).toMatchObject({ estimation_claim_key: result.claim_key, items_locked: false });
  expect((await t.client.put(`/api/inventory/item/${t.items[0].id}`, { name: 'Still editable' })).status).toBe(200);
});

it.concurrent('an enterprise team is not charged, and its quote says so', async () => {
  const t = await sendTeam();
  const team = await findTeamByExternalId(t.member.current_team_id);
  await doc.send(
    new PutCommand({
      TableName: table(),
      Item: { ...featureKeys.components(team!.id), visible: { enterprise: true } },
    }),
  );
  const quote = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-quote`);
  expect(quote.body).toMatchObject({
    enterprise: true,
    credit_cost_per_item: 0,
    total_credits: 0,
    unsent_item_count: 2,
  });
  const result = await submitToEstimationPlatform(await identityFor(t), t.claimId, {});
  expect(result).toMatchObject({ credits_charged: 0, items_sent: 2, dry_run: false });
  expect(await spendsOf(t)).toEqual([]);
});

it.concurrent('without PUBLIC_BASE_URL photos are left out, the send succeeds and says why', async () => {
  const t = await sendTeam(undefined, undefined, { photos: true });
  const config = { ...settings(), PUBLIC_BASE_URL: '' };
  const result = await submitToEstimationPlatform(await identityFor(t), t.claimId, {}, { config });
  expect(result).toMatchObject({ photos_included: 0, items_sent: 2, warnings: [PHOTOS_NOT_SENT] });
  const [create] = await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' });
  expect((create.body as any).items.every((i: any) => i.photos === undefined && i.image_url === undefined)).toBe(true);
});

it.concurrent('without ESTIMATION_PLATFORM_BASE_URL a send is refused with 409 before any network call', async () => {
  const t = await sendTeam();
  const config = { ...settings(), ESTIMATION_PLATFORM_BASE_URL: '' };
  await expect(submitToEstimationPlatform(await identityFor(t), t.claimId, {}, { config })).rejects.toMatchObject({
    code: 'conflict',
    message: expect.stringMatching(/not configured/),
  });
  expect(await fake().requests({ key: t.key })).toEqual([]);
});
