/**
 * The fake billing service's own behaviour (tests/fakes/billing-server.ts):
 * the ledger a real service with idempotency keys keeps (a reference holds
 * one amount, a refusal is remembered, refunds never give back more than
 * what is left), calls on one key served one after the other, and the
 * failure modes whose effect lands after the answer was lost. Requests are
 * made with plain fetch over real HTTP, so the fake is checked on its own.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { type FakeBillingServer, startFakeBillingServer } from '../../fakes/billing-server';
import { fakeBillingAt } from '../../support/fake-billing';

const APP = 'contents-inventory';
let fake: FakeBillingServer;
let control: ReturnType<typeof fakeBillingAt>;

beforeAll(async () => {
  fake = await startFakeBillingServer({ app: APP });
  control = fakeBillingAt(() => fake.url);
});
afterAll(() => fake.stop());

interface Answer {
  status: number;
  body: any;
  /** When the answer came, ms since the epoch. */
  at: number;
}

/** One call; `giveUpAfterMs` aborts it as a client's timeout would ('gave up' instead of an answer). */
async function call(
  path: string,
  body: unknown,
  options: { key?: string | null; giveUpAfterMs?: number } = {},
): Promise<Answer | 'gave up'> {
  const key = options.key === undefined ? fake.apiKey : options.key;
  const signal = options.giveUpAfterMs === undefined ? undefined : AbortSignal.timeout(options.giveUpAfterMs);
  try {
    const res = await fetch(`${fake.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, at: Date.now() };
  } catch (err) {
    if (signal?.aborted) return 'gave up';
    throw err;
  }
}

const answered = (a: Answer | 'gave up'): Answer => {
  if (a === 'gave up') throw new Error('the fake did not answer');
  return a;
};

/** A team of its own with `balance` credits. */
async function newTeam(balance: number): Promise<number> {
  const team = randomInt(100_000, 2_000_000_000);
  await control.setBalance(team, balance);
  return team;
}

const spendBody = (team: number, amount: number, reference = `ref-${randomUUID()}`) => ({
  app: APP,
  team_id: team,
  user_id: 'u-1',
  amount,
  reference,
  description: 'test',
});
const spend = async (team: number, amount: number, reference?: string) =>
  answered(await call('/api/v1/credits/spend', spendBody(team, amount, reference)));
const refund = async (team: number, reference: string, part?: { refund_reference: string; amount: number }) =>
  answered(await call('/api/v1/credits/refund', { app: APP, team_id: team, reference, ...part }));

describe('spends', () => {
  it('needs the key', async () => {
    const team = await newTeam(10);
    expect(answered(await call('/api/v1/credits/spend', spendBody(team, 1), { key: null })).status).toBe(401);
    expect(await control.spends(team)).toEqual([]);
  });

  it('charges a reference once: a repeat with the same amount gets the first answer', async () => {
    const team = await newTeam(10);
    const first = await spend(team, 3, 'ref-a');
    const again = await spend(team, 3, 'ref-a');
    expect(first).toMatchObject({ status: 200, body: { transaction_id: expect.any(String), balance: 7 } });
    expect(again.body).toEqual(first.body);
    expect(await control.balance(team)).toBe(7);
  });

  it('refuses a repeated reference with another amount (409) and changes nothing', async () => {
    const team = await newTeam(10);
    await spend(team, 3, 'ref-a');
    const other = await spend(team, 4, 'ref-a');
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'conflict', detail: expect.stringContaining('ref-a') });
    expect(await control.spends(team)).toEqual([{ reference: 'ref-a', amount: 3, refunded: 0, refunds: [] }]);
    expect(await control.balance(team)).toBe(7);
  });

  it('remembers a refusal: the same reference stays refused after a top-up, a new one is charged', async () => {
    const team = await newTeam(1);
    const refused = await spend(team, 2, 'ref-a');
    expect(refused).toMatchObject({
      status: 402,
      body: { error: 'insufficient_credits', balance: 1, required: 2, buy_url: fake.buyUrl },
    });
    await control.setBalance(team, 10);
    const again = await spend(team, 2, 'ref-a');
    expect(again.status).toBe(402);
    expect(again.body).toEqual(refused.body);
    expect((await spend(team, 5, 'ref-a')).status).toBe(409);
    expect((await spend(team, 2, 'ref-b')).status).toBe(200);
    expect((await control.spends(team)).map((s) => s.reference)).toEqual(['ref-b']);
    expect(await control.balance(team)).toBe(8);
  });
});

describe('refunds', () => {
  it('gives back parts, refuses a part larger than what is left (409), and a whole refund gives back the rest', async () => {
    const team = await newTeam(10);
    await spend(team, 5, 'ref-a');
    expect((await refund(team, 'ref-a', { refund_reference: 'ref-a:p1', amount: 2 })).body).toMatchObject({
      refunded: true,
      amount: 2,
      balance: 7,
    });
    const over = await refund(team, 'ref-a', { refund_reference: 'ref-a:p2', amount: 4 });
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ error: 'conflict', detail: expect.stringContaining('only 3') });
    const rest = await refund(team, 'ref-a');
    expect(rest.body).toMatchObject({ refunded: true, amount: 3, balance: 10 });
    // Repeats get their first answers; nothing more is given back.
    expect((await refund(team, 'ref-a')).body).toEqual(rest.body);
    expect((await refund(team, 'ref-a', { refund_reference: 'ref-a:p1', amount: 2 })).body.amount).toBe(2);
    expect((await refund(team, 'ref-a', { refund_reference: 'ref-a:p1', amount: 1 })).status).toBe(409);
    expect((await refund(team, 'ref-a', { refund_reference: 'ref-a:p3', amount: 1 })).status).toBe(409);
    expect(await control.spends(team)).toEqual([
      { reference: 'ref-a', amount: 5, refunded: 5, refunds: ['ref-a:p1', 'ref-a'] },
    ]);
    expect(await control.balance(team)).toBe(10);
  });

  it('answers 404 for a reference the team never spent, or was refused', async () => {
    const team = await newTeam(1);
    await spend(team, 2, 'ref-refused');
    expect((await refund(team, 'ref-refused')).body).toEqual({ error: 'unknown_reference' });
    expect((await refund(team, 'ref-never')).status).toBe(404);
    await spend(team, 1, 'ref-a');
    expect((await refund(await newTeam(0), 'ref-a')).status).toBe(404);
  });
});

describe('calls on one key', () => {
  it('are served one after the other: a call during a slow one waits for it, other keys do not', async () => {
    const team = await newTeam(10);
    await control.failNext('slow', 1, team, '/api/v1/credits/spend', { delayMs: 400 });
    const started = Date.now();
    const slow = call('/api/v1/credits/spend', spendBody(team, 3, 'ref-a'));
    await new Promise((r) => setTimeout(r, 50));
    const sameAmount = call('/api/v1/credits/spend', spendBody(team, 3, 'ref-a'));
    const otherAmount = call('/api/v1/credits/spend', spendBody(team, 4, 'ref-a'));
    const otherKey = answered(await call('/api/v1/credits/spend', spendBody(team, 1, 'ref-b')));
    const [first, second, third] = (await Promise.all([slow, sameAmount, otherAmount])).map(answered);

    expect(otherKey.at - started).toBeLessThan(300);
    expect(first).toMatchObject({ status: 200, body: { balance: expect.any(Number) } });
    expect(first.at - started).toBeGreaterThanOrEqual(390);
    // Both waited for the slow call and got the ledger's answer after it: the first answer, or a conflict.
    expect(second.at).toBeGreaterThanOrEqual(first.at);
    expect(second.body).toEqual(first.body);
    expect(third.status).toBe(409);
    // The other key was charged while the slow call was still in progress.
    expect(await control.spends(team)).toEqual([
      { reference: 'ref-b', amount: 1, refunded: 0, refunds: [] },
      { reference: 'ref-a', amount: 3, refunded: 0, refunds: [] },
    ]);
  });
});

describe('answers lost', () => {
  it("'lost' applies the spend at once and never answers", async () => {
    const team = await newTeam(10);
    await control.failNext('lost', 1, team);
    expect(await call('/api/v1/credits/spend', spendBody(team, 3, 'ref-a'), { giveUpAfterMs: 200 })).toBe('gave up');
    expect(await control.spends(team)).toEqual([{ reference: 'ref-a', amount: 3, refunded: 0, refunds: [] }]);
  });

  it("'late' holds every attempt of a call and applies the spend once, after the client gave up", async () => {
    const team = await newTeam(10);
    await control.failNext('late', 2, team, '/api/v1/credits/spend', { delayMs: 400 });
    const body = spendBody(team, 3, 'ref-a');
    // A client's call: an attempt, its timeout, a retry of the same reference, its timeout.
    expect(await call('/api/v1/credits/spend', body, { giveUpAfterMs: 100 })).toBe('gave up');
    expect(await call('/api/v1/credits/spend', body, { giveUpAfterMs: 100 })).toBe('gave up');
    expect(await control.spends(team)).toEqual([]);
    expect((await refund(team, 'ref-a')).status).toBe(404);

    await control.lateApplied(team);
    expect(await control.spends(team)).toEqual([{ reference: 'ref-a', amount: 3, refunded: 0, refunds: [] }]);
    expect(await control.balance(team)).toBe(7);
    // Asked again later: the first answer, no second charge.
    const again = await spend(team, 3, 'ref-a');
    expect(again).toMatchObject({ status: 200, body: { balance: 7 } });
    expect(await control.balance(team)).toBe(7);
  });

  it("'late': a repeat that comes before the late application applies it, and the late one finds it applied", async () => {
    const team = await newTeam(10);
    await control.failNext('late', 1, team, '/api/v1/credits/spend', { delayMs: 300 });
    expect(await call('/api/v1/credits/spend', spendBody(team, 3, 'ref-a'), { giveUpAfterMs: 50 })).toBe('gave up');
    const early = await spend(team, 3, 'ref-a');
    expect(early).toMatchObject({ status: 200, body: { balance: 7 } });
    await control.lateApplied(team);
    expect(await control.spends(team)).toEqual([{ reference: 'ref-a', amount: 3, refunded: 0, refunds: [] }]);
    expect(await control.balance(team)).toBe(7);
    expect((await spend(team, 3, 'ref-a')).body).toEqual(early.body);
  });

  it("'late' for a team that cannot pay: the refusal lands late and is remembered", async () => {
    const team = await newTeam(1);
    await control.failNext('late', 1, team, '/api/v1/credits/spend', { delayMs: 100 });
    expect(await call('/api/v1/credits/spend', spendBody(team, 3, 'ref-a'), { giveUpAfterMs: 50 })).toBe('gave up');
    await control.lateApplied(team);
    await control.setBalance(team, 10);
    expect((await spend(team, 3, 'ref-a')).status).toBe(402);
    expect(await control.spends(team)).toEqual([]);
  });
});

describe('control API', () => {
  it('refuses an unknown failure mode and drops a team’s pending failures on recover', async () => {
    await expect(control.failNext('bogus' as never, 1, 1)).rejects.toThrow(/400.*mode must be one of/);
    const team = await newTeam(10);
    await control.failNext('500', 3, team);
    await control.recover(team);
    expect((await spend(team, 1)).status).toBe(200);
    expect((await control.requests(team)).map((r) => r.answered)).toEqual([200]);
  });
});
