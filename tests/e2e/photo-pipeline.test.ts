/**
 * The photo pipeline end to end over real HTTP (spec: Photo pipeline (live
 * path); Output budget and truncation; Processing rules; Jobs read-the-rest
 * routes; InventoryItem and ItemPhoto; Limits > Credit prices):
 *
 *   upload → regroup → segment → describe → delete → process → items with
 *   photos, numbers and flags; read the rest pass by pass up to the ceiling;
 *   every failure mode of the gateway; billing of exactly the right credits
 *   against the fake billing service, refund when every call failed; and two
 *   jobs of one claim processed at once never sharing an item number.
 *
 * The fake gateway and fake billing service are started once for the run
 * (tests/support/global-setup.ts); each test scripts answers by the unique
 * file names its photos carry in the image labels.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow, listKeys, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem, type ScriptedPass } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

/** A photo with some texture (so JPEG sizes are realistic), width x height. */
function photo(width = 160, height = 120, seed = 1): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * seed * 31 + (i >> 7) * 17) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

const tag = () => randomUUID().slice(0, 8);

interface Staged {
  id: string;
  index: number;
  original_filename: string;
  group_index: number;
  is_segment: boolean;
  deleted: boolean;
}

async function staged(client: Client, jobId: string): Promise<Staged[]> {
  const res = await client.get(`/api/jobs/${jobId}/staged-photos`);
  expect(res.status).toBe(200);
  return res.body;
}

async function inventory(client: Client, jobId: string) {
  const res = await client.get(`/api/inventory/${jobId}`);
  expect(res.status).toBe(200);
  return res.body as any[];
}

/** A new team (with a claim and room) whose billing account holds `balance` credits. */
async function team(balance = 1000): Promise<{ client: Client; room: TestRoom; teamId: number }> {
  const member = newTeamMember();
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, room: await newRoom(client, 'Living room'), teamId: member.current_team_id };
}

async function startProcessing(client: Client, jobId: string) {
  const res = await client.post(`/api/jobs/${jobId}/process`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('photo pipeline: grouping to items', () => {
  let alice: Client;
  let teamId: number;
  let room: TestRoom;
  let jobId: string;
  let t: string;
  let photos: Staged[];
  let names: Record<string, string>;

  beforeAll(async () => {
    ({ client: alice, room, teamId } = await team(50));
    t = tag();
    names = {
      sofa: `sofa-${t}.jpg`,
      lamp1: `lamp-a-${t}.jpg`,
      lamp2: `lamp-b-${t}.jpg`,
      clock: `clock-${t}.jpg`,
      junk: `junk-${t}.jpg`,
      shelf: `shelf-${t}.jpg`,
      big: `big-${t}.jpg`,
    };
    const files = [
      await photo(160, 120, 1),
      await photo(160, 120, 2),
      await photo(160, 120, 3),
      await photo(160, 120, 4),
      await photo(160, 120, 5),
      await photo(400, 300, 6),
      await photo(3000, 2000, 7),
    ];
    const made = await photoJob(alice, room.id, files, Object.values(names));
    jobId = made.jobId;
    photos = await staged(alice, jobId);
  });

  const byName = (key: string) => photos.find((p) => p.original_filename === names[key]) as Staged;

  it('groups, segments, describes and deletes before processing, and quotes only the groups that reach the AI', async () => {
    const regroup = await alice.put(`/api/jobs/${jobId}/staged-photos/regroup`, {
      groups: [[byName('lamp1').id, byName('lamp2').id]],
    });
    expect(regroup.status).toBe(200);
    const described = await alice.put(`/api/jobs/${jobId}/staged-photos/details`, {
      ids: [byName('clock').id],
      name: 'Antique mantel clock',
      quantity: 2,
    });
    expect(described.status).toBe(200);
    expect((await alice.put(`/api/jobs/${jobId}/staged-photos/delete`, { ids: [byName('junk').id] })).status).toBe(200);
    const segmented = await alice.put(`/api/jobs/${jobId}/staged-photos/segment`, {
      photo_id: byName('shelf').id,
      items: [
        { name: 'Blue vase', quantity: 3, boxes: [{ x: 0, y: 0, width: 0.5, height: 0.5 }] },
        { name: '', quantity: 2, boxes: [{ x: 0.5, y: 0.5, width: 0.5, height: 0.5 }] },
      ],
    });
    expect(segmented.status).toBe(200);
    photos = await staged(alice, jobId);

    // sofa, the lamp pair, big, and the blank-named segment reach the AI; the clock and the named segment are described.
    const quote = await alice.get(`/api/jobs/${jobId}/quote`);
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ photo_requests: 4, credits: 4, billing_enabled: true, credits_balance: 50 });
  });

  it('processes: one AI call per group, items numbered in group order with photos, flags, notes and exact billing', async () => {
    await setFields(`JOB#${jobId}`, `PHOTO#${String(byName('sofa').index).padStart(6, '0')}`, {
      source_description: 'Grey three-seat sofa, bought 2019',
    });
    await gateway.script(names.sofa, [{ items: [modelItem('Sofa', 0.92), modelItem('Throw cushion', 0.4)] }]);
    // A merged group yields exactly one item, whatever the model says.
    await gateway.script(names.lamp1, [{ items: [modelItem('Floor lamp', 0.88), modelItem('Lamp shade', 0.7)] }]);
    await gateway.script(names.big, [
      { items: [modelItem('Television', 0.95, { brand: 'Sony', estimated_price: '$1,299' })] },
    ]);
    // The blank-named segment: the user's quantity (2) overrides the model's (1).
    await gateway.script(names.shelf, [{ items: [modelItem('Ceramic bowl', 0.8)] }]);

    const started = await startProcessing(alice, jobId);
    expect(started.status).toBe('pending');
    expect(started.billing_charged).toBe(true);
    expect(started.billing_amount).toBe(4);
    const job = await jobInStatus(alice, jobId, ['complete', 'error']);
    expect(job).toMatchObject({
      status: 'complete',
      progress_pct: 100,
      photo_request_count: 4,
      billed_cost_usd: 4,
      items_found: 7,
      photos_with_more_items: 0,
      billing_refunded: false,
    });
    expect(job.ai_api_calls).toBe(4);
    expect(job.ai_input_tokens).toBeGreaterThan(0);
    expect(job.ai_output_tokens).toBeGreaterThan(0);
    expect(job.ai_cost_usd).toBeGreaterThan(0);
    expect(await fakeBilling.balance(teamId)).toBe(46);

    const items = await inventory(alice, jobId);
    expect(items.map((i) => i.item_number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Group order: sofa (2 items), lamp pair, clock (described), then the two segment groups, then the big photo.
    expect(items.map((i) => i.name)).toEqual([
      'Sofa',
      'Throw cushion',
      'Floor lamp',
      'Antique mantel clock',
      'Blue vase',
      'Ceramic bowl',
      'Television',
    ]);
    const [sofa, cushion, lamp, clock, vase, bowl, tv] = items;
    expect(sofa).toMatchObject({ needs_review: false, room: 'Living room', quantity: 1, approved: false });
    expect(sofa.notes).toBe('From the source PDF: Grey three-seat sofa, bought 2019');
    expect(cushion.needs_review).toBe(true);
    expect(lamp.photos).toHaveLength(2);
    expect(lamp.photos.filter((p: any) => p.is_primary)).toHaveLength(1);
    expect(lamp.photo_path).toBe(lamp.photos.find((p: any) => p.is_primary).url);
    expect(clock).toMatchObject({ quantity: 2, confidence: 1, needs_review: false });
    expect(clock.photos).toHaveLength(1);
    expect(vase).toMatchObject({ quantity: 3, confidence: 1 });
    expect(bowl).toMatchObject({ quantity: 2, confidence: 0.8 });
    expect(tv).toMatchObject({ brand: 'Sony', estimated_price: 1299 });

    // Every photo served: the primary photo's capability URL answers 302.
    const served = await fetch(`${process.env.TEST_SERVICE_URL}${tv.photo_path}`, { redirect: 'manual' });
    expect(served.status).toBe(302);
  });

  it('sent each AI group once, with the right prompt, a budget within the clamps and resized images, never asking for a room', async () => {
    const sofaCalls = await gateway.requests(names.sofa);
    expect(sofaCalls).toHaveLength(1);
    expect(sofaCalls[0].text).toContain('Identify every inventoriable contents item');
    expect(sofaCalls[0].text).toContain('Grey three-seat sofa, bought 2019');
    const lampCalls = await gateway.requests(names.lamp1);
    expect(lampCalls).toHaveLength(1);
    expect(lampCalls[0].images).toHaveLength(2);
    expect(lampCalls[0].text).toContain('one single item');
    const bowlCalls = await gateway.requests(names.shelf);
    expect(bowlCalls).toHaveLength(1);
    expect(bowlCalls[0].text).toContain('never split');
    expect(await gateway.requests(names.clock)).toHaveLength(0);
    expect(await gateway.requests(names.junk)).toHaveLength(0);
    const [big] = await gateway.requests(names.big);
    const { width, height } = big.images[0] as { width: number; height: number };
    expect(Math.max(width, height)).toBeLessThanOrEqual(1568);
    expect(width * height).toBeLessThanOrEqual(1_150_000);
    for (const call of [...sofaCalls, ...lampCalls, ...bowlCalls, big]) {
      expect(call.max_tokens).toBeGreaterThanOrEqual(800);
      expect(call.max_tokens).toBeLessThanOrEqual(3500);
      expect(call.temperature).toBe(0);
      expect(`${call.system}\n${call.text}`.toLowerCase()).not.toMatch(/\broom\b|audio/);
    }
    // A bigger image costs more input, so it gets a smaller output budget.
    expect(big.max_tokens as number).toBeLessThan(sofaCalls[0].max_tokens as number);
  });

  it('removed the soft-deleted photo (row and file) before the AI ran', async () => {
    const after = await staged(alice, jobId);
    expect(after.find((p) => p.original_filename === names.junk)).toBeUndefined();
    const keys = await listKeys(`teams/${room.team_id}/claims/${room.claim_id}/jobs/${jobId}/`);
    expect(keys.some((k) => k.endsWith(`_${String(byName('junk').index).padStart(4, '0')}.jpg`))).toBe(false);
  });

  it('answers 404 to another team on the inventory and read-the-rest routes', async () => {
    const mallory = await Client.signIn(newTeamMember());
    expect((await mallory.get(`/api/inventory/${jobId}`)).status).toBe(404);
    expect((await mallory.get(`/api/jobs/${jobId}/read-the-rest/quote`)).status).toBe(404);
    expect((await mallory.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(404);
    expect((await alice.get(`/api/jobs/${jobId}`)).body.status).toBe('complete');
  });

  it('refuses read the rest when nothing was cut short, and grouping once processed', async () => {
    const quote = await alice.get(`/api/jobs/${jobId}/read-the-rest/quote`);
    expect(quote.body).toMatchObject({ groups: 0, credits: 0, too_dense: [], advice: null });
    const res = await alice.post(`/api/jobs/${jobId}/read-the-rest`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/nothing left to read/);
    expect((await alice.put(`/api/jobs/${jobId}/staged-photos/regroup`, { groups: [] })).status).toBe(409);
  });
});

describe('photo pipeline: output budget, truncation and read the rest', () => {
  it('keeps the complete items of a cut-short answer, re-reads only that group pass by pass, and stops at the ceiling', async () => {
    const { client, room, teamId } = await team(100);
    const t = tag();
    const dense = `dense-${t}.jpg`;
    const calm = `calm-${t}.jpg`;
    const full = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => modelItem(`${prefix} ${i + 1}`, 0.9));
    const passes: ScriptedPass[] = [
      { items: full('Book', 6), cutShort: true },
      { items: full('Mug', 4), completionTokens: 'budget' },
      { items: full('Plate', 4), cutShort: true },
    ];
    await gateway.script(dense, passes);
    await gateway.script(calm, [{ items: [modelItem('Armchair')] }]);
    const { jobId } = await photoJob(
      client,
      room.id,
      [await photo(200, 150, 3), await photo(200, 150, 4)],
      [dense, calm],
    );
    await startProcessing(client, jobId);
    let job = await jobInStatus(client, jobId, ['complete', 'error']);
    expect(job.status).toBe('complete');
    // ceil(6/2) = 3 complete books before the cut, then the armchair.
    expect((await inventory(client, jobId)).map((i) => i.name)).toEqual(['Book 1', 'Book 2', 'Book 3', 'Armchair']);
    const denseGroup = job.photo_truncated_groups[0].group_index;
    expect(job.photo_truncated_groups).toEqual([
      { group_index: denseGroup, passes: 1, names: ['Book 1', 'Book 2', 'Book 3'], too_dense: false },
    ]);
    expect(job.photos_with_more_items).toBe(1);
    expect(job.billed_cost_usd).toBe(2);

    const quote = await client.get(`/api/jobs/${jobId}/read-the-rest/quote`);
    expect(quote.body).toMatchObject({
      groups: 1,
      group_indices: [denseGroup],
      credits: 1,
      max_passes: 3,
      credits_balance: 98,
    });

    // Pass 2: the answer used its whole budget (finish_reason stop): cut short again; all 4 mugs are whole.
    const second = await client.post(`/api/jobs/${jobId}/read-the-rest`);
    expect(second.status).toBe(200);
    job = await jobInStatus(client, jobId, ['complete']);
    const [pass2] = (await gateway.requests(dense)).slice(-1);
    expect(pass2.text).toContain('- Book 1');
    expect(pass2.text).toContain('NOT in that list');
    expect(await gateway.requests(calm)).toHaveLength(1);
    let items = await inventory(client, jobId);
    expect(items.map((i) => i.item_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(items.slice(4).map((i) => i.name)).toEqual(['Mug 1', 'Mug 2', 'Mug 3', 'Mug 4']);
    expect(job).toMatchObject({ photo_request_count: 3, billed_cost_usd: 3, items_found: 8 });
    expect(job.photo_truncated_groups).toEqual([
      {
        group_index: denseGroup,
        passes: 2,
        names: ['Book 1', 'Book 2', 'Book 3', 'Mug 1', 'Mug 2', 'Mug 3', 'Mug 4'],
        too_dense: false,
      },
    ]);

    // Pass 3 reaches the ceiling still cut short: too dense, with the advice to segment.
    expect((await client.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(200);
    job = await jobInStatus(client, jobId, ['complete']);
    items = await inventory(client, jobId);
    expect(items.slice(8).map((i) => i.name)).toEqual(['Plate 1', 'Plate 2']);
    expect(job.photo_truncated_groups[0]).toMatchObject({ passes: 3, too_dense: true });
    expect(job).toMatchObject({ photo_request_count: 4, billed_cost_usd: 4 });
    const last = await client.get(`/api/jobs/${jobId}/read-the-rest/quote`);
    expect(last.body).toMatchObject({ groups: 0, credits: 0, too_dense: [denseGroup] });
    expect(last.body.advice).toMatch(/Segment/);
    const refused = await client.post(`/api/jobs/${jobId}/read-the-rest`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/Segment/);
    expect(await fakeBilling.balance(teamId)).toBe(96);
    // Each pass spent up front once, under its own reference.
    const spends = (await fakeBilling.requests(teamId)).filter((r) => r.path === '/api/v1/credits/spend');
    expect(spends.map((s) => s.body.amount)).toEqual([2, 1, 1]);
    expect(new Set(spends.map((s) => s.body.reference)).size).toBe(3);
  });

  it('a failed pass leaves the job complete with its items and refunds the pass', async () => {
    const { client, room, teamId } = await team(10);
    const t = tag();
    const dense = `dense-${t}.jpg`;
    await gateway.script(dense, [
      { items: [modelItem('Hat'), modelItem('Scarf'), modelItem('Glove')], cutShort: true },
      { items: [], fail: '400' },
    ]);
    const { jobId } = await photoJob(client, room.id, [await photo()], [dense]);
    await startProcessing(client, jobId);
    await jobInStatus(client, jobId, ['complete']);
    expect((await client.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(200);
    const job = await jobInStatus(client, jobId, ['complete'], 60_000);
    await eventually(async () => (await client.get(`/api/jobs/${jobId}`)).body.last_pass_error);
    const after = (await client.get(`/api/jobs/${jobId}`)).body;
    expect(after.last_pass_error).toMatch(/failed/);
    expect(after.photo_truncated_groups[0]).toMatchObject({ passes: 1, too_dense: false });
    expect(job.billed_cost_usd).toBe(1);
    expect((await inventory(client, jobId)).map((i) => i.name)).toEqual(['Hat', 'Scarf']);
    expect(await fakeBilling.balance(teamId)).toBe(9);
  });
});

describe('photo pipeline: gateway failures and billing', () => {
  it('retries every transient gateway failure (5xx, 429, timeout, empty, no content, reset) and counts every attempt', async () => {
    const { client, room } = await team();
    const t = tag();
    const first = `retry-a-${t}.jpg`;
    const second = `retry-b-${t}.jpg`;
    await gateway.script(first, [{ items: [modelItem('Desk')] }]);
    await gateway.script(second, [{ items: [modelItem('Office chair')] }]);
    // Three failures each, then an answer: within the four attempts of a request.
    for (const mode of ['503', 'empty', '429'] as const) await gateway.failNext(mode, 1, first);
    for (const mode of ['timeout', 'no-content', 'reset'] as const) await gateway.failNext(mode, 1, second);
    const { jobId } = await photoJob(client, room.id, [await photo(), await photo(160, 120, 3)], [first, second]);
    await startProcessing(client, jobId);
    const job = await jobInStatus(client, jobId, ['complete', 'error']);
    expect(job).toMatchObject({ status: 'complete', photo_request_count: 2, ai_api_calls: 8, billed_cost_usd: 2 });
    expect((await inventory(client, jobId)).map((i) => i.name)).toEqual(['Desk', 'Office chair']);
    expect((await gateway.requests(second)).map((r) => r.answered)).toEqual(['timeout', 'no-content', 'reset', 200]);
  });

  it('never bills a failed request: a job with one failed group completes and is billed for the rest', async () => {
    const { client, room } = await team();
    const t = tag();
    const good = `good-${t}.jpg`;
    const bad = `bad-${t}.jpg`;
    await gateway.script(good, [{ items: [modelItem('Bookcase')] }]);
    await gateway.script(bad, [{ items: [], fail: '400' }]);
    const { jobId } = await photoJob(client, room.id, [await photo(), await photo(160, 120, 9)], [good, bad]);
    await startProcessing(client, jobId);
    const job = await jobInStatus(client, jobId, ['complete', 'error']);
    expect(job).toMatchObject({ status: 'complete', photo_request_count: 1, billed_cost_usd: 1, items_found: 1 });
  });

  it('ends in error with the up-front charge refunded when every AI call failed', async () => {
    const { client, room, teamId } = await team(20);
    const t = tag();
    const a = `fail-a-${t}.jpg`;
    const b = `fail-b-${t}.jpg`;
    await gateway.script(a, [{ items: [], fail: '500' }]);
    await gateway.script(b, [{ items: [], fail: 'garbage' }]);
    const { jobId } = await photoJob(client, room.id, [await photo(), await photo(160, 120, 5)], [a, b]);
    await startProcessing(client, jobId);
    const job = await jobInStatus(client, jobId, ['complete', 'error']);
    expect(job.status).toBe('error');
    expect(job.error_message).toMatch(/Every AI request/);
    // The refund follows the move to error.
    const refunded = await eventually(async () =>
      (await client.get(`/api/jobs/${jobId}`)).body.billing_refunded
        ? (await client.get(`/api/jobs/${jobId}`)).body
        : null,
    );
    expect(refunded).toMatchObject({
      billing_charged: true,
      billing_refunded: true,
      billed_cost_usd: 0,
      photo_request_count: 0,
    });
    expect(await fakeBilling.balance(teamId)).toBe(20);
    expect(await inventory(client, jobId)).toEqual([]);
  });

  it('answers 402 with the spec body and changes nothing when the billing service refuses', async () => {
    const { client, room } = await team(1);
    const t = tag();
    const { jobId } = await photoJob(
      client,
      room.id,
      [await photo(), await photo(160, 120, 2)],
      [`a-${t}.jpg`, `b-${t}.jpg`],
    );
    const res = await client.post(`/api/jobs/${jobId}/process`);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      error: 'insufficient_credits',
      credits_balance: 1,
      required_amount: 2,
      buy_url: expect.any(String),
    });
    const row = await getRow(`JOB#${jobId}`, 'JOB');
    expect(row).toMatchObject({ status: 'awaiting_grouping', billing_charged: false });
  });

  it('a described-only job makes no AI call and costs nothing', async () => {
    const { client, room, teamId } = await team(5);
    const t = tag();
    const { jobId } = await photoJob(client, room.id, [await photo()], [`named-${t}.jpg`]);
    const [p] = await staged(client, jobId);
    expect(
      (await client.put(`/api/jobs/${jobId}/staged-photos/details`, { ids: [p.id], name: 'Piano', quantity: null }))
        .status,
    ).toBe(200);
    expect((await client.get(`/api/jobs/${jobId}/quote`)).body).toMatchObject({ credits: 0, photo_requests: 0 });
    await startProcessing(client, jobId);
    const job = await jobInStatus(client, jobId, ['complete', 'error']);
    expect(job).toMatchObject({ status: 'complete', billed_cost_usd: 0, ai_api_calls: 0, items_found: 1 });
    expect((await inventory(client, jobId))[0]).toMatchObject({ name: 'Piano', quantity: 1, confidence: 1 });
    expect(await gateway.requests(`named-${t}`)).toHaveLength(0);
    expect(await fakeBilling.balance(teamId)).toBe(5);
  });
});

describe('photo pipeline: settings', () => {
  it('uses the team prompt and auto-approves by the team rules after synthesis', async () => {
    const { client, room } = await team();
    const t = tag();
    expect(
      (
        await client.put('/api/settings/prompts', {
          merged: null,
          unmerged: `Custom team instructions ${t}.`,
          presets: [],
        })
      ).status,
    ).toBe(200);
    const automation = await client.put('/api/settings/automation', {
      auto_approve: {
        enabled: true,
        min_confidence: 0.8,
        require_price: false,
        max_estimated_price: null,
        exclude_name_keywords: ['jewel'],
      },
    });
    expect(automation.status).toBe(200);
    const name = `auto-${t}.jpg`;
    await gateway.script(name, [
      {
        items: [
          modelItem('Dining table', 0.95),
          modelItem('Jewellery box', 0.95),
          modelItem('Rug', 0.7),
          modelItem('Painting', 0.3),
        ],
      },
    ]);
    const { jobId } = await photoJob(client, room.id, [await photo()], [name]);
    await startProcessing(client, jobId);
    await jobInStatus(client, jobId, ['complete']);
    const [call] = await gateway.requests(name);
    expect(call.system).toContain(`Custom team instructions ${t}.`);
    const items = await inventory(client, jobId);
    expect(items.map((i) => [i.name, i.approved, i.needs_review])).toEqual([
      ['Dining table', true, false],
      ['Jewellery box', false, false],
      ['Rug', false, false],
      ['Painting', false, true],
    ]);
  });
});

describe('photo pipeline: concurrency', () => {
  it('two photo jobs of one claim processed at the same time never share an item number', async () => {
    const { client, room } = await team();
    const second = await client.post(`/api/claims/${room.claim_id}/rooms`, { name: 'Bedroom' });
    expect(second.status).toBe(201);
    const t = tag();
    const names = (prefix: string) => Array.from({ length: 6 }, (_, i) => `${prefix}-${i}-${t}.jpg`);
    const left = names('left');
    const right = names('right');
    for (const n of [...left, ...right])
      await gateway.script(n, [{ items: [modelItem(`${n} one`), modelItem(`${n} two`)] }]);
    const files = await Promise.all(Array.from({ length: 6 }, (_, i) => photo(120, 90, i + 1)));
    const [a, b] = await Promise.all([
      photoJob(client, room.id, files, left),
      photoJob(client, second.body.id, files, right),
    ]);
    await Promise.all([startProcessing(client, a.jobId), startProcessing(client, b.jobId)]);
    await Promise.all([jobInStatus(client, a.jobId, ['complete']), jobInStatus(client, b.jobId, ['complete'])]);
    const numbers = [...(await inventory(client, a.jobId)), ...(await inventory(client, b.jobId))]
      .map((i) => i.item_number)
      .sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });
});
