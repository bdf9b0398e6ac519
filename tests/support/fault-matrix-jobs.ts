/**
 * The ledger fault matrix's job paths (tests/support/fault-matrix.ts has the
 * faults and the check): the Process click of a photo, video, audio and
 * contents-list (PDF) job, and a read-the-rest pass, each through the real
 * route. A click that dies leaves its charge (or its spend asked for) to the
 * billing sweep once the round's lease has run out; the user then clicks
 * again, and the run is charged once, under a new reference. A failed run's
 * charge is given back; billing down at the charge leaves the run on an
 * unconfirmed charge, which the billing sweep confirms once billing is back.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { getJob } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { Client, eventually, jobInStatus } from './api';
import { getRow } from './aws';
import { fakeBilling } from './fake-billing';
import { fakeGateway, modelItem, type ScriptedPass } from './fake-gateway';
import {
  BOUNDARY,
  billingFaultMet,
  type Fault,
  failsTheWork,
  injectBillingFault,
  type MatrixPath,
  pointOf,
  SWEEP_WAIT_MS,
} from './fault-matrix';
import { texturedJpeg } from './inventory';
import { photoJobAtGrouping } from './photo-jobs';
import { clickEndedAt, leaseRunsOut } from './process-death';
import { recordingAtConfirmation } from './recording-jobs';
import { identityOfMember } from './sends';
import { newTeamMember } from './tokens';
import { newRoom } from './uploads';

/**
 * Job runs in flight at once in one file: the stack's stage workers take a few messages at a time (two cores), so
 * more only wait in the queue and run out of time; a cell waiting for a schedule holds no slot.
 */
const runs = pLimit(5);

const gateway = () => fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

/** A job waiting for the click the cell makes, and what it has been billed before it. */
interface JobAtClick {
  teamId: number;
  client: Client;
  jobId: string;
  /** Credits of the work before the click (read-the-rest: the first read). */
  before: number;
  /** The run the job finished before the click, if any: the click's run is another. */
  previousRunId: string | null;
}

/** A team with 100 credits, a new room and the member's user id. */
async function jobTeam(roomName: string) {
  const member = newTeamMember();
  const teamId = member.current_team_id as number;
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(teamId, 100);
  const room = await newRoom(client, roomName);
  const identity = await identityOfMember(member);
  return { teamId, client, room, userId: identity.user.id };
}

const unique = (extension: string) => `matrix-${randomUUID().slice(0, 8)}.${extension}`;

/** A team with a one-photo job (uploaded, or taken out of a contents list) at grouping, answered with `passes`. */
async function photoJobAt(roomName: string, seed: number, passes: ScriptedPass[], contentsList = false) {
  const team = await jobTeam(roomName);
  const filename = unique(contentsList ? 'pdf' : 'jpg');
  await gateway().script(filename, passes);
  const job = await photoJobAtGrouping(team.room, team.userId, {
    filename,
    jpeg: await texturedJpeg(seed),
    contentsList,
  });
  return { teamId: team.teamId, client: team.client, jobId: job.id, before: 0, previousRunId: null };
}

/** The photo's one AI call answers an item, or fails (the run then ends in error, its charge given back). */
const onePhoto = (fails: boolean, name: string): ScriptedPass[] => [
  fails ? { items: [], fail: '400' } : { items: [modelItem(name)] },
];

/**
 * The job's row once the stack (the run's own settlement or the billing sweep on its schedule) has closed its
 * billing: no spend in flight, nothing owed or unconfirmed, off the sweep's index.
 */
const billingSettled = (jobId: string) =>
  eventually(
    async () => {
      const row = await getRow(`JOB#${jobId}`, 'JOB');
      const closed =
        row && !row.billing_spend_round && !row.billing_unconfirmed && row.refund_state !== 'pending' && !row.archpk;
      return closed ? row : null;
    },
    SWEEP_WAIT_MS,
    1000,
  );

interface JobPathSpec {
  name: string;
  flow: 'job-start' | 'read-the-rest';
  /** Credits of the click's run when it completes. */
  credits: number;
  /** Writes the job as the click finds it; `fails`: the click's run fails. */
  ready(fails: boolean): Promise<JobAtClick>;
  /** Items the job holds once the click's run is done (complete or failed), where the path fixes them. */
  items?(fails: boolean): number;
  /** Whether the click's run failed, from the job it left. */
  failed(job: Job): boolean;
}

/** A job start's run failed: the job is in error. */
const inError = (job: Job) => job.status === 'error';

/** The click's run has ended: complete or error, and another run than the one before the click. */
async function clickRunEnded(at: JobAtClick): Promise<Job> {
  return eventually(
    async () => {
      const job = await getJob(at.jobId);
      return job && (job.status === 'complete' || job.status === 'error') && job.run_id !== at.previousRunId
        ? job
        : null;
    },
    120_000,
    500,
  );
}

async function jobCell(spec: JobPathSpec, fault: Fault, armed: boolean) {
  const fails = armed && failsTheWork(fault);
  const at = await spec.ready(fails);
  const { teamId, client, jobId } = at;
  const action = spec.flow === 'job-start' ? 'process' : 'read-the-rest';
  const click = () => client.post(`/api/jobs/${jobId}/${action}`);
  // A lost answer stays lost until the click's job is read below: the billing sweep (every 15 s) could otherwise
  // confirm the spend between the click's answer and that read.
  if (armed) await injectBillingFault(teamId, fault, { untilRecovered: true });
  if (BOUNDARY[fault] && armed) {
    // The click dies at the boundary; nothing runs, and no click comes while the round's lease holds.
    await clickEndedAt(client, jobId, pointOf(spec.flow, fault), action);
    expect((await getJob(jobId))?.run_id ?? null).toBe(at.previousRunId);
    await leaseRunsOut(jobId);
    // The billing sweep, on its schedule, gives back whatever the dead click may have taken.
    await billingSettled(jobId);
  }
  const { clicked, charged, done } = await runs(async () => {
    const clicked = await click();
    const charged = await getJob(jobId);
    return { clicked, charged, done: clicked.status === 200 ? await clickRunEnded(at) : null };
  });
  expect(clicked.status).toBe(200);
  // The service's lost-answer handling was reached (the run goes on an unconfirmed charge), or, disarmed, not.
  if (fault === "the charge's answer is lost" || fault === 'billing down at the charge')
    expect(charged?.billing_unconfirmed ?? false).toBe(armed);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.recover(teamId);
  if (!done) throw new Error('the click started no run');
  expect(spec.failed(done)).toBe(fails);
  if (spec.items) expect(done.items_found).toBe(spec.items(fails));
  if (fault === 'billing down during the refund' && armed) {
    // The refund stays owed while refunds are down; once billing is back the billing sweep settles it.
    await eventually(async () => (await getJob(jobId))?.refund_state === 'pending', 30_000);
    // Asked for while down (by the run's end, or else by the billing sweep's next tick), before billing comes back.
    await eventually(() => billingFaultMet(teamId, fault), SWEEP_WAIT_MS, 1000);
    await fakeBilling.recover(teamId);
  }
  if (fault === 'billing down at the charge' && armed) await fakeBilling.recover(teamId);
  await billingSettled(jobId);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.lateApplied(teamId);
  // The control met no billing fault; the armed cell met its own.
  if (!BOUNDARY[fault] && fault !== 'the work fails') expect(await billingFaultMet(teamId, fault)).toBe(armed);
  if (BOUNDARY[fault] && !armed) expect(done.billing_rounds).toBe(at.before > 0 ? 2 : 1);
  return { teamId, prefix: `job:${jobId}:`, billed: at.before + (fails ? 0 : spec.credits) };
}

const jobPath = (spec: JobPathSpec): MatrixPath => ({
  name: spec.name,
  run: (fault, armed) => jobCell(spec, fault, armed),
});

export const photoJobPath = jobPath({
  name: 'photo job start',
  flow: 'job-start',
  credits: 1,
  ready: (fails) => photoJobAt('Den', 7, onePhoto(fails, 'Desk lamp')),
  items: (fails) => (fails ? 0 : 1),
  failed: inError,
});

/** A photo job whose photo came out of a contents list (the list already read): one group, 1 credit. */
export const contentsListPath = jobPath({
  name: 'PDF (contents list) job start',
  flow: 'job-start',
  credits: 1,
  ready: (fails) => photoJobAt('Study', 13, onePhoto(fails, 'Brass desk lamp'), true),
  items: (fails) => (fails ? 0 : 1),
  failed: inError,
});

/** A video or audio job of `seconds` (one block: `credits`), from `recording`; every AI call fails when it fails. */
export function recordingPath(
  sourceType: 'video' | 'audio',
  credits: number,
  recording: () => { bytes: Buffer; seconds: number },
): MatrixPath {
  return jobPath({
    name: `${sourceType} job start`,
    flow: 'job-start',
    credits,
    async ready(fails) {
      const team = await jobTeam(sourceType === 'video' ? 'Garage' : 'Attic');
      const filename = unique(sourceType === 'video' ? 'mp4' : 'm4a');
      // Every AI call of the run fails: it ends in error, its charge given back.
      if (fails) await gateway().script(filename, [{ items: [], fail: '400' }]);
      const { bytes, seconds } = recording();
      const job = await recordingAtConfirmation(team.room, team.userId, { sourceType, bytes, filename, seconds });
      return { teamId: team.teamId, client: team.client, jobId: job.id, before: 0, previousRunId: null };
    },
    failed: inError,
  });
}

/** Another pass over a photo whose answer was cut short: six books read first, then a mug (1 credit each read). */
export const readTheRestPath = jobPath({
  name: 'read-the-rest',
  flow: 'read-the-rest',
  credits: 1,
  async ready(fails) {
    const books = Array.from({ length: 6 }, (_, i) => modelItem(`Book ${i + 1}`));
    const at = await photoJobAt('Library', 11, [
      { items: books, cutShort: true },
      fails ? { items: [], fail: '400' } : { items: [modelItem('Mug')] },
    ]);
    const first = await runs(async () => {
      expect((await at.client.post(`/api/jobs/${at.jobId}/process`)).status).toBe(200);
      return jobInStatus(at.client, at.jobId, ['complete', 'error'], 180_000);
    });
    expect(first).toMatchObject({ status: 'complete', photos_with_more_items: 1 });
    return { ...at, before: 1, previousRunId: (await getJob(at.jobId))?.run_id ?? null };
  },
  // A failed pass leaves the job complete with the items it had, the pass's error recorded.
  failed: (job) => job.status === 'complete' && Boolean(job.last_pass_error),
});
