/**
 * The estimation platform send over HTTP, against the run's fake estimation
 * platform (tests/fakes/estimation-platform-server.ts) and fake billing
 * service: destination rule, payload and item mapping, charges, the error
 * mapping, the freeze and its admin unlock, and exactly-once under repeats.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '../support/api';
import { invokeFunction } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { jobWithItems } from '../support/inventory';
import { NOTHING_NEW } from '../../lib/sends/estimation-rules';
import { addItem, fake, PUBLIC_BASE_URL, sendTeam, spendsOf, submit } from '../support/sends';
import { TEST_ADMIN_EXTERNAL_IDS } from '../support/service-env';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';

// Every case has a team, claim and estimation platform key of its own, and the fakes' failures are scoped to that key
// or team, so the cases of each block run side by side.
describe('submit-to-estimation-platform', () => {
  it.concurrent('creates the remote claim with the mapped payload, charges per item and stamps the items', async () => {
    const t = await sendTeam(undefined, undefined, { photos: true });
    const quote = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-quote`);
    expect(quote.body).toEqual({
      unsent_item_count: 2,
      credit_cost_per_item: 1,
      total_credits: 2,
      enterprise: false,
      training: false,
    });
    const res = await submit(t);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: true, items_sent: 2, credits_charged: 2, dry_run: false, warnings: [] });
    expect(res.body.photos_included).toBeGreaterThanOrEqual(2);
    expect(res.body.deep_link).toBe(`https://estimation.example.test/claims/${res.body.claim_id}`);

    const [remote] = await fake().claims(t.key);
    expect(remote.claim_key).toBe(res.body.claim_key);
    const [create]: any[] = await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' });
    expect(create.body).toMatchObject({
      external_reference: t.claimId,
      peril: 'water',
      coverage_type: 'rcv',
      claim_type: 'residential',
      metadata: { source_claim_number: expect.any(String), adjuster_name: 'Ada Adjuster' },
      loss_address: { zip: '90210' },
      policyholder: { name: 'Pat Insured' },
      created_by: { email: t.member.email },
    });
    // A legacy integer user id never travels as user_id; blanks are omitted, never null.
    expect(create.body.created_by.user_id).toBeUndefined();
    expect(JSON.stringify(create.body)).not.toContain('null');
    const sofa = create.body.items.find((i: any) => i.title === 'Sofa');
    const sofaItem = t.items.find((i) => i.name === 'Sofa');
    expect(sofa).toMatchObject({ external_id: sofaItem.id, quantity: 1, room: 'Living Room' });
    expect(sofa.photos[0]).toEqual({ url: expect.stringMatching(`^${PUBLIC_BASE_URL}/api/photos/`), kind: 'primary' });
    expect(sofa.image_url).toBe(sofa.photos[0].url);

    expect((await spendsOf(t)).map((s: any) => [s.reference, s.amount])).toEqual([[`ce-send:${t.claimId}`, 2]]);
    const claim = await t.client.get(`/api/claims/${t.claimId}`);
    expect(claim.body).toMatchObject({
      estimation_claim_key: res.body.claim_key,
      estimation_claim_id: res.body.claim_id,
      items_locked: true,
    });
    expect(claim.body.estimation_submitted_at).toEqual(expect.any(String));
    const listed = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`);
    expect(listed.body.unsent_item_count).toBe(0);
    expect(listed.body.items.every((i: any) => i.sent && i.estimation_sent_at)).toBe(true);
  });

  it.concurrent('appends only new items on a later send, charges them under ce-add, and refuses a send with nothing new', async () => {
    const t = await sendTeam();
    expect((await submit(t)).status).toBe(200);
    expect((await submit(t)).status).toBe(400);
    const newId = await addItem(t, 'Bookcase');
    const second = await submit(t, { target_claim_key: 'IGNORED-ONCE-LINKED' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ created: false, items_sent: 1, item_ids: [newId], added: 1, skipped: 0 });
    const appends: any[] = await fake().requests({ key: t.key, match: '/items' });
    expect(appends).toHaveLength(1);
    expect(appends[0].body.items.map((i: any) => i.external_id)).toEqual([newId]);
    const [remote] = await fake().claims(t.key);
    expect(remote.items).toHaveLength(3);
    const refs = (await spendsOf(t)).map((s: any) => s.reference);
    expect(refs).toEqual([
      `ce-send:${t.claimId}`,
      expect.stringMatching(new RegExp(`^ce-add:${t.claimId}:[0-9a-f]{32}$`)),
    ]);
    const nothing = await submit(t);
    expect(nothing.status).toBe(400);
    expect(nothing.body.detail).toMatch(/Nothing new to send/);
  });

  it.concurrent('sends only the unsent items among those ticked', async () => {
    const t = await sendTeam([['Sofa'], ['Lamp'], ['Rug']]);
    const [sofa, lamp] = t.items;
    const first = await submit(t, { item_ids: [sofa.id] });
    expect(first.body.item_ids).toEqual([sofa.id]);
    const second = await submit(t, { item_ids: [sofa.id, lamp.id] });
    expect(second.body.item_ids).toEqual([lamp.id]);
    expect((await submit(t, { item_ids: [sofa.id, lamp.id] })).status).toBe(400);
  });

  it.concurrent('appends to a named target claim when not linked, and stores the link', async () => {
    const t = await sendTeam();
    const seeded = await fake().seedClaim(t.key, { claim_number: 'EST-77', policyholder_name: 'Pat Insured' });
    const picker = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-claims?q=est-77`);
    expect(picker.body).toEqual({
      available: true,
      claims: [
        { claim_number: 'EST-77', policyholder: 'Pat Insured', claim_key: seeded.claim_key, claim_id: seeded.claim_id },
      ],
    });
    const res = await submit(t, { target_claim_key: seeded.claim_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      claim_key: seeded.claim_key,
      claim_id: seeded.claim_id,
      created: false,
      added: 2,
    });
    expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toEqual([
      expect.objectContaining({ path: expect.stringContaining('/items') }),
    ]);
    const claim = await t.client.get(`/api/claims/${t.claimId}`);
    expect(claim.body.estimation_claim_key).toBe(seeded.claim_key);
  });

  it.concurrent('reads the catalog with its preselection and sends the pricing only on the creating send', async () => {
    const t = await sendTeam();
    const profiles = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-profiles`);
    expect(profiles.status).toBe(200);
    expect(profiles.body.available).toBe(true);
    const schedule = profiles.body.schedules.find((s: any) => s.shopping_profiles.length > 0);
    const defaultProfile = schedule.shopping_profiles.find((p: any) => p.is_default);
    expect(profiles.body.preselected).toEqual({
      depreciation_schedule_id: schedule.id,
      shopping_profile_id: defaultProfile.id,
    });
    // A schedule chosen without its profile gets the default one.
    const res = await submit(t, { depreciation_schedule_id: schedule.id, shopping_profile_id: '' });
    expect(res.status).toBe(200);
    const [create]: any[] = await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' });
    expect(create.body).toMatchObject({
      depreciation_schedule_id: schedule.id,
      shopping_profile_id: defaultProfile.id,
    });
    await addItem(t, 'Chair');
    await submit(t, { depreciation_schedule_id: schedule.id });
    const [append]: any[] = await fake().requests({ key: t.key, match: '/items' });
    expect(append.body.depreciation_schedule_id).toBeUndefined();
  });

  it.concurrent('answers 402 with the billing body when credits are short, and sends nothing', async () => {
    const t = await sendTeam([['Sofa'], ['Lamp']], 1);
    const res = await submit(t);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      error: 'insufficient_credits',
      credits_balance: 1,
      required_amount: 2,
      buy_url: expect.any(String),
    });
    expect(await fake().requests({ key: t.key })).toEqual([]);
    const listed = await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`);
    expect(listed.body.unsent_item_count).toBe(2);
    await fakeBilling.setBalance(t.member.current_team_id, 10);
    expect((await submit(t)).status).toBe(200);
  });

  it.concurrent('charges and sends once for a double click', async () => {
    const t = await sendTeam();
    const [a, b] = await Promise.all([submit(t), submit(t)]);
    // One click opens the claim's send; the other, finding it under way, waits and is answered with it, or,
    // reaching the service only once it has ended, finds nothing new to send.
    const [sent, other] = a.status === 200 ? [a, b] : [b, a];
    expect(sent.status).toBe(200);
    if (other.status === 200) expect(other.body).toEqual(sent.body);
    else expect({ status: other.status, detail: other.body.detail }).toEqual({ status: 400, detail: NOTHING_NEW });
    expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
    expect((await spendsOf(t)).map((s: any) => s.amount)).toEqual([2]);
  });

  it.concurrent('replays the first answer for a retry carrying the same Idempotency-Key', async () => {
    const t = await sendTeam();
    const key = randomUUID();
    const first = await submit(t, {}, { 'Idempotency-Key': key });
    const again = await submit(t, {}, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await spendsOf(t)).length).toBe(1);
  });

  it.concurrent('recovers a create whose answer was lost: the retry is answered created=false, nothing is added twice', async () => {
    const t = await sendTeam();
    await fake().failNext('reset', { key: t.key, match: 'POST /intake/contents-inventory', afterApply: true });
    const res = await submit(t);
    expect(res.status).toBe(200);
    const [remote] = await fake().claims(t.key);
    expect(remote.items).toHaveLength(2);
    expect(res.body.claim_key).toBe(remote.claim_key);
    expect((await spendsOf(t)).length).toBe(1);
  });
});

describe('remote error mapping', () => {
  it.concurrent('409 without a team key, before any network call', async () => {
    const member = newTeamMember();
    const client = await Client.signIn(member);
    const room = await newRoom(client);
    await jobWithItems(client, room.id, [['Sofa']]);
    const res = await client.post(`/api/claims/${room.claim_id}/submit-to-estimation-platform`, {});
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/no estimation platform key/);
    const profiles = await client.get(`/api/claims/${room.claim_id}/estimation-platform-profiles`);
    expect(profiles.body).toMatchObject({ available: false, schedules: [] });
    const picker = await client.get(`/api/claims/${room.claim_id}/estimation-platform-claims`);
    expect(picker.body).toEqual({ available: false, claims: [] });
  });

  it.concurrent('409 for a key the platform refuses (never 401), refunded and nothing stamped', async () => {
    const t = await sendTeam();
    await fake().failNext('401', { key: t.key });
    const res = await submit(t);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/not provisioned/);
    const spends = await spendsOf(t);
    expect(spends).toHaveLength(1);
    expect(spends[0].refunded).toBeGreaterThan(0);
    expect((await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`)).body.unsent_item_count).toBe(2);
    await fake().failNext('401', { key: t.key });
    expect((await t.client.get(`/api/claims/${t.claimId}/estimation-platform-profiles`)).status).toBe(409);
  });

  it.concurrent('422 passes the remote detail through; a later attempt is charged again under a new round', async () => {
    const t = await sendTeam();
    await fake().failNext('422', { key: t.key, detail: 'items.0.title: too long for the platform' });
    const res = await submit(t);
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe('items.0.title: too long for the platform');
    expect((await t.client.get(`/api/claims/${t.claimId}`)).body.estimation_claim_key).toBeNull();
    const retry = await submit(t);
    expect(retry.status).toBe(200);
    const spends = await spendsOf(t);
    expect(spends.map((s: any) => s.reference)).toEqual([`ce-send:${t.claimId}`, `ce-send:${t.claimId}:r2`]);
    expect(spends[0].refunded).toBeGreaterThan(0);
  });

  it.concurrent('never reuses a refunded charge reference: a batch failed, another sent, then the first again is charged anew', async () => {
    const t = await sendTeam();
    expect((await submit(t)).status).toBe(200);
    const bookcase = await addItem(t, 'Bookcase');
    const chair = await addItem(t, 'Armchair');
    await fake().failNext('422', { key: t.key, detail: 'items.0.title: too long for the platform' });
    expect((await submit(t, { item_ids: [bookcase] })).status).toBe(422);
    expect((await submit(t, { item_ids: [chair] })).status).toBe(200);
    const balanceBefore = await fakeBilling.balance(t.member.current_team_id);
    const again = await submit(t, { item_ids: [bookcase] });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ items_sent: 1, credits_charged: expect.any(Number) });
    const spends = await spendsOf(t);
    const references = spends.map((s: any) => s.reference);
    expect(new Set(references).size).toBe(references.length);
    expect(spends).toHaveLength(4);
    expect(spends[1].refunded).toBeGreaterThan(0);
    expect(spends[3]).toMatchObject({ refunded: 0 });
    expect(await fakeBilling.balance(t.member.current_team_id)).toBe(balanceBefore - again.body.credits_charged);
    expect(again.body.credits_charged).toBeGreaterThan(0);
  });

  it.concurrent('keeps the refund of a failed send owed while billing refuses it; the sweep gives it back once', async () => {
    const t = await sendTeam();
    const team = t.member.current_team_id;
    const start = await fakeBilling.balance(team);
    await fake().failNext('422', { key: t.key, detail: 'items.0.title: too long for the platform' });
    await fakeBilling.failNext('500', 20, team, '/api/v1/credits/refund');
    expect((await submit(t)).status).toBe(422);
    const retry = await submit(t);
    expect(retry.status).toBe(200);
    expect(retry.body.credits_charged).toBeGreaterThan(0);
    // While refunds fail, the first round is still spent: for now the team has paid twice.
    const before = await spendsOf(t);
    expect(before.map((s: any) => [s.reference, s.refunded])).toEqual([
      [`ce-send:${t.claimId}`, 0],
      [`ce-send:${t.claimId}:r2`, 0],
    ]);

    await fakeBilling.recover(team);
    await invokeFunction('billingSweep');
    await invokeFunction('billingSweep');
    const after = await spendsOf(t);
    expect(after[0]).toMatchObject({ reference: `ce-send:${t.claimId}`, refunded: after[0].amount });
    expect(after[1]).toMatchObject({ reference: `ce-send:${t.claimId}:r2`, refunded: 0 });
    expect(await fakeBilling.balance(team)).toBe(start - retry.body.credits_charged);
  });

  it.concurrent('502 when the platform keeps failing or hangs; 502 for a catalog outage', async () => {
    const t = await sendTeam();
    // As many failures as the call's attempts (the client tries 3 times): the send fails, later calls are answered.
    await fake().failNext('503', { key: t.key, count: 3 });
    const res = await submit(t);
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/estimation platform/i);
    // A platform that never answers: the call's deadline ends it, well inside the HTTP function's time.
    await fake().failNext('timeout', { key: t.key, match: 'POST /intake/contents-inventory' });
    const hung = await submit(t);
    expect(hung.status).toBe(502);
    expect(hung.body.detail).toMatch(/estimation platform/i);
    expect((await spendsOf(t)).every((s) => s.refunded === s.amount)).toBe(true);
    await fake().failNext('500', { key: t.key, count: 3 });
    expect((await t.client.get(`/api/claims/${t.claimId}/estimation-platform-profiles`)).status).toBe(502);
    await fake().failNext('404', { key: t.key, match: 'GET /intake/catalog' });
    expect((await t.client.get(`/api/claims/${t.claimId}/estimation-platform-profiles`)).body.available).toBe(false);
    expect((await submit(t)).status).toBe(200);
  });

  it.concurrent('409 for an append to a claim that is gone, with nothing stamped', async () => {
    const t = await sendTeam();
    const gone = await submit(t, { target_claim_key: 'CLM-THAT-DOES-NOT-EXIST' });
    expect(gone.status).toBe(409);
    expect(gone.body.detail).toMatch(/no longer exists or belongs to another firm/);
    expect(await spendsOf(t)).toEqual([]);
    expect((await submit(t)).status).toBe(200);
    await addItem(t, 'Chair');
    await fake().failNext('404', { key: t.key, match: '/items' });
    const res = await submit(t);
    expect(res.status).toBe(409);
    const unsent = (await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`)).body.unsent_item_count;
    expect(unsent).toBe(1);
  });
});

describe('the freeze after a send', () => {
  it.concurrent('refuses changes to sent items with 409 until an admin unlocks the claim', async () => {
    const t = await sendTeam();
    expect((await submit(t)).status).toBe(200);
    const sent = t.items[0];
    const edit = await t.client.put(`/api/inventory/item/${sent.id}`, { name: 'Renamed' });
    expect(edit.status).toBe(409);
    const archive = await t.client.post(`/api/inventory/item/${sent.id}/archive`);
    expect(archive.status).toBe(409);
    // New items stay editable.
    const fresh = await addItem(t, 'Chair');
    expect((await t.client.put(`/api/inventory/item/${fresh}`, { name: 'Armchair' })).status).toBe(200);

    const lockPath = `/api/claims/${t.claimId}/estimation-platform-item-lock`;
    expect((await t.client.post(lockPath, { unlocked: true })).status).toBe(403);
    const admin = await Client.signIn(newTeamMember({ user_id: TEST_ADMIN_EXTERNAL_IDS[0] }));
    const unlocked = await admin.post(lockPath, { unlocked: true });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ estimation_items_unlocked: true, items_locked: false });
    expect((await t.client.put(`/api/inventory/item/${sent.id}`, { name: 'Renamed' })).status).toBe(200);
    const feed = await t.client.get('/api/activity');
    const entry = (feed.body.items ?? feed.body).find((e: any) => e.action_type === 'estimation_items_unlock');
    expect(entry).toMatchObject({ restorable: false, entity_id: t.claimId });
    expect((await admin.post(lockPath, { unlocked: false })).status).toBe(200);
    expect((await t.client.put(`/api/inventory/item/${sent.id}`, { name: 'Again' })).status).toBe(409);
  });
});
