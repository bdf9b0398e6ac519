/**
 * Estimation sends that overlap: a request that arrives while another send of
 * the claim is held at the platform, and two send sweeps (overlapping
 * watchdog runs) on one interrupted send. A send is held mid-call by a
 * forwarding proxy in front of the run's fake estimation platform: it keeps
 * the matching request until the test lets it go, then passes it on.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { settings } from '../../lib/config';
import { keys } from '../../lib/db/keys';
import { submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { acquireSendLease, getEstimationSend } from '../../lib/sends/estimation-store';
import { sweepInterruptedEstimationSends } from '../../lib/sends/estimation-sweep-service';
import { Client } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { addItem, fake, identityOfMember, type SendTeam, sendTeam, spendsOf, submit } from '../support/sends';
import { teammateOf } from '../support/tokens';

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * A proxy to the fake estimation platform that holds the first request whose
 * "METHOD /path" contains `match` until release(); `held` resolves when it
 * arrives. Its base URL stands in for ESTIMATION_PLATFORM_BASE_URL.
 */
async function holdingPlatform(match: string) {
  const target = new URL(settings().ESTIMATION_PLATFORM_BASE_URL);
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived = () => {};
  const held = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let holding = true;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (holding && `${req.method} ${req.url}`.includes(match)) {
      holding = false;
      arrived();
      await released;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        (e): e is [string, string] => typeof e[1] === 'string' && !['host', 'connection'].includes(e[0]),
      ),
    );
    const answer = await fetch(new URL(req.url ?? '/', target.origin), {
      method: req.method,
      headers,
      body: body.length ? body : undefined,
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`;
  return {
    config: { ...settings(), ESTIMATION_PLATFORM_BASE_URL: base },
    held,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const unsentCount = async (t: SendTeam) =>
  (await t.client.get(`/api/claims/${t.claimId}/estimation-platform-items`)).body.unsent_item_count;

const netPaid = async (t: SendTeam) => (await spendsOf(t)).reduce((sum, s) => sum + s.amount - s.refunded, 0);

it("a request that adds an item while another user's send is held at the platform sends that item itself", async () => {
  const t = await sendTeam();
  const platform = await holdingPlatform('POST /intake/contents-inventory');
  let rugId = '';
  try {
    // User A sends the claim's two items; the platform holds the create.
    const first = submitToEstimationPlatform(
      await identityOfMember(t.member),
      t.claimId,
      {},
      {
        config: platform.config,
      },
    );
    await platform.held;

    // Meanwhile user B adds an item and sends (the modal's default: every unsent item); B waits for A's send.
    const b = await Client.signIn(teammateOf(t.member));
    rugId = await addItem({ client: b, jobId: t.jobId }, 'Rug');
    const second = submit({ ...t, client: b });
    await sleep(2_000);
    platform.release();

    expect(await first).toMatchObject({ items_sent: 2, credits_charged: 2 });
    const answer = await second;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ items_sent: 1, item_ids: [rugId], credits_charged: 1 });
  } finally {
    platform.release();
    await platform.close();
  }
  // B's item went out, and each item was paid for once.
  expect(await unsentCount(t)).toBe(0);
  const [remote] = await fake().claims(t.key);
  expect(remote.items.map((i) => i.external_id).sort()).toEqual([...t.items.map((i) => i.id), rugId].sort());
  expect(await netPaid(t)).toBe(3);
});

it('a double click while the first send is held at the platform is answered with that send: sent and charged once', async () => {
  const t = await sendTeam();
  const platform = await holdingPlatform('POST /intake/contents-inventory');
  try {
    const identity = await identityOfMember(t.member);
    const first = submitToEstimationPlatform(identity, t.claimId, {}, { config: platform.config });
    await platform.held;
    const second = submit(t);
    await sleep(2_000);
    platform.release();
    const sent = await first;
    const answer = await second;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ items_sent: 2, claim_key: sent.claim_key, sent_at: sent.sent_at });
  } finally {
    platform.release();
    await platform.close();
  }
  expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
  expect(await netPaid(t)).toBe(2);
});

class ProcessDied extends Error {}

const dieAt = (step: string, at: string) => {
  if (step === at) throw new ProcessDied(`died after ${at}`);
};

/** Everything but the clock runs for real: the test moves the service's time on to the next watchdog run. */
const clockOnly = () =>
  jest.useFakeTimers({
    advanceTimers: true,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });

it('two overlapping watchdog runs finish an interrupted send once: one batch to the platform, one stamp, one charge', async () => {
  const t = await sendTeam();
  const identity = await identityOfMember(t.member);
  await expect(
    submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: (step) => dieAt(step, 'charged') }),
  ).rejects.toThrow(ProcessDied);
  // The dead request's lease has run out: the send is the sweep's.
  const key = keys.estimationSend(t.claimId);
  await setFields(key.pk, key.sk, { lease_until: 0 });
  const revisions = async () =>
    Promise.all(t.items.map(async (i) => Number((await getRow(`ITEM#${i.id}`, 'ITEM'))?.rev ?? 0)));
  const before = await revisions();

  const platform = await holdingPlatform('POST /intake/contents-inventory');
  const reports: { finished: number }[] = [];
  clockOnly();
  try {
    // One run takes the send over and is held at the platform (a slow platform: a create can take 20 s, and
    // its follow-up append 20 s more) ...
    const first = sweepInterruptedEstimationSends(undefined, { config: platform.config });
    await platform.held;
    // ... while the watchdog starts its next run a minute later.
    jest.setSystemTime(Date.now() + 61_000);
    const second = await sweepInterruptedEstimationSends();
    platform.release();
    reports.push(await first, second);
  } finally {
    jest.useRealTimers();
    platform.release();
    await platform.close();
  }
  expect(await getEstimationSend(t.claimId)).toMatchObject({ state: 'done', lease_until: 0 });
  // The platform got the batch once, each item was stamped once, the ledger and the claim were charged once.
  expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
  expect(await revisions()).toEqual(before.map((rev) => rev + 1));
  expect(await unsentCount(t)).toBe(0);
  expect((await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([[`ce-send:${t.claimId}`, 2, 0]]);
  expect((await t.client.get(`/api/claims/${t.claimId}`)).body.spend_usd).toBe(2);
  expect(reports.reduce((n, r) => n + r.finished, 0)).toBe(1);
});

it('a sweep takes over only the open send it saw: not one finished, failed or taken over since its read', async () => {
  const t = await sendTeam();
  const identity = await identityOfMember(t.member);
  await expect(
    submitToEstimationPlatform(identity, t.claimId, {}, { interrupt: (step) => dieAt(step, 'charged') }),
  ).rejects.toThrow(ProcessDied);
  const key = keys.estimationSend(t.claimId);
  await setFields(key.pk, key.sk, { lease_until: 0 });
  const claim = { id: t.claimId, team_id: (await getEstimationSend(t.claimId))!.team_id };
  const takeOver = (leaseSeen: number) =>
    acquireSendLease(claim, 'sweep', Date.now(), Date.now() + 60_000, { leaseSeen });

  // The sweep read it open under lease 0; a request took it over meanwhile (its lease is another): left alone.
  await setFields(key.pk, key.sk, { lease_until: 1 });
  expect(await takeOver(0)).toEqual({ busy: true });
  // The request finished it and let go of its lease (0 again): a finished send is not run again.
  const finished = await submitToEstimationPlatform(identity, t.claimId, {});
  expect(finished.items_sent).toBe(2);
  expect(await getEstimationSend(t.claimId)).toMatchObject({ state: 'done', lease_until: 0 });
  expect(await takeOver(0)).toEqual({ busy: true });
  expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
});
