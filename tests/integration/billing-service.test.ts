/**
 * Prepaid billing against a fake billing service over real HTTP (spec: Limits >
 * Credit prices and charging; States, process/402/refund rows; Errors, 402 and
 * fail-open rules). The real client and the real job/claim repositories run
 * against the embedded DynamoDB; only the billing service is a fake.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { chargeJobUpFront, refundJob } from '../../lib/billing/charge-service';
import { finalizeJobBilling } from '../../lib/billing/finalize-service';
import { jobCharge } from '../../lib/billing/credit-rules';
import { jobChargeReference } from '../../lib/billing/ledger-rules';
import { settleJobBilling } from '../../lib/billing/settlement-service';
import { unstartedRoundLeaseMs, unbilledRefund } from '../../lib/billing/settlement-rules';
import { chargedRoundStart, recordSpendRequest } from '../../lib/billing/charge-store';
import { settlePendingEntry } from '../../lib/billing/sweep-service';
import { owedFields } from '../../lib/billing/settlement-store';
import { getBillingSummary, getTeamCreditsBalance } from '../../lib/billing/summary-service';
import { archiveClaimRecord } from '../../lib/claims/service';
import { addClaimSpend, getClaim, putNewClaim } from '../../lib/claims/store';
import type { Claim } from '../../lib/claims/claim-record-rules';
import { loadSettings, resetSettings, settings, type SettingsInput } from '../../lib/config';
import { InsufficientCreditsError } from '../../lib/errors';
import { REFUND_PATH, SPEND_PATH } from '../../lib/integrations/billing-contract';
import { BillingServiceClient, DEFAULT_DEADLINE_MS } from '../../lib/integrations/billing-service';
import { getJob, putNewJob, updateJob } from '../../lib/jobs/job-store';
import { newJobRecord, type Job } from '../../lib/jobs/job-record-rules';
import { logger } from '../../lib/observability/logger';
import { startJob } from '../../lib/orchestrator/engine';
import { pipelineRefForSource } from '../../lib/orchestrator/pipeline-catalog';
import { createTeam } from '../../lib/teams/store';
import type { Team } from '../../lib/teams/team-record-rules';
import { createUser } from '../../lib/users/store';
import type { User } from '../../lib/users/user-record-rules';
import { startFakeBillingServer, type FailureMode, type FakeBillingServer } from '../fakes/billing-server';
import { getRow, setFields } from '../support/aws';
import { useOwnStage } from '../support/stage';

const APP = 'contents-inventory-test';
let fake: FakeBillingServer;

/** Settings as the service would load them, with billing switched as given. */
function configure(env: Record<string, string>, overrides: SettingsInput = {}) {
  resetSettings(
    loadSettings({
      env: {
        ...process.env,
        ENABLE_BILLING: 'true',
        BILLING_APP_DOMAIN: fake.url,
        BILLING_APP_API_KEY: fake.apiKey,
        BILLING_EXTERNAL_APP: APP,
        ...env,
      },
      overrides,
    }),
  );
}

/** The real client from the current settings, with short timeouts so outage tests stay quick. */
const quickClient = () => BillingServiceClient.fromSettings(settings(), { timeoutMs: 400, backoffMs: 10 });

interface World {
  team: Team;
  user: User;
  claim: Claim;
}

async function world(options: { externalId?: number | null; balance?: number } = {}): Promise<World> {
  const externalId = options.externalId === undefined ? randomInt(100_000, 2_000_000_000) : options.externalId;
  const team = await createTeam({
    external_id: externalId,
    name: `Billing ${externalId}`,
    team_token: null,
    estimation_platform_key: null,
  });
  const user = await createUser(
    { external_id: String(randomInt(100_000, 2_000_000_000)), name: 'Biller', email: null, team_id: team.id },
    false,
  );
  const claim = await putNewClaim(team.id, user.id, { claim_number: `BILL-${randomInt(1, 1_000_000)}` });
  if (externalId !== null && options.balance !== undefined) fake.setBalance(externalId, options.balance, APP);
  return { team, user, claim };
}

async function newJob(
  w: World,
  sourceType: Job['source_type'] = 'video',
  status: Job['status'] = 'awaiting_confirmation',
): Promise<Job> {
  const job = newJobRecord({
    room: { id: randomUUID(), claim_id: w.claim.id, team_id: w.team.id },
    userId: w.user.id,
    sourceType,
    status,
  });
  return putNewJob({ ...job, duration: 90 });
}

const jobRow = (id: string) => getRow(`JOB#${id}`, 'JOB');

/**
 * What a row says about the job's charge. A spend asked for is recorded before the call (billing_spend_round), and
 * one that cannot have charged (refused, never reached the service) clears it again: the charge fields are as before.
 */
const billingOf = (row: Record<string, any> | null) => ({
  status: row?.status,
  billing_charged: row?.billing_charged,
  billing_txn_id: row?.billing_txn_id,
  billing_amount: row?.billing_amount,
  billing_rounds: row?.billing_rounds,
  billing_refunded: row?.billing_refunded,
  billing_unconfirmed: row?.billing_unconfirmed,
  refunds_owed: row?.refunds_owed,
  billing_spend_round: row?.billing_spend_round ?? null,
});

beforeAll(async () => {
  // Its own table: the local service's billing sweep settles pending jobs with the run's shared fake, which
  // holds none of this suite's spends and would drop their refunds mid-test.
  await useOwnStage('billing');
  fake = await startFakeBillingServer({ app: APP });
});
afterAll(async () => {
  await fake.stop();
  resetSettings();
});
beforeEach(() => {
  fake.reset();
  configure({});
  jest.spyOn(logger, 'info').mockImplementation(() => undefined);
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  jest.spyOn(logger, 'debug').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('up-front charge', () => {
  it('spends through the billing service and records the charge on the job', async () => {
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    const credits = jobCharge({ sourceType: 'video', durationSeconds: job.duration }).credits;
    expect(credits).toBe(15); // 90 s = 5 blocks × 3

    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits });
    expect(outcome).toMatchObject({ charged: true, reference: `job:${job.id}:1`, balance: 85 });
    expect(fake.balance(w.team.external_id!, APP)).toBe(85);

    const [spend] = fake.requestsTo(SPEND_PATH);
    expect(spend.method).toBe('POST');
    expect(spend.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(spend.body).toEqual({
      app: APP,
      team_id: w.team.external_id,
      user_id: w.user.external_id,
      amount: 15,
      reference: `job:${job.id}:1`,
      description: expect.stringContaining(job.id),
    });

    const stored = (await getJob(job.id))!;
    expect(stored).toMatchObject({
      billing_charged: true,
      billing_txn_id: outcome.charged ? outcome.transactionId : 'x',
      billing_amount: 15,
      billing_rounds: 1,
      billing_refunded: false,
      status: 'awaiting_confirmation',
    });
  });

  it('answers a flat refusal with 402 and the exact body, leaving the job uncharged', async () => {
    const w = await world({ balance: 4 });
    const job = await newJob(w);
    const before = await jobRow(job.id);

    const err = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expect((err as InsufficientCreditsError).code).toBe('insufficient_credits');
    expect((err as InsufficientCreditsError).message).toBe('Insufficient credits');
    expect((err as InsufficientCreditsError).body).toStrictEqual({
      error: 'insufficient_credits',
      credits_balance: 4,
      required_amount: 15,
      buy_url: fake.buyUrl,
    });

    expect(billingOf(await jobRow(job.id))).toStrictEqual(billingOf(before));
    expect(fake.balance(w.team.external_id!, APP)).toBe(4);
  });

  it('charges a reference once however often it is spent', async () => {
    const w = await world({ balance: 50 });
    const client = quickClient();
    const request = {
      teamId: w.team.external_id!,
      userId: w.user.external_id,
      amount: 10,
      reference: `job:${randomUUID()}:1`,
      description: 'test',
    };
    const first = await client.spend(request);
    const second = await client.spend(request);
    expect(first).toMatchObject({ outcome: 'charged', balance: 40 });
    expect(second).toEqual(first);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(2);
  });

  it('charges once and records once when two confirms race', async () => {
    const w = await world({ balance: 50 });
    const job = await newJob(w);
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 })),
    );
    expect(outcomes.every((o) => o.charged)).toBe(true);
    expect(new Set(outcomes.map((o) => (o.charged ? o.transactionId : null))).size).toBe(1);
    expect(fake.balance(w.team.external_id!, APP)).toBe(35);
    expect(await getJob(job.id)).toMatchObject({ billing_rounds: 1, billing_amount: 15, billing_charged: true });
  });

  it('does not charge again for a confirm that read the job before a racing confirm charged it', async () => {
    const w = await world({ balance: 50 });
    const job = await newJob(w);
    const first = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    const late = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }); // same (stale) read
    expect(late).toMatchObject({
      charged: true,
      reference: `job:${job.id}:1`,
      transactionId: first.charged ? first.transactionId : 'x',
    });
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(1);
    expect(fake.balance(w.team.external_id!, APP)).toBe(35);
  });

  it('never takes a reference refused for another amount (409) as charged: the call is rejected, once, and cannot have charged', async () => {
    const w = await world({ balance: 50 });
    const client = quickClient();
    const request = {
      teamId: w.team.external_id!,
      userId: w.user.external_id,
      amount: 10,
      reference: `job:${randomUUID()}:1`,
      description: 'test',
    };
    await client.spend(request);
    const other = await client.spend({ ...request, amount: 12 });
    expect(other).toMatchObject({
      outcome: 'unavailable',
      error: { reason: 'rejected', status: 409, mayHaveApplied: false },
    });
    expect(fake.requestsTo(SPEND_PATH).map((r) => r.answered)).toEqual([200, 409]);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
  });

  it('recovers from one transient 5xx by retrying the same reference', async () => {
    const w = await world({ balance: 20 });
    const job = await newJob(w);
    fake.failNext('500');
    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(outcome.charged).toBe(true);
    expect(fake.requestsTo(SPEND_PATH).map((r) => r.answered)).toEqual(['500', 200]);
    expect(new Set(fake.requestsTo(SPEND_PATH).map((r) => r.body.reference)).size).toBe(1);
    expect(fake.balance(w.team.external_id!, APP)).toBe(5);
  });

  it('charges an errored job again in a new round after its refund', async () => {
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect((await refundJob(job)).refunded).toBe(true);
    expect(fake.balance(w.team.external_id!, APP)).toBe(100);

    // The caller's copy is stale (billing_rounds 0): the round comes from the stored job.
    const again = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(again).toMatchObject({ charged: true, reference: jobChargeReference(job.id, 2) });
    expect(fake.balance(w.team.external_id!, APP)).toBe(85);
    expect(await getJob(job.id)).toMatchObject({ billing_rounds: 2, billing_charged: true, billing_refunded: false });
  });
});

describe('fail open', () => {
  it.each<[string, FailureMode, string]>([
    ['a 500 on every attempt', '500', 'server_error'],
    ['a hang (timeout) on every attempt', 'hang', 'timeout'],
    ['a 200 with an empty body on every attempt', 'empty', 'unreadable'],
    ['a 200 with an unreadable body on every attempt', 'garbage', 'unreadable'],
    ['a connection reset on every attempt', 'reset', 'network'],
  ])(
    'proceeds on %s with the spend unconfirmed, then settles it with the same reference',
    async (_label, mode, reason) => {
      const w = await world({ balance: 100 });
      const job = await newJob(w);
      fake.failNext(mode, 3);

      const outcome = await chargeJobUpFront(
        { job, team: w.team, user: w.user, credits: 15 },
        { client: quickClient() },
      );
      expect(outcome).toMatchObject({
        charged: true,
        unconfirmed: true,
        transactionId: null,
        reference: `job:${job.id}:1`,
      });
      expect(fake.requestsTo(SPEND_PATH)).toHaveLength(3);
      expect(logger.error).toHaveBeenCalledWith(
        expect.stringContaining('failing open'),
        expect.objectContaining({ job_id: job.id, reason }),
      );
      const [, fields] = (logger.error as jest.Mock).mock.calls.find(([m]) => String(m).includes('failing open'));
      expect(fields.error).toMatch(/^billing service unreachable: POST \/api\/v1\/credits\/spend/);
      // The service may have charged: the job says so, and waits in the pending-billing index.
      expect(await jobRow(job.id)).toMatchObject({
        billing_charged: true,
        billing_unconfirmed: true,
        billing_txn_id: null,
        billing_rounds: 1,
        billing_amount: 15,
        archpk: 'BILLING#PENDING',
      });
      expect(fake.balance(w.team.external_id!, APP)).toBe(100);

      // Asked again with the same reference, the service charges the run once.
      expect(await settleJobBilling(job.id)).toMatchObject({ state: 'settled' });
      expect(fake.balance(w.team.external_id!, APP)).toBe(85);
      expect(new Set(fake.requestsTo(SPEND_PATH).map((r) => r.body.reference))).toEqual(new Set([`job:${job.id}:1`]));
      const row = await jobRow(job.id);
      expect(row).toMatchObject({
        billing_charged: true,
        billing_unconfirmed: false,
        billing_txn_id: expect.stringMatching(/^txn_/),
        // Still listed: its round is charged and its run not started, so the sweep watches its lease.
        archpk: 'BILLING#PENDING',
      });
    },
  );

  it('proceeds uncharged on a 401 (wrong key), which is not retried and cannot have charged', async () => {
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    const before = await jobRow(job.id);
    fake.failNext('401', 3);
    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(outcome).toMatchObject({ charged: false, reason: 'unavailable' });
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(1);
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('failing open'),
      expect.objectContaining({ job_id: job.id, reason: 'rejected' }),
    );
    expect(billingOf(await jobRow(job.id))).toStrictEqual(billingOf(before));
    expect(fake.balance(w.team.external_id!, APP)).toBe(100);
  });

  it('records a spend the service made but whose answer was lost as charged, and never charges it twice', async () => {
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    fake.failNext('lost', 3); // every attempt is applied (once: same reference) and never answered

    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(outcome).toMatchObject({ charged: true, unconfirmed: true });
    expect(fake.balance(w.team.external_id!, APP)).toBe(85);
    expect(await getJob(job.id)).toMatchObject({
      billing_charged: true,
      billing_unconfirmed: true,
      billing_refunded: false,
    });

    // Settlement asks again with the same key: the service answers the first spend, charging nothing more.
    expect(await settleJobBilling(job.id)).toMatchObject({ state: 'settled' });
    const [spend] = fake.spends(w.team.external_id!, APP);
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 15, refunded: 0, refunds: [] },
    ]);
    expect(fake.balance(w.team.external_id!, APP)).toBe(85);
    expect(await getJob(job.id)).toMatchObject({
      billing_unconfirmed: false,
      billing_txn_id: expect.stringMatching(/^txn_/),
    });
    expect(spend.reference).toBe(jobChargeReference(job.id, 1));

    // A failed run is refunded once.
    expect(await refundJob(job)).toMatchObject({ refunded: true });
    expect(fake.balance(w.team.external_id!, APP)).toBe(100);
  });

  it('refunds a failed run whose spend is still unconfirmed by confirming it first: never a refund of a spend still in flight', async () => {
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    fake.failNext('lost', 3);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(await refundJob(job)).toMatchObject({
      refunded: true,
      job: { billing_refunded: true, billing_unconfirmed: false, refund_state: 'done' },
    });
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 15, refunded: 15, refunds: [`job:${job.id}:1`] },
    ]);
    expect(fake.balance(w.team.external_id!, APP)).toBe(100);
  });

  it('proceeds uncharged with the wrong key configured (401)', async () => {
    configure({ BILLING_APP_API_KEY: 'not-the-key' });
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(outcome).toMatchObject({ charged: false, reason: 'unavailable' });
    expect(fake.requestsTo(SPEND_PATH).map((r) => r.answered)).toEqual([401]);
  });

  it('proceeds uncharged when nothing listens at the configured address', async () => {
    const closed = await startFakeBillingServer();
    await closed.stop();
    configure({ BILLING_APP_DOMAIN: closed.url });
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(outcome).toMatchObject({ charged: false, reason: 'unavailable' });
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('failing open'),
      expect.objectContaining({ reason: 'network' }),
    );
  });

  it.each([
    ['billing off', { ENABLE_BILLING: 'false' }, 'billing_off'],
    ['a missing domain', { BILLING_APP_DOMAIN: '' }, 'config_gap'],
    ['a missing key', { BILLING_APP_API_KEY: '' }, 'config_gap'],
  ])('makes no call with %s', async (_label, env, reason) => {
    configure(env);
    const w = await world({ balance: 100 });
    const job = await newJob(w);
    expect(await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 })).toMatchObject({
      charged: false,
      reason,
    });
    expect(fake.requests).toHaveLength(0);
    if (reason === 'config_gap') expect(logger.warn).toHaveBeenCalled();
  });

  it('makes no call for a zero cost or a team with no external id', async () => {
    const w = await world({ balance: 100 });
    expect(await chargeJobUpFront({ job: await newJob(w), team: w.team, user: w.user, credits: 0 })).toMatchObject({
      charged: false,
      reason: 'zero_cost',
    });
    const orphan = await world({ externalId: null });
    expect(
      await chargeJobUpFront({ job: await newJob(orphan), team: orphan.team, user: orphan.user, credits: 15 }),
    ).toMatchObject({ charged: false, reason: 'no_team_external_id' });
    expect(fake.requests).toHaveLength(0);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('no external id'), expect.anything());
  });
});

describe('deadline', () => {
  it('keeps a whole call, retries included, well inside the 29 s of an HTTP function', () => {
    const client = BillingServiceClient.fromSettings(settings());
    expect(client.deadlineMs).toBe(DEFAULT_DEADLINE_MS);
    expect(client.deadlineMs).toBeLessThanOrEqual(20_000);
    expect(client.timeoutMs).toBeLessThan(client.deadlineMs);
  });

  it('answers unavailable (fail open) from a hung service once the deadline is spent, however many retries are left', async () => {
    const client = BillingServiceClient.fromSettings(settings(), {
      deadlineMs: 300,
      timeoutMs: 5_000,
      retries: 4,
      backoffMs: 10,
    });
    fake.failNext('hang', 5);
    const result = await client.spend({
      teamId: 1,
      userId: null,
      amount: 1,
      reference: `deadline:${randomUUID()}`,
      description: 'hung',
    });
    expect(result).toMatchObject({ outcome: 'unavailable', error: { reason: 'timeout', mayHaveApplied: true } });
    // The deadline cut the first attempt; no retry was started past it.
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(1);
  });
});

describe('base URL', () => {
  it('uses a full base URL as given', async () => {
    configure({ BILLING_APP_DOMAIN: `${fake.url}/` });
    const w = await world({ balance: 30 });
    const outcome = await chargeJobUpFront({ job: await newJob(w), team: w.team, user: w.user, credits: 15 });
    expect(outcome.charged).toBe(true);
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(1);
  });

  it('treats a bare domain as https (the plain-HTTP fake cannot answer it, so the job fails open)', async () => {
    configure({ BILLING_APP_DOMAIN: fake.host });
    expect(quickClient().baseUrl).toBe(`https://${fake.host}`);
    const w = await world({ balance: 30 });
    const job = await newJob(w);
    const outcome = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 }, { client: quickClient() });
    expect(outcome).toMatchObject({ charged: false, reason: 'unavailable' });
    expect(fake.requestsTo(SPEND_PATH)).toHaveLength(0);
    expect(fake.balance(w.team.external_id!, APP)).toBe(30);
  });
});

describe('refund', () => {
  it('refunds once, records billing_refunded, and a second refund makes no call', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(fake.balance(w.team.external_id!, APP)).toBe(25);

    const first = await refundJob(job);
    expect(first).toMatchObject({ refunded: true, job: { billing_refunded: true, billing_charged: true } });
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
    expect(fake.requestsTo(REFUND_PATH).map((r) => r.body)).toEqual([
      { app: APP, team_id: w.team.external_id, reference: `job:${job.id}:1` },
    ]);
    const after = await jobRow(job.id);

    const second = await refundJob(job);
    expect(second).toMatchObject({ refunded: false, reason: 'already_refunded' });
    expect(fake.requestsTo(REFUND_PATH)).toHaveLength(1);
    expect(await jobRow(job.id)).toStrictEqual(after);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
  });

  it('restores the amount only once when refunds race (the service is idempotent per reference)', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    const outcomes = await Promise.all([refundJob(job), refundJob(job), refundJob(job)]);
    expect(outcomes.filter((o) => o.refunded)).toHaveLength(1);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
    expect((await getJob(job.id))?.billing_refunded).toBe(true);
  });

  it('does nothing for a job that was never charged', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    expect(await refundJob(job)).toMatchObject({ refunded: false, reason: 'not_charged' });
    expect(fake.requests).toHaveLength(0);
  });

  it('logs a failed refund and never raises; a later refund still works', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    fake.failNext('500', 3);

    const failed = await refundJob(job, { client: quickClient() });
    expect(failed).toMatchObject({ refunded: false, reason: 'unavailable' });
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringContaining('refund failed'),
      expect.objectContaining({ job_id: job.id, reason: 'server_error' }),
    );
    expect(await getJob(job.id)).toMatchObject({ billing_charged: true, billing_refunded: false });
    expect(fake.balance(w.team.external_id!, APP)).toBe(25);

    expect((await refundJob(job)).refunded).toBe(true);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
  });

  it('never raises even when the service is unreachable and the call times out', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    fake.failNext('hang', 3);
    await expect(refundJob(job, { client: quickClient() })).resolves.toMatchObject({
      refunded: false,
      reason: 'unavailable',
    });
  });
});

describe('refunds owed', () => {
  it('keeps a refund the service did not confirm owed on the job, and settles it exactly once later', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    fake.failNext('500', 3);

    expect(await refundJob(job, { client: quickClient() })).toMatchObject({ refunded: false, reason: 'unavailable' });
    expect(await jobRow(job.id)).toMatchObject({
      billing_refunded: false,
      refund_state: 'pending',
      refunds_owed: [{ round: 1, reference: `job:${job.id}:1`, spend_reference: `job:${job.id}:1`, amount: null }],
      archpk: 'BILLING#PENDING',
    });
    expect(fake.balance(w.team.external_id!, APP)).toBe(25);

    expect(await settleJobBilling(job.id)).toMatchObject({ state: 'settled', refundedWhole: true });
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ billing_refunded: true, refund_state: 'done', refunds_owed: [] });
    expect(row).not.toHaveProperty('archpk');
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);

    const calls = fake.requestsTo(REFUND_PATH).length;
    expect(await settleJobBilling(job.id)).toMatchObject({ state: 'none' });
    expect(fake.requestsTo(REFUND_PATH)).toHaveLength(calls);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
  });

  it('gives back only the unbilled part of a spend, under its own reference, once', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w, 'photo');
    const charged = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 3 });
    const owed = unbilledRefund(charged.job, 1);
    expect(owed).toEqual({
      round: 1,
      spend_reference: `job:${job.id}:1`,
      reference: `job:${job.id}:1:adjust`,
      amount: 2,
    });
    const fields = owedFields(charged.job, [owed]);
    await updateJob(job.id, ['billing'], { set: fields.set, add: fields.add });

    await Promise.all([settleJobBilling(job.id), settleJobBilling(job.id)]);
    expect(fake.balance(w.team.external_id!, APP)).toBe(39);
    expect(fake.requestsTo(REFUND_PATH)[0].body).toEqual({
      app: APP,
      team_id: w.team.external_id,
      reference: `job:${job.id}:1`,
      refund_reference: `job:${job.id}:1:adjust`,
      amount: 2,
    });
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 3, refunded: 2, refunds: [`job:${job.id}:1:adjust`] },
    ]);
    // The run was charged and billed: only the unbilled part went back.
    expect(await getJob(job.id)).toMatchObject({
      billing_charged: true,
      billing_refunded: false,
      refund_state: 'done',
      refunds_owed: [],
    });
    // Owed again (a repeated completion), it is still given back once: the service refunds a reference once.
    const again = owedFields((await getJob(job.id))!, [owed]);
    await updateJob(job.id, ['billing'], { set: again.set, add: again.add });
    expect(await settleJobBilling(job.id)).toMatchObject({ state: 'settled' });
    expect(fake.balance(w.team.external_id!, APP)).toBe(39);
  });
});

describe('a round charged and never started', () => {
  const testPipeline = pipelineRefForSource('video')!;
  /** What a request that died after the charge leaves once the round's lease has run out. */
  const ageCharge = (jobId: string) =>
    setFields(`JOB#${jobId}`, 'JOB', {
      billing_charged_at: new Date(Date.now() - unstartedRoundLeaseMs() - 1000).toISOString(),
    });

  it('is listed from its charge, left alone while its lease holds, then given back once and taken off the index', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(await jobRow(job.id)).toMatchObject({
      billing_round_started: false,
      billing_charged_at: expect.any(String),
      archpk: 'BILLING#PENDING',
    });
    expect(await settlePendingEntry({ kind: 'job', jobId: job.id })).toBe('waiting');
    expect(fake.requestsTo(REFUND_PATH)).toHaveLength(0);

    await ageCharge(job.id);
    await Promise.all([
      settlePendingEntry({ kind: 'job', jobId: job.id }),
      settlePendingEntry({ kind: 'job', jobId: job.id }),
    ]);
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 15, refunded: 15, refunds: [`job:${job.id}:1`] },
    ]);
    const row = await jobRow(job.id);
    expect(row).toMatchObject({
      status: 'awaiting_confirmation',
      billing_refunded: true,
      billing_round_abandoned: true,
      refund_state: 'done',
    });
    expect(row).not.toHaveProperty('archpk');
    expect(await settlePendingEntry({ kind: 'job', jobId: job.id })).toBe('none');
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);

    // The next start charges a new round under a new reference.
    const again = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(again).toMatchObject({ charged: true, reference: jobChargeReference(job.id, 2) });
    expect(fake.balance(w.team.external_id!, APP)).toBe(25);
  });

  it('is given back by the next start once its lease has run out, which then charges a new round', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    await ageCharge(job.id);
    const again = await chargeJobUpFront({ job, team: w.team, user: w.user, credits: 15 });
    expect(again).toMatchObject({ charged: true, reference: jobChargeReference(job.id, 2) });
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 15, refunded: 15, refunds: [`job:${job.id}:1`] },
      { reference: `job:${job.id}:2`, amount: 15, refunded: 0, refunds: [] },
    ]);
  });

  it('is never both started on and given back: the start write and the give-back race on the job row', async () => {
    const w = await world({ balance: 40 });
    // Given back first (its refund even still owed: billing is down for it): a start on it is refused.
    const abandoned = await newJob(w);
    const charged = await chargeJobUpFront({ job: abandoned, team: w.team, user: w.user, credits: 15 });
    await ageCharge(abandoned.id);
    fake.failNext('500', 3);
    expect(await settleJobBilling(abandoned.id, { client: quickClient() })).toMatchObject({ state: 'pending' });
    expect(await jobRow(abandoned.id)).toMatchObject({ billing_refunded: false, billing_round_abandoned: true });
    const write = chargedRoundStart(charged.job.billing_rounds);
    expect(await startJob(charged.job, testPipeline, write.set, write.guards)).toBeNull();
    // Nor is the round used again by the next start: it charges round 2.
    const next = await chargeJobUpFront({ job: abandoned, team: w.team, user: w.user, credits: 15 });
    expect(next).toMatchObject({ charged: true, reference: jobChargeReference(abandoned.id, 2) });

    // Started first: the give-back loses and nothing is refunded.
    const started = await newJob(w);
    const run = await chargeJobUpFront({ job: started, team: w.team, user: w.user, credits: 5 });
    const start = chargedRoundStart(run.job.billing_rounds);
    expect(await startJob(run.job, testPipeline, start.set, start.guards)).toMatchObject({ status: 'pending' });
    await ageCharge(started.id);
    expect(await settlePendingEntry({ kind: 'job', jobId: started.id })).toBe('none');
    expect(await jobRow(started.id)).not.toHaveProperty('archpk');
    expect(fake.spends(w.team.external_id!, APP).find((s) => s.reference === `job:${started.id}:1`)).toEqual({
      reference: `job:${started.id}:1`,
      amount: 5,
      refunded: 0,
      refunds: [],
    });
  });
});

describe('a spend whose answer was never recorded', () => {
  // A Process click ended between the spend and its record (asked again within the lease, given back after it) goes
  // through the real route to its fault point: tests/integration/unstarted-job-charge.test.ts.
  const ageRequest = (jobId: string) =>
    setFields(`JOB#${jobId}`, 'JOB', {
      billing_charged_at: new Date(Date.now() - unstartedRoundLeaseMs() - 1000).toISOString(),
    });

  it('leaves the ledger even when the spend was never made: asked again, then given back whole', async () => {
    const w = await world({ balance: 40 });
    const job = await newJob(w);
    // The request recorded the spend it was about to ask for, then died before the call.
    await recordSpendRequest(job.id, { previous: 0, round: 1, amount: 15 });
    await ageRequest(job.id);
    expect(await settlePendingEntry({ kind: 'job', jobId: job.id })).toBe('settled');
    expect(fake.spends(w.team.external_id!, APP)).toEqual([
      { reference: `job:${job.id}:1`, amount: 15, refunded: 15, refunds: [`job:${job.id}:1`] },
    ]);
    expect(fake.balance(w.team.external_id!, APP)).toBe(40);
  });
});

describe('finalize', () => {
  it('records the billed credits once and adds them to the claim once, even when called concurrently', async () => {
    const w = await world();
    const job = await newJob(w);
    const charge = jobCharge({ sourceType: 'video', durationSeconds: 90 });
    const outcomes = await Promise.all([finalizeJobBilling(job, charge), finalizeJobBilling(job, charge)]);
    expect(outcomes.filter((o) => o.finalized)).toHaveLength(1);
    expect(await getJob(job.id)).toMatchObject({
      billed_cost_usd: 15,
      billed_blocks: 5,
      billed_minutes: 2,
      billing_finalized_at: expect.any(String),
    });
    expect((await getClaim(w.claim.id, true))?.spend_credits).toBe(15);

    expect((await finalizeJobBilling(job, charge)).finalized).toBe(false);
    expect((await getClaim(w.claim.id, true))?.spend_credits).toBe(15);
  });

  it('records 0 credits but the basis for an enterprise job', async () => {
    const w = await world();
    const job = await newJob(w, 'audio');
    const outcome = await finalizeJobBilling(
      job,
      jobCharge({ sourceType: 'audio', durationSeconds: 90, enterprise: true }),
    );
    expect(outcome.job).toMatchObject({ billed_cost_usd: 0, billed_blocks: 5, billed_minutes: 2 });
    expect((await getClaim(w.claim.id, true))?.spend_credits).toBe(0);
  });
});

describe('billing summary', () => {
  it('adds up active and archived claims and reports the balance with billing on', async () => {
    const w = await world({ balance: 77 });
    const archived = await putNewClaim(w.team.id, w.user.id, { claim_number: 'ARCH' });
    await addClaimSpend(w.claim.id, 12);
    await addClaimSpend(archived.id, 5);
    await archiveClaimRecord(archived);

    const summary = await getBillingSummary({ team: w.team });
    expect(summary).toEqual({
      total_spend_usd: 17,
      rates: { video: 3, photo: 1, audio: 1 },
      block_seconds: 20,
      billing_enabled: true,
      credits_balance: 77,
      buy_credits_url: fake.buyUrl,
    });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/api/v1/credits/balance',
      query: { app: APP, team_id: String(w.team.external_id) },
    });
  });

  it('reports a null balance when the service is unreachable', async () => {
    const w = await world({ balance: 77 });
    fake.failNext('500', 3);
    const summary = await getBillingSummary({ team: w.team }, { client: quickClient() });
    expect(summary).toMatchObject({ billing_enabled: true, credits_balance: null, buy_credits_url: null });
  });

  it('reports billing on with a null balance for a team with no external id, without a call', async () => {
    const orphan = await world({ externalId: null });
    expect(await getTeamCreditsBalance(orphan.team)).toEqual({
      billing_enabled: true,
      credits_balance: null,
      buy_credits_url: null,
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('reports billing off with false and nulls', async () => {
    configure({ ENABLE_BILLING: 'false' });
    const w = await world({ balance: 77 });
    expect(await getBillingSummary({ team: w.team })).toMatchObject({
      billing_enabled: false,
      credits_balance: null,
      buy_credits_url: null,
      total_spend_usd: 0,
    });
    expect(fake.requests).toHaveLength(0);
  });
});
