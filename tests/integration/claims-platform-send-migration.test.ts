/**
 * The one-time migration of claims platform sends made by earlier releases
 * (lib/sends/claims-platform-migration-service.ts), over rows written in
 * their shapes: a refunded send whose reference a new send must not reuse; a
 * send still processing at the deploy from before sends were leased, which
 * the engine must then finish; and sends of the leased shape, from before
 * sends ran on the engine: one whose items were on their way is sent, one
 * whose request died is failed and given back by the stack's own watchdog.
 */
import { randomUUID } from 'node:crypto';
import { chargeSend, refundSend } from '../../lib/billing/send-charge-service';
import { sendKeys } from '../../lib/sends/keys';
import { ClaimsPlatformClient } from '../../lib/integrations/claims-platform';
import { getItem } from '../../lib/inventory/item-store';
import { chargeKeyRound, migrateClaimsPlatformSends } from '../../lib/sends/claims-platform-migration-service';
import { getClaimSend, getSubmission } from '../../lib/sends/submission-store';
import { submissionItemIds } from '../../lib/sends/submission-item-store';
import { getTeam } from '../../lib/teams/store';
import { eventually } from '../support/api';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { doc, setFields, table } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { claimsPlatform, claimsPlatformTeam } from '../support/sends';

jest.setTimeout(180_000);

type Team = Awaited<ReturnType<typeof claimsPlatformTeam>>;

const putLegacyRow = (item: Record<string, unknown>) => doc.send(new PutCommand({ TableName: table(), Item: item }));

/** A Submission as the earlier release wrote it: no stage or lease, its items in lists on the row. */
async function putLegacySubmission(
  t: Team,
  fields: { status: string; charge_key: string; item_ids: string[]; counted?: string[]; claim_key?: string | null },
) {
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  await putLegacyRow({
    ...sendKeys.submission(id),
    entity: 'Submission',
    gsi1pk: `CLAIM#${t.claimId}#SUBMISSIONS`,
    gsi1sk: `${createdAt}#${id}`,
    id,
    claim_id: t.claimId,
    team_id: t.identity.team.id,
    status: fields.status,
    charge_key: fields.charge_key,
    credits: fields.item_ids.length,
    item_ids: fields.item_ids,
    item_count: fields.item_ids.length,
    photo_count: 0,
    done_count: fields.counted?.length ?? 0,
    failed_count: 0,
    ...(fields.counted?.length ? { counted_item_ids: new Set(fields.counted) } : {}),
    failed_item_ids: [],
    claim_key: fields.claim_key ?? null,
    remote_claim_id: null,
    dry_run: false,
    error: fields.status === 'failed' ? 'The claims platform did not answer' : null,
    created_by_user_id: t.identity.user.id,
    created_at: createdAt,
    completed_at: null,
    processing_seconds: null,
  });
  return id;
}

/**
 * The migration takes every row of the earlier shape in the table, so a case's rows are written and migrated while
 * the other case's migration is not running, and each report counts that case's own rows. The rest of the cases
 * (a send, the wait for the sweep's schedule) runs side by side.
 */
let migrating: Promise<unknown> = Promise.resolve();
function alone<T>(step: () => Promise<T>): Promise<T> {
  const done = migrating.then(step);
  migrating = done.catch(() => undefined);
  return done;
}

const ledger = async (t: Team) =>
  (await fakeBilling.spends(t.member.current_team_id)).filter((s) => s.reference.startsWith(`as-send:${t.claimId}`));

it('reads the batch size and round of a charge key', () => {
  expect(chargeKeyRound('as-send:c1:0')).toEqual({ alreadySubmitted: '0', round: 1 });
  expect(chargeKeyRound('as-send:c1:12:r3')).toEqual({ alreadySubmitted: '12', round: 3 });
  expect(chargeKeyRound('something-else')).toBeNull();
});

it.concurrent("records a claim's charge rounds, so a send after a refunded one made before the deploy is charged again", async () => {
  const t = await claimsPlatformTeam(['Globe', 'Atlas']);
  const team = await getTeam(t.identity.team.id);
  if (!team) throw new Error('team not found');
  const reference = `as-send:${t.claimId}:0`;
  await alone(async () => {
    // Before the deploy: a send of these two items was charged, failed and refunded.
    await putLegacySubmission(t, { status: 'failed', charge_key: reference, item_ids: t.items.map((i) => i.id) });
    await chargeSend({ team, user: null, credits: 2, reference, description: 'legacy send' });
    await refundSend({ team, reference });

    expect((await migrateClaimsPlatformSends()).claims).toBeGreaterThanOrEqual(1);
  });
  expect((await getClaimSend(t.claimId)).rounds).toEqual({ 0: 1 });

  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBe(200);
  expect(res.body.charge_key ?? (await getSubmission(res.body.id))?.charge_key).toBe(`${reference}:r2`);
  await eventually(async () => (await getSubmission(res.body.id))?.status === 'complete', 60_000, 250);
  // The refunded spend stays refunded and the new send is paid for under its own reference.
  expect((await ledger(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([
    [reference, 2, 2],
    [`${reference}:r2`, 2, 0],
  ]);
});

it.concurrent('hands a send still processing at the deploy to the engine, which finishes it; a click meanwhile answers it', async () => {
  const t = await claimsPlatformTeam(['Globe', 'Atlas', 'Vase']);
  const [globe, atlas, vase] = t.items.map((i) => i.id);
  // The remote claim and room, as the earlier release's request left them before its items went out.
  const platform = new ClaimsPlatformClient({ baseUrl: claimsPlatform().origin, token: t.token });
  const remote = await platform.upsertClaim(t.claimId, { claim_number: 'LEGACY-1' });
  if (remote.outcome !== 'ok') throw new Error('claim upsert failed');
  const rooms = await platform.syncRooms(remote.body.claim_key, [{ external_id: t.roomId, name: 'Study' }]);
  if (rooms.outcome !== 'ok') throw new Error('room sync failed');
  // The atlas's upload is held, so the send is still going out when the adjuster clicks.
  const atlasUpload = `/items/${atlas}`;
  await claimsPlatform().hold(atlasUpload, 30_000);
  const legacyId = await alone(async () => {
    // The globe went out before the deploy; the atlas and the vase did not.
    const id = await putLegacySubmission(t, {
      status: 'processing',
      charge_key: `as-send:${t.claimId}:0`,
      item_ids: [globe, atlas, vase],
      counted: [globe],
      claim_key: remote.body.claim_key,
    });
    await setFields(`ITEM#${globe}`, 'ITEM', { claims_platform_submitted_at: new Date().toISOString() });

    const report = await migrateClaimsPlatformSends();
    expect(report.resumed).toBeGreaterThanOrEqual(1);
    // A row per item, the globe's counted already (its run sends the others from now on).
    expect((await submissionItemIds(id)).sort()).toEqual([globe, atlas, vase].sort());
    expect(await submissionItemIds(id, 'done')).toContain(globe);
    // A second run changes nothing it already did.
    expect((await migrateClaimsPlatformSends()).resumed).toBe(0);
    return id;
  });

  // A click while the send is going out answers it: nothing is charged again.
  await eventually(async () => (await claimsPlatform().requests({ match: `/items/${atlas}` })).length > 0, 30_000, 200);
  const click = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(click.status).toBe(200);
  expect(click.body.id).toBe(legacyId);
  await claimsPlatform().release(atlasUpload);

  // Its run's items stage, queued by the migration with its message, sends the rest.
  const done = await eventually(
    async () => {
      const s = await getSubmission(legacyId);
      return s?.status === 'complete' ? s : null;
    },
    150_000,
    1000,
  );
  expect(done).toMatchObject({ done_count: 3, failed_count: 0 });
  for (const id of [atlas, vase]) expect((await getItem(id))?.claims_platform_submitted_at).toEqual(expect.any(String));
  const [claim] = await claimsPlatform().claims(t.token);
  expect(claim.items.map((i) => i.external_id).sort()).toEqual([atlas, vase].sort());
  expect(await ledger(t)).toEqual([]);
});

/** A Submission as the release before the engine wrote it: a leased stage, its item rows, the claim's open send. */
async function putLeasedSubmission(
  t: Team,
  fields: { stage: 'charging' | 'sending'; charge_key: string; claim_key?: string | null },
) {
  const id = randomUUID();
  const createdAt = new Date(Date.now() - 10 * 60_000).toISOString();
  const itemIds = t.items.map((i) => i.id);
  await putLegacyRow({
    ...sendKeys.submission(id),
    entity: 'Submission',
    gsi1pk: `CLAIM#${t.claimId}#SUBMISSIONS`,
    gsi1sk: `${createdAt}#${id}`,
    activepk: 'SUBMISSIONS#OPEN',
    activesk: `${createdAt}#${id}`,
    id,
    claim_id: t.claimId,
    team_id: t.identity.team.id,
    status: 'processing',
    stage: fields.stage,
    lease_until: Date.parse(createdAt) + 60_000,
    resumes: 0,
    charge_key: fields.charge_key,
    credits: itemIds.length,
    item_count: itemIds.length,
    photo_count: 0,
    done_count: 0,
    failed_count: 0,
    claim_key: fields.claim_key ?? null,
    remote_claim_id: null,
    dry_run: false,
    error: null,
    created_by_user_id: t.identity.user.id,
    created_at: createdAt,
    completed_at: null,
    processing_seconds: null,
  });
  for (const itemId of itemIds)
    await putLegacyRow({
      ...sendKeys.submissionItem(id, itemId),
      entity: 'SubmissionItem',
      item_id: itemId,
      state: 'pending',
    });
  await putLegacyRow({
    ...sendKeys.claimSend(t.claimId),
    entity: 'ClaimSend',
    claim_id: t.claimId,
    submission_id: id,
    round_0: 1,
  });
  return id;
}

it.concurrent('gives sends of the leased shape their run: one whose items were on their way is sent, one whose request died is failed and refunded by the watchdog', async () => {
  const sending = await claimsPlatformTeam(['Globe', 'Atlas']);
  const charging = await claimsPlatformTeam(['Vase']);
  const platform = new ClaimsPlatformClient({ baseUrl: claimsPlatform().origin, token: sending.token });
  const remote = await platform.upsertClaim(sending.claimId, { claim_number: 'LEASED-1' });
  if (remote.outcome !== 'ok') throw new Error('claim upsert failed');
  await platform.syncRooms(remote.body.claim_key, [{ external_id: sending.roomId, name: 'Study' }]);
  const chargeKey = `as-send:${charging.claimId}:0`;
  const team = await getTeam(charging.identity.team.id);
  if (!team) throw new Error('team not found');
  const [sendingId, chargingId] = await alone(async () => {
    const ids = [
      await putLeasedSubmission(sending, {
        stage: 'sending',
        charge_key: `as-send:${sending.claimId}:0`,
        claim_key: remote.body.claim_key,
      }),
      await putLeasedSubmission(charging, { stage: 'charging', charge_key: chargeKey }),
    ];
    // The dead request's charge did land before the deploy.
    await chargeSend({ team, user: null, credits: 1, reference: chargeKey, description: 'leased send' });
    expect((await migrateClaimsPlatformSends()).resumed).toBeGreaterThanOrEqual(2);
    return ids;
  });
  expect(await getSubmission(sendingId)).toMatchObject({
    run_id: expect.any(String),
    pipeline: 'claims-platform-send',
  });

  // Its items stage was queued with its message: the items go out.
  const sent = await eventually(
    async () => {
      const s = await getSubmission(sendingId);
      return s?.status === 'complete' ? s : null;
    },
    60_000,
    500,
  );
  expect(sent).toMatchObject({ done_count: 2, failed_count: 0 });
  const [claim] = await claimsPlatform().claims(sending.token);
  expect(claim.items).toHaveLength(2);

  // The request that died in charging: the stack's watchdog fails it on its next tick and gives the charge back.
  const failed = await eventually(
    async () => {
      const s = await getSubmission(chargingId);
      return s?.status === 'failed' ? s : null;
    },
    150_000,
    1000,
  );
  expect(failed).toMatchObject({ request_step: null, stage_state: 'done' });
  const spends = await eventually(
    async () => {
      const all = (await ledger(charging)).filter((s) => s.reference === chargeKey);
      return all.length === 1 && all[0].refunded === 1 ? all : null;
    },
    60_000,
    1000,
  );
  expect(spends).toHaveLength(1);
});
