/**
 * The one-time migration of estimation sends made before sends ran on the
 * engine (lib/sends/estimation-migration-service.ts), over rows written in
 * that release's shape: a send still 'sending' whose request died (its lease
 * run out) is carried on by the stack's own watchdog and a worker, charged
 * once; one whose old lease still holds is left for a later run; a send that
 * ended is left as it is, and the claim's next send opens over it.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendKeys } from '../../lib/sends/keys';
import { migrateEstimationSends } from '../../lib/sends/estimation-migration-service';
import { getEstimationSend } from '../../lib/sends/estimation-store';
import { eventually } from '../support/api';
import { doc, getRow, table } from '../support/aws';
import { fake, identityOfMember, type SendTeam, sendTeam, spendsOf, submit } from '../support/sends';

jest.setTimeout(180_000);

/** A claim's send row as the release before the engine wrote it: a lease (owner, lease_until), no run or status. */
async function putLegacySend(t: SendTeam, fields: { state: string; leaseUntil: number; round?: number }) {
  const identity = await identityOfMember(t.member);
  const batchId = randomUUID();
  const ids = t.items.map((i) => i.id);
  for (const itemId of ids)
    await doc.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...sendKeys.estimationSendItem(t.claimId, batchId, itemId),
          entity: 'EstimationSendItem',
          item_id: itemId,
        },
      }),
    );
  const open = fields.state === 'sending' || fields.state === 'delivered';
  const at = new Date().toISOString();
  await doc.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...sendKeys.estimationSend(t.claimId),
        entity: 'EstimationSend',
        claim_id: t.claimId,
        team_id: identity.team.id,
        owner: randomUUID(),
        lease_until: fields.leaseUntil,
        state: fields.state,
        round: fields.round ?? 1,
        reference: `ce-send:${t.claimId}`,
        credits: 0,
        charge_unconfirmed: false,
        charge_spend: null,
        batch_id: batchId,
        item_count: ids.length,
        destination: { mode: 'create' },
        pricing: {},
        photos_included: 0,
        warnings: [],
        dry_run: false,
        sender_user_id: identity.user.id,
        remote: null,
        result: null,
        updated_at: at,
        ...(open ? { activepk: 'ESTSENDS#OPEN', activesk: `${at}#${t.claimId}` } : {}),
      },
    }),
  );
}

it('gives a send of before the engine its run: the watchdog has a worker finish it, charged once; a send still leased waits; an ended one is left alone', async () => {
  const [dead, leased, ended] = await Promise.all([sendTeam(), sendTeam(), sendTeam()]);
  await putLegacySend(dead, { state: 'sending', leaseUntil: Date.now() - 60_000 });
  await putLegacySend(leased, { state: 'sending', leaseUntil: Date.now() + 10 * 60_000 });
  // That release moved a failed send's charge round on with its failure.
  await putLegacySend(ended, { state: 'failed', leaseUntil: 0, round: 2 });

  const report = await migrateEstimationSends();
  expect(report.resumed).toBeGreaterThanOrEqual(1);
  expect(report.waiting).toBeGreaterThanOrEqual(1);
  expect(await getEstimationSend(dead.claimId)).toMatchObject({
    status: 'processing',
    state: 'sending',
    planned_credits: 2,
    stage_name: 'send',
  });
  // Read as the release left it: the leased one under way (a click waits for it), the ended one failed.
  expect(await getEstimationSend(leased.claimId)).toMatchObject({ status: 'processing', state: 'sending' });
  expect((await getRow(`ESTSEND#${leased.claimId}`, 'SEND'))?.run_id).toBeUndefined();
  expect(await getEstimationSend(ended.claimId)).toMatchObject({ status: 'failed', state: 'failed' });

  // The stack's watchdog finds the migrated stage without a worker and has one carry the send on.
  const done = await eventually(
    async () => {
      const s = await getEstimationSend(dead.claimId);
      return s?.status === 'done' ? s : null;
    },
    150_000,
    500,
  );
  expect(done).toMatchObject({ state: 'done', credits: 2 });
  const [remote] = await fake().claims(dead.key);
  expect(remote.items).toHaveLength(2);
  expect((await spendsOf(dead)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([
    [`ce-send:${dead.claimId}`, 2, 0],
  ]);
  expect((await dead.client.get(`/api/claims/${dead.claimId}`)).body.estimation_claim_key).toBe(remote.claim_key);

  // A claim whose last send ended before the engine sends again over its row, under the next round.
  const again = await submit(ended);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ items_sent: 2, credits_charged: 2 });
  expect((await spendsOf(ended)).map((s) => s.reference)).toEqual([`ce-send:${ended.claimId}:r2`]);
});
