/**
 * Estimation sends that overlap: a request that arrives while another send of
 * the claim is held at the platform (held mid-call by a forwarding proxy in
 * front of the run's fake estimation platform, which keeps the matching
 * request until the test lets it go, then passes it on), and the stage
 * message of a send being carried on delivered twice.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { settings } from '../../lib/config';
import { sendToQueue } from '../../lib/queue/queues';
import { submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { getEstimationSend } from '../../lib/sends/estimation-store';
import { Client, eventually } from '../support/api';
import { getRow } from '../support/aws';
import { armFaultPoint } from '../support/fault-points';
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

/** The claim's send once it has ended (done or failed), waited for over the watchdog's next ticks. */
const sendEnded = (claimId: string) =>
  eventually(
    async () => {
      const s = await getEstimationSend(claimId);
      return s && s.status !== 'processing' ? s : null;
    },
    150_000,
    500,
  );

it("a send's stage message delivered twice while a worker carries the send on runs it once: one batch to the platform, one stamp, one charge", async () => {
  const t = await sendTeam();
  armFaultPoint('estimation-send:recorded', t.claimId);
  expect((await submit(t)).status).toBeGreaterThanOrEqual(500);
  const dead = await getEstimationSend(t.claimId);
  const revisions = async () =>
    Promise.all(t.items.map(async (i) => Number((await getRow(`ITEM#${i.id}`, 'ITEM'))?.rev ?? 0)));
  const before = await revisions();

  // Time makes the request a dead one; the watchdog restarts its stage under a new run and queues its message ...
  await expireEstimationSendLease(t.claimId);
  const restarted = await eventually(
    async () => {
      const s = await getEstimationSend(t.claimId);
      return s && s.run_id !== dead?.run_id ? s : null;
    },
    150_000,
    200,
  );
  // ... and the queue delivers that message a second time (SQS is at-least-once).
  await sendToQueue('stages', { kind: 'estimation-send', id: t.claimId, run_id: restarted.run_id, stage: 'send' });

  expect(await sendEnded(t.claimId)).toMatchObject({ status: 'done', state: 'done' });
  expect(await fake().requests({ key: t.key, match: 'POST /intake/contents-inventory' })).toHaveLength(1);
  expect(await revisions()).toEqual(before.map((rev) => rev + 1));
  expect(await unsentCount(t)).toBe(0);
  expect((await spendsOf(t)).map((s) => [s.reference, s.amount, s.refunded])).toEqual([[`ce-send:${t.claimId}`, 2, 0]]);
  expect((await t.client.get(`/api/claims/${t.claimId}`)).body.spend_usd).toBe(2);
});
