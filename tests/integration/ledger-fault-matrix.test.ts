/**
 * The ledger fault matrix: for each charging path, the work is cut off or
 * failed at each boundary, then the sweeps and a retry run as they would in
 * service, and the fake billing service's ledger must equal what the spec
 * bills for the work that was done: nothing charged twice, nothing kept for
 * failed work, each refund landed once (a spend is kept whole or given back
 * whole), and the team that owns the work charged.
 *
 * Paths: a photo job's Process click (every media job and every source of
 * one, a homeowner's upload or a capture import included, is charged by that
 * click), a read-the-rest pass over a photo whose answer was cut short, and
 * both sends, each as the claim's first send (create) and as a
 * later one (append). Faults: the process dies before the charge, or between
 * the charge and the write that records or starts the work; the work fails
 * (refunded); the work fails while the billing service is down for the refund
 * (owed, then settled by the billing sweep once it is back); the charge's
 * answer is lost (the service applied it; the retry gets the first answer);
 * the billing service is down at the charge (the work goes on: a send stays
 * uncharged; a job's charge, which a 5xx may have applied, is asked again
 * under its reference by the billing sweep once the service is back, so the
 * run is paid once).
 *
 * The matrix (path × fault → ledger as expected or not) is printed after the
 * file runs; the README's Billing section has it too.
 */
import { randomUUID } from 'node:crypto';
import { chargeJobUpFront } from '../../lib/billing/charge-service';
import { settleSendRefund } from '../../lib/billing/send-charge-service';
import { settleJobBilling } from '../../lib/billing/settlement-service';
import { keys } from '../../lib/db/keys';
import { getJob } from '../../lib/jobs/job-store';
import { submitToClaimsPlatform } from '../../lib/sends/claims-platform-service';
import { submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { getSubmission } from '../../lib/sends/submission-store';
import { sweepExpiredSends } from '../../lib/sends/submission-sweep-service';
import { getTeam } from '../../lib/teams/store';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { texturedJpeg, typedItems } from '../support/inventory';
import { fake as fakeEstimation, identityOfMember } from '../support/sends';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob } from '../support/uploads';

jest.setTimeout(180_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const claimsPlatform = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);

const SPEND = '/api/v1/credits/spend';
const REFUND = '/api/v1/credits/refund';

const FAULTS = [
  'dies before the charge',
  'dies between the charge and its record',
  'the work fails',
  'billing down during the refund',
  "the charge's answer is lost",
  'billing down at the charge',
] as const;
type Fault = (typeof FAULTS)[number];

class ProcessDied extends Error {}
const dieAt = (step: string) => (at: string) => {
  if (at === step) throw new ProcessDied(`died after ${step}`);
};

/** One charging path: it runs its work once with the fault, recovers as the service would, and says what is billed. */
interface ChargingPath {
  name: string;
  /** Runs the case; answers the team's external id, the reference prefix of its charges and the credits billed for the work done. */
  run(fault: Fault): Promise<{ teamId: number; prefix: string; billed: number }>;
}

/** The team's charges under `prefix`: each spend kept whole or given back whole, and what they net to. */
async function ledgerOf(teamId: number, prefix: string) {
  const spends = (await fakeBilling.spends(teamId)).filter((s) => s.reference.startsWith(prefix));
  const partial = spends.filter((s) => s.refunded !== 0 && s.refunded !== s.amount);
  const net = spends.reduce((sum, s) => sum + s.amount - s.refunded, 0);
  return { spends, partial, net };
}

/** The billing service is back: the billing sweep's part for the team's send refunds still owed. */
async function settleOwedRefunds(teamId: number) {
  await fakeBilling.recover(teamId);
  const kept = (await fakeBilling.spends(teamId)).filter((s) => s.refunded === 0).map((s) => s.reference);
  for (const reference of kept) await settleSendRefund(reference);
}

/** Adds an item by hand to the job; the next send carries it. */
async function addItemTo(client: Client, jobId: string, name: string) {
  const res = await client.post(`/api/inventory/${jobId}/item`, { name });
  expect(res.status).toBe(201);
}

/** Billing faults that act on the team's next calls to one path. */
async function injectBillingFault(teamId: number, fault: Fault) {
  if (fault === "the charge's answer is lost") await fakeBilling.failNext('lost', 1, teamId, SPEND);
  // Every attempt of the charge call (the client tries 3 times).
  if (fault === 'billing down at the charge') await fakeBilling.failNext('500', 3, teamId, SPEND);
  if (fault === 'billing down during the refund') await fakeBilling.failNext('500', 1000, teamId, REFUND);
}

// --- a photo job's Process click ------------------------------------------------------------

const photoJobPath: ChargingPath = {
  name: 'photo job start',
  async run(fault) {
    const member = newTeamMember();
    const teamId = member.current_team_id as number;
    const client = await Client.signIn(member);
    await fakeBilling.setBalance(teamId, 100);
    const room = await newRoom(client, 'Den');
    const photo = `matrix-${randomUUID().slice(0, 8)}.jpg`;
    const fails = fault === 'the work fails' || fault === 'billing down during the refund';
    await gateway.script(photo, [fails ? { items: [], fail: '400' } : { items: [modelItem('Desk lamp')] }]);
    const { jobId } = await photoJob(client, room.id, [await texturedJpeg(7)], [photo]);
    const prefix = `job:${jobId}:`;

    if (fault === 'dies between the charge and its record') {
      // What a function that died right after the spend leaves: round 1 charged, the run not started.
      const job = await getJob(jobId);
      const team = await getTeam(job?.team_id as string);
      await chargeJobUpFront({
        job: job as NonNullable<typeof job>,
        team: team as NonNullable<typeof team>,
        user: null,
        credits: 1,
      });
    }
    // 'dies before the charge' leaves nothing behind: the job waits for the next click, which is this one.
    // Billing faults are kept for the team's calls to one path: a refund outage does not touch the charge.
    await injectBillingFault(teamId, fault);
    const processed = await client.post(`/api/jobs/${jobId}/process`);
    expect(processed.status).toBe(200);
    const done = await jobInStatus(client, jobId);
    expect(done.status).toBe(fails ? 'error' : 'complete');
    if (fault === 'billing down during the refund') {
      // The refund stays owed while the service is down; once it is back the billing sweep settles it.
      await eventually(async () => (await getRow(`JOB#${jobId}`, 'JOB'))?.refund_state === 'pending', 30_000);
      await fakeBilling.recover(teamId);
      await settleJobBilling(jobId);
    }
    await fakeBilling.recover(teamId);
    await eventually(async () => (await settleJobBilling(jobId)).state !== 'pending', 30_000);
    // Billing down at the charge: a 5xx may have been applied, so the job's charge is unconfirmed and the billing
    // sweep asks again under the same reference once the service is back: the run that was done is paid once.
    // (A send keeps an unconfirmed charge as it is, refunding it only if the send fails.)
    return { teamId, prefix, billed: fails ? 0 : 1 };
  },
};

// --- read-the-rest: another pass over a photo whose answer was cut short -----------------------

const readTheRestPath: ChargingPath = {
  name: 'read-the-rest',
  async run(fault) {
    const member = newTeamMember();
    const teamId = member.current_team_id as number;
    const client = await Client.signIn(member);
    await fakeBilling.setBalance(teamId, 100);
    const room = await newRoom(client, 'Library');
    const photo = `matrix-rest-${randomUUID().slice(0, 8)}.jpg`;
    const fails = fault === 'the work fails' || fault === 'billing down during the refund';
    const books = Array.from({ length: 6 }, (_, i) => modelItem(`Book ${i + 1}`));
    await gateway.script(photo, [
      { items: books, cutShort: true },
      fails ? { items: [], fail: '400' } : { items: [modelItem('Mug')] },
    ]);
    const { jobId } = await photoJob(client, room.id, [await texturedJpeg(11)], [photo]);
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    const first = await jobInStatus(client, jobId);
    expect(first).toMatchObject({ status: 'complete', photos_with_more_items: 1 });
    const prefix = `job:${jobId}:`;

    if (fault === 'dies between the charge and its record') {
      // The pass's round charged, its run never started: the next click starts it on that charge.
      const job = await getJob(jobId);
      const team = await getTeam(job?.team_id as string);
      await chargeJobUpFront({
        job: job as NonNullable<typeof job>,
        team: team as NonNullable<typeof team>,
        user: null,
        credits: 1,
      });
    }
    await injectBillingFault(teamId, fault);
    expect((await client.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(200);
    await eventually(async () => {
      const job = await getJob(jobId);
      // The pass is its own run: done when that run is complete (a failed pass gives its charge back).
      return job?.status === 'complete' && job.run_id !== first.run_id ? job : null;
    }, 60_000);
    if (fault === 'billing down during the refund') {
      await eventually(async () => (await getRow(`JOB#${jobId}`, 'JOB'))?.refund_state === 'pending', 30_000);
    }
    await fakeBilling.recover(teamId);
    await eventually(async () => (await settleJobBilling(jobId)).state !== 'pending', 30_000);
    // The first read is 1 credit; the pass another, unless it failed (given back).
    return { teamId, prefix, billed: fails ? 1 : 2 };
  },
};

// --- the claims platform send ------------------------------------------------------------------

/** A room with `names` typed in by hand: the sends read items, not how they were found (no pipeline runs). */
async function roomWithItems(client: Client, roomName: string, names: string[]) {
  const room = await newRoom(client, roomName);
  return { room, jobId: (await typedItems(client, room, names)).jobId };
}

async function claimsPlatformTeam() {
  const token = `cp-matrix-${randomUUID()}`;
  await claimsPlatform().registerToken(token);
  const member = newTeamMember({ current_team_token: token });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 100);
  const { room, jobId } = await roomWithItems(client, 'Study', ['Globe', 'Atlas']);
  return { member, token, client, jobId, claimId: room.claim_id, identity: await identityOfMember(member) };
}

/** A team with an estimation key the fake knows and a claim with the details a new remote claim needs. */
async function estimationTeam() {
  const key = `est-matrix-${randomUUID()}`;
  await fakeEstimation().registerKey(key);
  const member = newTeamMember({ current_team_estimation_intake_key: key });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 100);
  const { room, jobId } = await roomWithItems(client, 'Living Room', ['Sofa', 'Lamp']);
  await client.patch(`/api/claims/${room.claim_id}`, {
    insured_name: 'Pat Insured',
    loss_type: 'Water Damage',
    coverage_type: 'RCV',
    claim_type: 'Residential',
    zip_code: '90210',
    adjuster_name: 'Ada Adjuster',
  });
  return { member, key, client, jobId, claimId: room.claim_id };
}

async function claimsSendCompletes(id: string) {
  await eventually(async () => (await getSubmission(id))?.status === 'complete', 60_000, 200);
}

function claimsPlatformPath(kind: 'create' | 'append'): ChargingPath {
  return {
    name: `claims platform send (${kind})`,
    async run(fault) {
      const t = await claimsPlatformTeam();
      const teamId = t.member.current_team_id as number;
      let billed = 0;
      if (kind === 'append') {
        await claimsSendCompletes((await submitToClaimsPlatform(t.identity, t.claimId, {})).id);
        billed = 2;
        await addItemTo(t.client, t.jobId, 'Telescope');
      }
      const items = kind === 'append' ? 1 : 2;
      const send = (deps = {}) => submitToClaimsPlatform(t.identity, t.claimId, {}, deps);
      await injectBillingFault(teamId, fault);
      let sent: { id: string } | null = null;
      if (fault === 'dies before the charge' || fault === 'dies between the charge and its record') {
        const step = fault === 'dies before the charge' ? 'recorded' : 'charged';
        await expect(send({ checkpoint: dieAt(step) })).rejects.toThrow(ProcessDied);
        // Its lease runs out; the send sweep fails it and refunds what it charged.
        const open = String((await getRow(`CLAIMSEND#${t.claimId}`, 'SEND'))?.submission_id);
        const key = keys.submission(open);
        const past = Date.now() - 1000;
        await setFields(key.pk, key.sk, { lease_until: past, activesk: `${new Date(past).toISOString()}#${open}` });
        await sweepExpiredSends();
        expect((await getSubmission(open))?.status).toBe('failed');
      } else if (fault === 'the work fails' || fault === 'billing down during the refund') {
        // The platform refuses the claim sync (every attempt): 502, refunded.
        await claimsPlatform().failNext('503', { match: t.token, count: 3 });
        await expect(send()).rejects.toMatchObject({ code: 'remote_failure' });
        if (fault === 'billing down during the refund') await settleOwedRefunds(teamId);
      } else {
        // The send goes through with the fault: the lost answer is retried, the outage lets it go uncharged.
        sent = await send();
      }
      await fakeBilling.recover(teamId);
      // A send that failed is sent again.
      sent ??= await send();
      await claimsSendCompletes(sent.id);
      billed += fault === 'billing down at the charge' ? 0 : items;
      return { teamId, prefix: `as-send:${t.claimId}`, billed };
    },
  };
}

// --- the estimation platform send --------------------------------------------------------------

function estimationPath(kind: 'create' | 'append'): ChargingPath {
  return {
    name: `estimation platform send (${kind})`,
    async run(fault) {
      const t = await estimationTeam();
      const teamId = t.member.current_team_id as number;
      const identity = await identityOfMember(t.member);
      const send = (deps = {}) => submitToEstimationPlatform(identity, t.claimId, {}, deps);
      let billed = 0;
      if (kind === 'append') {
        await send();
        billed = 2;
        await addItemTo(t.client, t.jobId, 'Rug');
      }
      const items = kind === 'append' ? 1 : 2;
      await injectBillingFault(teamId, fault);
      let sent = false;
      if (fault === 'dies before the charge' || fault === 'dies between the charge and its record') {
        const step = fault === 'dies before the charge' ? 'recorded' : 'charged';
        await expect(send({ interrupt: dieAt(step) })).rejects.toThrow(ProcessDied);
        // Its lease runs out; the next send finishes it under the same reference.
        const key = keys.estimationSend(t.claimId);
        await setFields(key.pk, key.sk, { lease_until: 0 });
      } else if (fault === 'the work fails' || fault === 'billing down during the refund') {
        await fakeEstimation().failNext('422', { key: t.key, detail: 'items.0.title: too long for the platform' });
        await expect(send()).rejects.toMatchObject({ code: 'unprocessable' });
        if (fault === 'billing down during the refund') await settleOwedRefunds(teamId);
      } else {
        // The send goes through with the fault: the lost answer is retried, the outage lets it go uncharged.
        expect((await send()).items_sent).toBe(items);
        sent = true;
      }
      await fakeBilling.recover(teamId);
      // A send that failed or died is sent again (which finishes a dead one).
      if (!sent) expect((await send()).items_sent).toBe(items);
      billed += fault === 'billing down at the charge' ? 0 : items;
      return { teamId, prefix: 'ce-', billed };
    },
  };
}

const PATHS: ChargingPath[] = [
  photoJobPath,
  readTheRestPath,
  claimsPlatformPath('create'),
  claimsPlatformPath('append'),
  estimationPath('create'),
  estimationPath('append'),
];

const outcomes = new Map<string, string>();

afterAll(() => {
  const width = Math.max(...PATHS.map((p) => p.name.length));
  const header = `${'path'.padEnd(width)} | ${FAULTS.join(' | ')}`;
  const rows = PATHS.map(
    (p) =>
      `${p.name.padEnd(width)} | ${FAULTS.map((f) => (outcomes.get(`${p.name}|${f}`) ?? 'not run').padEnd(f.length)).join(' | ')}`,
  );
  console.log(['Ledger fault matrix (ledger as expected / not):', header, ...rows].join('\n'));
});

describe.each(PATHS.map((p) => [p.name, p] as const))('%s', (_name, path) => {
  it.concurrent.each(FAULTS.map((f) => [f]))('%s: the ledger equals what the work done is billed', async (fault) => {
    const key = `${path.name}|${fault}`;
    outcomes.set(key, 'not');
    const { teamId, prefix, billed } = await path.run(fault);
    const ledger = await ledgerOf(teamId, prefix);
    expect(ledger.partial).toEqual([]);
    expect(ledger.net).toBe(billed);
    outcomes.set(key, 'as expected');
  });
});
