/**
 * The estimation send in-process against the embedded stack and the run's
 * fakes, for what HTTP cannot reach: a process that dies between the steps
 * (record, charge, remote call, stamps), a training claim's dry run, the
 * enterprise exemption and a deployment without PUBLIC_BASE_URL.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getOwedSendRefund } from '../../lib/billing/send-refund-store';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { settings } from '../../lib/config';
import { keys } from '../../lib/db/keys';
import { SPEND_PATH } from '../../lib/integrations/billing-contract';
import { PHOTOS_NOT_SENT } from '../../lib/sends/estimation-batch-payload-service';
import { submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { getEstimationSend } from '../../lib/sends/estimation-store';
import { sweepInterruptedEstimationSends } from '../../lib/sends/estimation-sweep-service';
import { findTeamByExternalId } from '../../lib/teams/store';
import { doc, getRow, setFields, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { addItem, fake, identityOfMember, type SendTeam, sendTeam, spendsOf } from '../support/sends';
import { dieAt, ProcessDied } from '../support/process-death';

jest.setTimeout(120_000);

const identityFor = (t: SendTeam) => identityOfMember(t.member);

/** What a dead process leaves: its lease, until it expires (here: at once). */
const expireLease = (claimId: string) => {
  const key = keys.estimationSend(claimId);
  return setFields(key.pk, key.sk, { lease_until: 0 });
};

const unsentCount = async (t: SendTeam) =>
  (await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`)).body.unsent_item_count;

// Each case has a claim and a team of its own, and most of their time is waiting (a lost charge answer's
// retries, a held lease), so they run side by side; only the send sweep, which takes every open send, runs
// after them, one case at a time.
it.concurrent.each(['recorded', 'charged', 'delivered'])(
  'a send whose process dies after %s is finished by the next send: one charge, each item added once, every item stamped',
  async (step) => {
    const t = await sendTeam();
    const identity = await identityFor(t);
    await expect(submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: dieAt(step) })).rejects.toThrow(
      ProcessDied,
    );
    expect((await getEstimationSend(t.claimId))?.state).toBe(step === 'delivered' ? 'delivered' : 'sending');
    expect(await unsentCount(t)).toBe(2);

    // While the dead process's lease lasts, another send waits and then gives up: never two at once.
    await expireLease(t.claimId);
    const finished = await submitToEstimationPlatform(identity, t.claimId, {});
    expect(finished).toMatchObject({ items_sent: 2, credits_charged: 2 });
    expect(await unsentCount(t)).toBe(0);
    const [remote] = await fake().claims(t.key);
    expect(remote.items).toHaveLength(2);
    expect((await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([
      [`ce-send:${t.claimId}`, 2, 0],
    ]);
    const claim = await t.client.get(`/api/claims/${t.claimId}`);
    expect(claim.body.estimation_claim_key).toBe(remote.claim_key);
    expect(claim.body.spend_usd).toBeGreaterThanOrEqual(2);
  },
);

describe.each(['recorded', 'charged', 'delivered'])(
  'a send whose process dies after %s, with no later send',
  (step) => {
    it('is finished by the send sweep once its lease has run out: one charge, each item added once, every item stamped', async () => {
      const t = await sendTeam();
      const identity = await identityFor(t);
      await expect(submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: dieAt(step) })).rejects.toThrow(
        ProcessDied,
      );
      // While its lease lasts, the sweep leaves it alone.
      await sweepInterruptedEstimationSends();
      expect((await getEstimationSend(t.claimId))?.state).not.toBe('done');

      await expireLease(t.claimId);
      await sweepInterruptedEstimationSends();
      const record = await getEstimationSend(t.claimId);
      expect(record).toMatchObject({ state: 'done', lease_until: 0 });
      expect(await unsentCount(t)).toBe(0);
      const [remote] = await fake().claims(t.key);
      expect(remote.items).toHaveLength(2);
      expect((await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([
        [`ce-send:${t.claimId}`, 2, 0],
      ]);
      // Off the open index: the next sweep does not look at it again.
      const key = keys.estimationSend(t.claimId);
      expect((await getRow(key.pk, key.sk))?.activepk).toBeUndefined();
    });
  },
);

/** What the team has paid for its sends on the ledger: every spend less what it has had back. */
const netPaid = async (t: SendTeam) => (await spendsOf(t)).reduce((sum, s) => sum + s.amount - s.refunded, 0);

it.concurrent('a refused send whose request dies right after its refund was asked is charged again when it is sent again', async () => {
  const t = await sendTeam();
  const identity = await identityFor(t);
  await fake().failNext('422', { key: t.key, match: 'POST /intake/contents-inventory' });
  await expect(submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: dieAt('failed') })).rejects.toThrow(
    ProcessDied,
  );
  expect(await netPaid(t)).toBe(0);

  // The platform is back and the adjuster sends again once the dead request's lease has run out.
  await expireLease(t.claimId);
  const sent = await submitToEstimationPlatform(identity, t.claimId, {});
  expect(sent).toMatchObject({ items_sent: 2, credits_charged: 2 });
  expect(await unsentCount(t)).toBe(0);
  const [remote] = await fake().claims(t.key);
  expect(remote.items).toHaveLength(2);
  // The two items delivered are paid for once; the refused attempt costs nothing.
  expect(await netPaid(t)).toBe(2);
  expect((await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([
    [`ce-send:${t.claimId}`, 2, 2],
    [`ce-send:${t.claimId}:r2`, 2, 0],
  ]);
});

it.concurrent('a refused send whose charge answer was lost, the spend landing after the send failed, nets to nothing', async () => {
  const t = await sendTeam();
  const identity = await identityFor(t);
  const team = t.member.current_team_id;
  // Every attempt of the charge goes unanswered; the spend lands well after the client gave up and the send failed.
  await fakeBilling.failNext('late', 3, team, SPEND_PATH, { delayMs: 20_000 });
  await fake().failNext('422', { key: t.key, match: 'POST /intake/contents-inventory' });
  await expect(submitToEstimationPlatform(identity, t.claimId, {})).rejects.toMatchObject({ code: 'unprocessable' });
  await fakeBilling.lateApplied(team);
  // The billing sweep's part for whatever is still owed under the send's reference.
  const reference = `ce-send:${t.claimId}`;
  await settlePendingEntry({ kind: 'send-refund', reference });

  expect((await spendsOf(t)).map((s) => [s.reference, s.amount])).toEqual([[reference, 2]]);
  expect(await netPaid(t)).toBe(0);
  expect(await getOwedSendRefund(reference)).toBeNull();
}, 90_000);

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

it.concurrent('a send still holding its lease makes another one wait, then refuses it with 409', async () => {
  const t = await sendTeam();
  const identity = await identityFor(t);
  await expect(submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: dieAt('charged') })).rejects.toThrow(
    ProcessDied,
  );
  await expect(submitToEstimationPlatform(identity, t.claimId, {})).rejects.toMatchObject({
    code: 'conflict',
    message: expect.stringMatching(/already in progress/),
  });
  await expireLease(t.claimId);
  await expect(submitToEstimationPlatform(identity, t.claimId, {})).resolves.toMatchObject({ items_sent: 2 });
}, 60_000);

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
    new PutCommand({ TableName: table(), Item: { ...keys.components(team!.id), visible: { enterprise: true } } }),
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
