/**
 * The ledger fault matrix: for each charging path, the work is cut off or
 * failed at each boundary, then the sweeps and a retry run as they would in
 * service, and the fake billing service's ledger must equal what the spec
 * bills for the work that was done: nothing charged twice, nothing kept for
 * failed work, each refund landed once (a spend is kept whole or given back
 * whole), and the team that owns the work charged.
 *
 * Paths: the Process click of a photo, video, audio and contents-list (PDF)
 * job (every source of a job, a homeowner's upload or a capture import
 * included, is charged by that click; each job is written in the state the
 * click finds it in, and its run is the real pipeline on a clip of two seconds
 * or one photo), a read-the-rest pass over a photo whose answer was cut
 * short, and both sends, each as the claim's first send (create) and as a
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
 * file runs; the Billing entry of docs/architecture.md has it too.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Identity } from '../../lib/auth/identity-rules';
import { settleSendRefund } from '../../lib/billing/send-charge-service';
import { settleJobBilling } from '../../lib/billing/settlement-service';
import { keys } from '../../lib/db/keys';
import { getJob } from '../../lib/jobs/job-store';
import { processJob } from '../../lib/jobs/service';
import { startReadTheRest } from '../../lib/pipelines/photo-read-the-rest/service';
import { submitToClaimsPlatform } from '../../lib/sends/claims-platform-service';
import { submitToEstimationPlatform } from '../../lib/sends/estimation-service';
import { getSubmission } from '../../lib/sends/submission-store';
import { sweepExpiredSends } from '../../lib/sends/submission-sweep-service';
import { Client, eventually, jobInStatus } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeGateway, modelItem, type ScriptedPass } from '../support/fake-gateway';
import { texturedJpeg } from '../support/inventory';
import { photoJobAtGrouping } from '../support/photo-jobs';
import { recordingAtConfirmation, shortRecordings } from '../support/recording-jobs';
import {
  addItem,
  claimsPlatform,
  claimsPlatformTeam,
  expireSubmissionLease,
  fake as fakeEstimation,
  identityOfMember,
  openSubmissionId,
  sendTeam,
} from '../support/sends';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';
import { dieAt, ProcessDied } from '../support/process-death';

jest.setTimeout(180_000);

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

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

/** The faults in which the work itself fails (and its charge is given back). */
const failsTheWork = (fault: Fault) => fault === 'the work fails' || fault === 'billing down during the refund';

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

/** Billing faults that act on the team's next calls to one path. */
async function injectBillingFault(teamId: number, fault: Fault) {
  if (fault === "the charge's answer is lost") await fakeBilling.failNext('lost', 1, teamId, SPEND);
  // Every attempt of the charge call (the client tries 3 times).
  if (fault === 'billing down at the charge') await fakeBilling.failNext('500', 3, teamId, SPEND);
  if (fault === 'billing down during the refund') await fakeBilling.failNext('500', 1000, teamId, REFUND);
}

// --- the Process click of a photo, video, audio or contents-list job, and read-the-rest --------

/** A team with 100 credits and a new room, and the team member's Identity for the click run in this process. */
async function jobTeam(roomName: string) {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 100);
  const room = await newRoom(client, roomName);
  return { teamId, client, room, identity: await identityOfMember(member) };
}

const unique = (extension: string) => `matrix-${randomUUID().slice(0, 8)}.${extension}`;

/** A team with a one-photo job in a new room (uploaded, or taken out of a contents list), answered with `passes`. */
async function photoJobTeam(roomName: string, seed: number, passes: ScriptedPass[], contentsList = false) {
  const team = await jobTeam(roomName);
  const filename = unique(contentsList ? 'pdf' : 'jpg');
  await gateway.script(filename, passes);
  const job = await photoJobAtGrouping(team.room, team.identity.user.id, {
    filename,
    jpeg: await texturedJpeg(seed),
    contentsList,
  });
  return { ...team, jobId: job.id };
}

/** The photo's one AI call answers an item, or fails (the run then ends in error, its charge given back). */
const onePhoto = (fails: boolean, name: string): ScriptedPass[] => [
  fails ? { items: [], fail: '400' } : { items: [modelItem(name)] },
];

/** Billing is back: the job's refunds and unconfirmed charges are settled, as the billing sweep does. */
async function settledJob(teamId: number, jobId: string) {
  await fakeBilling.recover(teamId);
  await eventually(async () => (await settleJobBilling(jobId)).state !== 'pending', 30_000);
}

/** The refund stays owed while the billing service is down for it. */
async function refundOwed(jobId: string) {
  await eventually(async () => (await getRow(`JOB#${jobId}`, 'JOB'))?.refund_state === 'pending', 30_000);
}

/** A job waiting for its Process click, and what its run is billed when it completes. */
interface JobAtProcess {
  teamId: number;
  client: Client;
  identity: Identity;
  jobId: string;
  credits: number;
}

/** The Process click of a job that `ready` writes in the state the click finds it in; `fails`: its run fails. */
function jobStartPath(name: string, ready: (fails: boolean) => Promise<JobAtProcess>): ChargingPath {
  return {
    name,
    async run(fault) {
      const fails = failsTheWork(fault);
      const { teamId, client, identity, jobId, credits } = await ready(fails);
      // The click dies once the spend has answered, before its record; the next click (below) asks again under the
      // same reference, gets the first answer and starts on it.
      if (fault === 'dies between the charge and its record')
        await expect(processJob(identity, jobId, { checkpoint: dieAt('spent') })).rejects.toThrow(ProcessDied);
      // 'dies before the charge' leaves nothing behind: the job waits for the next click, which is this one.
      // Billing faults are kept for the team's calls to one path: a refund outage does not touch the charge.
      await injectBillingFault(teamId, fault);
      const processed = await client.post(`/api/jobs/${jobId}/process`);
      expect(processed.status).toBe(200);
      const done = await jobInStatus(client, jobId);
      expect(done.status).toBe(fails ? 'error' : 'complete');
      if (fault === 'billing down during the refund') await refundOwed(jobId);
      await settledJob(teamId, jobId);
      // Billing down at the charge: a 5xx may have been applied, so the job's charge is unconfirmed and the billing
      // sweep asks again under the same reference once the service is back: the run that was done is paid once.
      // (A send keeps an unconfirmed charge as it is, refunding it only if the send fails.)
      return { teamId, prefix: `job:${jobId}:`, billed: fails ? 0 : credits };
    },
  };
}

const photoJobPath = jobStartPath('photo job start', async (fails) => ({
  ...(await photoJobTeam('Den', 7, onePhoto(fails, 'Desk lamp'))),
  credits: 1,
}));

/** Two seconds of recording: one block, 3 credits of video or 1 of audio at the test service's prices. */
const RECORDING_SECONDS = 2;
let recordings: Record<'video' | 'audio', Buffer>;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'ledger-matrix-'));
  recordings = shortRecordings(mediaDir, RECORDING_SECONDS);
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

function recordingPath(sourceType: 'video' | 'audio', credits: number): ChargingPath {
  return jobStartPath(`${sourceType} job start`, async (fails) => {
    const team = await jobTeam(sourceType === 'video' ? 'Garage' : 'Attic');
    const filename = unique(sourceType === 'video' ? 'mp4' : 'm4a');
    // Every AI call of the run fails: it ends in error, its charge given back.
    if (fails) await gateway.script(filename, [{ items: [], fail: '400' }]);
    const job = await recordingAtConfirmation(team.room, team.identity.user.id, {
      sourceType,
      bytes: recordings[sourceType],
      filename,
      seconds: RECORDING_SECONDS,
    });
    return { ...team, jobId: job.id, credits };
  });
}

/** A photo job whose photo came out of a contents list (the list already read): one group, 1 credit. */
const contentsListPath = jobStartPath('PDF (contents list) job start', async (fails) => ({
  ...(await photoJobTeam('Study', 13, onePhoto(fails, 'Brass desk lamp'), true)),
  credits: 1,
}));

/** Another pass over a photo whose answer was cut short. */
const readTheRestPath: ChargingPath = {
  name: 'read-the-rest',
  async run(fault) {
    const fails = failsTheWork(fault);
    const books = Array.from({ length: 6 }, (_, i) => modelItem(`Book ${i + 1}`));
    const { teamId, client, identity, jobId } = await photoJobTeam('Library', 11, [
      { items: books, cutShort: true },
      fails ? { items: [], fail: '400' } : { items: [modelItem('Mug')] },
    ]);
    expect((await client.post(`/api/jobs/${jobId}/process`)).status).toBe(200);
    const first = await jobInStatus(client, jobId);
    expect(first).toMatchObject({ status: 'complete', photos_with_more_items: 1 });

    // The pass's spend answered, its record never written: the next click asks again and starts on that charge.
    if (fault === 'dies between the charge and its record')
      await expect(startReadTheRest(identity, jobId, { checkpoint: dieAt('spent') })).rejects.toThrow(ProcessDied);
    await injectBillingFault(teamId, fault);
    expect((await client.post(`/api/jobs/${jobId}/read-the-rest`)).status).toBe(200);
    await eventually(async () => {
      const job = await getJob(jobId);
      // The pass is its own run: done when that run is complete (a failed pass gives its charge back).
      return job?.status === 'complete' && job.run_id !== first.run_id ? job : null;
    }, 60_000);
    if (fault === 'billing down during the refund') await refundOwed(jobId);
    await settledJob(teamId, jobId);
    // The first read is 1 credit; the pass another, unless it failed (given back).
    return { teamId, prefix: `job:${jobId}:`, billed: fails ? 1 : 2 };
  },
};

// --- the claims platform send ------------------------------------------------------------------

async function claimsSendCompletes(id: string) {
  await eventually(async () => (await getSubmission(id))?.status === 'complete', 60_000, 200);
}

function claimsPlatformPath(kind: 'create' | 'append'): ChargingPath {
  return {
    name: `claims platform send (${kind})`,
    async run(fault) {
      const t = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
      const teamId = t.member.current_team_id as number;
      let billed = 0;
      if (kind === 'append') {
        await claimsSendCompletes((await submitToClaimsPlatform(t.identity, t.claimId, {})).id);
        billed = 2;
        await addItem(t, 'Telescope');
      }
      const items = kind === 'append' ? 1 : 2;
      const send = (deps = {}) => submitToClaimsPlatform(t.identity, t.claimId, {}, deps);
      await injectBillingFault(teamId, fault);
      let sent: { id: string } | null = null;
      if (fault === 'dies before the charge' || fault === 'dies between the charge and its record') {
        const step = fault === 'dies before the charge' ? 'recorded' : 'charged';
        await expect(send({ checkpoint: dieAt(step) })).rejects.toThrow(ProcessDied);
        // Its lease runs out; the send sweep fails it and refunds what it charged.
        const open = await openSubmissionId(t.claimId);
        await expireSubmissionLease(open);
        await sweepExpiredSends();
        expect((await getSubmission(open))?.status).toBe('failed');
      } else if (failsTheWork(fault)) {
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
      const t = await sendTeam([['Sofa'], ['Lamp']], 100);
      const teamId = t.member.current_team_id as number;
      const identity = await identityOfMember(t.member);
      const send = (deps = {}) => submitToEstimationPlatform(identity, t.claimId, {}, deps);
      let billed = 0;
      if (kind === 'append') {
        await send();
        billed = 2;
        await addItem(t, 'Rug');
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
      } else if (failsTheWork(fault)) {
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
  recordingPath('video', 3),
  recordingPath('audio', 1),
  contentsListPath,
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
