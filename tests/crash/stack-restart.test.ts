/**
 * The machine dying: the whole local stack (serverless offline with the
 * functions, DynamoDB Local, the S3 and SQS emulators, queue delivery) is
 * killed with SIGKILL while photo jobs run and both sends are open, then
 * started again on the same data directory and ports, as `npm start` would be
 * after a crash. DynamoDB rows and S3 objects survive; every queued SQS
 * message is lost (local queues live in memory: harsher than SQS, which keeps
 * them). Only the stack's own schedules (the watchdog and the billing sweep,
 * at the rates and leases the settings allow) may bring the work to an end:
 * the test calls no sweep or recovery code. Then every job and send has
 * reached a terminal state, the billing ledger equals the work done (what
 * completed charged once, what failed given back whole), and no item is lost
 * or duplicated (the claim's item numbers run 1..n, each job holds its count,
 * the platforms hold each item once).
 *
 * The control runs the same work on the same stack first, without the kill:
 * it passes the same checks and shows nothing needed recovering.
 *
 * This file starts and kills a stack of its own, so it is its own jest
 * project ('crash'), run by `npm test` after the others (docs/testing.md).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessing } from '../../lib/jobs/job-rules';
import type { JobStatus } from '../../lib/jobs/job-rules';
import { getEstimationSend } from '../../lib/sends/estimation-store';
import { getSubmission } from '../../lib/sends/submission-store';
import { startFakeAiGateway } from '../fakes/ai-gateway-server';
import { startFakeBillingServer } from '../fakes/billing-server';
import { startFakeClaimsPlatform } from '../fakes/claims-platform-server';
import { startFakeEstimationPlatform } from '../fakes/estimation-platform-server';
import { startFakeMailServer } from '../fakes/mail-server';
import { type Client, eventually } from '../support/api';
import { SPEND_PATH } from '../../lib/integrations/billing-contract';
import { fakeBilling } from '../support/fake-billing';
import { modelItem } from '../support/fake-gateway';
import { teamWithRoom, texturedJpeg } from '../support/inventory';
import { claimsPlatformTeam, openSubmissionId, sendTeam, submit } from '../support/sends';
import { serviceEnv, TEST_MAIL_DOMAIN } from '../support/service-env';
import { dead, type StackProcess, startStackProcess } from '../support/stack-process';
import { photoJob } from '../support/uploads';

const { freePort }: { freePort: () => Promise<number> } = require('../../localstack/emulators/emulators.js');

jest.setTimeout(420_000);

/**
 * Sweeps and leases as short as the settings allow, so recovery takes one or two watchdog ticks (the schedules run
 * on the minute). A stage's or unit's lease must still outlast its run in the control (an AI answer takes
 * GATEWAY_LATENCY_MS); the send leases outlast the control's sends, so the control needs no sweep.
 */
const SWEEPS = {
  WATCHDOG_RATE: 'rate(1 minute)',
  BILLING_SWEEP_RATE: 'rate(1 minute)',
  STAGE_LEASE_SECONDS: '20',
  STUCK_JOB_MINUTES: '0.1',
  STUCK_JOB_MINUTES_WITH_QUEUE: '10',
  // Longer than GATEWAY_LATENCY_MS (the test service's 3 s is for its failure tests).
  OPENROUTER_TIMEOUT_SECONDS: '10',
  CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS: '30',
  ESTIMATION_SEND_LEASE_SECONDS: '30',
};
/** How long each AI answer takes until the kill, so jobs are still running when the other work is in flight. */
const GATEWAY_LATENCY_MS = 5000;
const JOBS = 4;
const PHOTOS_PER_JOB = 3;
/**
 * One more job's Process click is in flight at the kill: the billing service holds its spend this long, then applies
 * it (under the billing client's 6 s timeout, so the control's click goes through).
 */
const SLOW_SPEND_MS = 5000;
/** The claims platform's item PUTs wait at the fake until released (a slow platform), at most this long. */
const ITEM_PUTS = '/items/';
/** The estimation send's remote call waits at the fake the same way (released within its 8 s deadline in the control). */
const ESTIMATION_CREATE = 'POST /intake/contents-inventory';
const HOLD_MS = 300_000;

let gateway: Awaited<ReturnType<typeof startFakeAiGateway>>;
let billing: Awaited<ReturnType<typeof startFakeBillingServer>>;
let claimsPlatform: Awaited<ReturnType<typeof startFakeClaimsPlatform>>;
let estimation: Awaited<ReturnType<typeof startFakeEstimationPlatform>>;
let mail: Awaited<ReturnType<typeof startFakeMailServer>>;
let stack: StackProcess;
let startStack: () => Promise<StackProcess>;
let dataDir: string;
/** Processes a killed start left running, killed at the end whatever the test found. */
const orphans: number[] = [];

beforeAll(async () => {
  gateway = await startFakeAiGateway();
  billing = await startFakeBillingServer({ defaultBalance: 0 });
  claimsPlatform = await startFakeClaimsPlatform();
  estimation = await startFakeEstimationPlatform();
  mail = await startFakeMailServer({ domain: TEST_MAIL_DOMAIN });
  dataDir = mkdtempSync(join(tmpdir(), 'contents-inventory-crash-'));
  // Fixed for both starts: a restart after a crash comes up where the first start was.
  const ports = {
    http: await freePort(),
    lambda: await freePort(),
    stream: await freePort(),
    dynamodb: await freePort(),
    s3: await freePort(),
    sqs: await freePort(),
  };
  const env = {
    ...serviceEnv,
    ...SWEEPS,
    SLS_LOG_LEVEL: 'warning',
    OPENROUTER_BASE_URL: gateway.url,
    OPENROUTER_API_KEY: gateway.apiKey,
    ENABLE_BILLING: 'true',
    BILLING_APP_DOMAIN: billing.url,
    BILLING_APP_API_KEY: billing.apiKey,
    MAIL_BASE_URL: mail.url,
    MAIL_API_KEY: mail.apiKey,
    ESTIMATION_PLATFORM_BASE_URL: estimation.url,
    CLAIMS_PLATFORM_BASE_URL: claimsPlatform.url,
  };
  startStack = () =>
    startStackProcess({
      stage: 'crash',
      dataDir,
      ports,
      env,
      logFile: join(dataDir, 'stack.log'),
    });
  stack = await startStack();
  // The test's own reads (rows, the fakes' control helpers) go where the stack is.
  Object.assign(process.env, serviceEnv, stack.env, {
    TEST_SERVICE_URL: stack.url,
    TEST_FAKE_BILLING_URL: billing.url,
    TEST_FAKE_GATEWAY_URL: gateway.url,
    TEST_FAKE_ESTIMATION_URL: estimation.url,
    TEST_FAKE_CLAIMS_PLATFORM_URL: claimsPlatform.url,
  });
});

afterAll(async () => {
  // Held requests and latency timers would keep the fakes (and jest) alive.
  if (gateway && claimsPlatform && estimation) unblock();
  await stack?.stop();
  for (const pid of orphans.filter((p) => !dead(p))) process.kill(pid, 'SIGKILL');
  await Promise.all([gateway?.stop(), billing?.stop(), claimsPlatform?.close(), estimation?.close(), mail?.stop()]);
  if (dataDir && !process.env.CRASH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
});

/** The work put in flight: photo jobs of one claim (two rooms), a claims platform send and an estimation send. */
interface Work {
  photo: {
    client: Client;
    teamId: number;
    claimId: string;
    jobIds: string[];
    /** The job whose Process click was made last, its spend held at the billing service. */
    clicked: { jobId: string; at: number; answer: Promise<unknown> };
  };
  claimsSend: { teamId: number; token: string; claimId: string; submissionId: string };
  estimationSend: { teamId: number; key: string; claimId: string; answer: Promise<unknown> };
}

async function putWorkInFlight(tag: string): Promise<Work> {
  gateway.setLatency(GATEWAY_LATENCY_MS);
  claimsPlatform.hold(ITEM_PUTS, HOLD_MS);
  estimation.hold(ESTIMATION_CREATE, HOLD_MS);

  // Photo jobs: each photo is one AI request (one credit) that finds one item.
  const team = await teamWithRoom('Kitchen', 1000);
  const teamId = team.member.current_team_id;
  const bedroom = await team.client.post(`/api/claims/${team.room.claim_id}/rooms`, { name: 'Bedroom' });
  if (bedroom.status !== 201) throw new Error(`room create: ${bedroom.status} ${JSON.stringify(bedroom.body)}`);
  const rooms = [team.room.id, bedroom.body.id as string];
  const jobIds: string[] = [];
  for (let j = 0; j <= JOBS; j++) {
    const filenames = Array.from({ length: PHOTOS_PER_JOB }, (_, p) => `crash-${tag}-${j}-${p}-${randomUUID()}.jpg`);
    for (const [p, name] of filenames.entries()) gateway.script(name, [{ items: [modelItem(`Thing ${j}.${p}`)] }]);
    const photos = await Promise.all(filenames.map((_, p) => texturedJpeg(j * 10 + p + 1)));
    const { jobId } = await photoJob(team.client, rooms[j % rooms.length], photos, filenames);
    jobIds.push(jobId);
  }

  // The sends' teams are made before any work starts, so the work runs side by side.
  const cp = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
  const est = await sendTeam([['Sofa'], ['Lamp']], 100);

  for (const jobId of jobIds.slice(0, JOBS)) {
    const started = await team.client.post(`/api/jobs/${jobId}/process`);
    if (started.status !== 200) throw new Error(`process: ${started.status} ${JSON.stringify(started.body)}`);
  }
  // Each next piece once the one before is waiting where it is held, the click last: its spend is held shortest.
  const sent = await cp.client.post(`/api/claims/${cp.claimId}/submit-to-claims-platform`, {});
  if (sent.status !== 200) throw new Error(`claims platform send: ${sent.status} ${JSON.stringify(sent.body)}`);
  await eventually(async () => claimsPlatform.requests.some((r) => r.token === cp.token && r.path.includes(ITEM_PUTS)));
  const answer = submit(est).catch((err) => err);
  await eventually(async () =>
    estimation.requests.some((r) => r.key === est.key && ESTIMATION_CREATE.endsWith(r.path)),
  );
  await fakeBilling.failNext('slow', 1, teamId, SPEND_PATH, { delayMs: SLOW_SPEND_MS });
  const clicked = { jobId: jobIds[JOBS], at: Date.now(), answer: Promise.resolve() as Promise<unknown> };
  clicked.answer = team.client.post(`/api/jobs/${clicked.jobId}/process`).catch((err) => err);
  return {
    photo: { client: team.client, teamId, claimId: team.room.claim_id, jobIds, clicked },
    claimsSend: {
      teamId: cp.member.current_team_id,
      token: cp.token,
      claimId: cp.claimId,
      submissionId: await openSubmissionId(cp.claimId),
    },
    estimationSend: { teamId: est.member.current_team_id, key: est.key, claimId: est.claimId, answer },
  };
}

/** What was in flight: job statuses, whether the claims send is open with an item PUT waiting, the estimation call hanging. */
async function inFlight(work: Work) {
  const statuses: JobStatus[] = [];
  for (const id of work.photo.jobIds) statuses.push((await work.photo.client.get(`/api/jobs/${id}`)).body.status);
  const submission = await getSubmission(work.claimsSend.submissionId);
  const { clicked } = work.photo;
  return {
    processingJobs: statuses.filter((s) => isProcessing(s)).length,
    // Asked, and the billing service has not answered it yet.
    spendInFlight:
      billing.requests.some(
        (r) => r.path === SPEND_PATH && String(r.body?.reference).startsWith(`job:${clicked.jobId}:`),
      ) && Date.now() - clicked.at < SLOW_SPEND_MS - 500,
    claimsSendOpen: submission?.status === 'processing',
    itemPutsHeld: claimsPlatform.requests.filter(
      (r) => r.token === work.claimsSend.token && r.path.includes(ITEM_PUTS) && r.status === null,
    ).length,
    estimationCallHeld: estimation.requests.some(
      (r) => r.key === work.estimationSend.key && ESTIMATION_CREATE.endsWith(r.path) && r.status === null,
    ),
    estimationSendOpen: (await getEstimationSend(work.estimationSend.claimId))?.state === 'sending',
  };
}

/** Waits until work of every kind is in flight at once: a job processing, the click's spend, both sends' calls. */
async function allInFlight(work: Work) {
  let last: Awaited<ReturnType<typeof inFlight>> | undefined;
  return eventually(async () => {
    last = await inFlight(work);
    return last.processingJobs > 0 && last.spendInFlight && last.itemPutsHeld > 0 && last.estimationCallHeld
      ? last
      : null;
  }, 30_000).catch(() => {
    const spends = billing.requests.filter((r) => r.path === SPEND_PATH).map((r) => [r.body?.reference, r.answered]);
    throw new Error(`the work was not in flight at once: ${JSON.stringify({ last, spends })}`);
  });
}

/** Where every piece of work is, for a failure's message. */
async function stateOf(work: Work) {
  const jobs = [];
  for (const id of work.photo.jobIds) {
    const job = (await work.photo.client.get(`/api/jobs/${id}`)).body;
    jobs.push({
      status: job.status,
      stage: job.current_stage,
      recovery_attempts: job.recovery_attempts,
      error: job.error_message,
    });
  }
  const submission = await getSubmission(work.claimsSend.submissionId);
  const send = await getEstimationSend(work.estimationSend.claimId);
  return {
    jobs,
    claimsSend: submission && { ...submission, charge_spend: undefined },
    estimationSend: send && {
      status: send.status,
      state: send.state,
      stage_state: send.stage_state,
      stage_lease_until: send.stage_lease_until,
      now: new Date().toISOString(),
    },
  };
}

/** Lets the work go on: AI answers at once, the platforms answer what they held. */
function unblock() {
  gateway.setLatency(0);
  claimsPlatform.release(ITEM_PUTS);
  estimation.release(ESTIMATION_CREATE);
}

const net = (spends: { amount: number; refunded: number }[]) => spends.reduce((n, s) => n + s.amount - s.refunded, 0);

/** Waits for every job and send to end, then checks the ledger and the items; answers what recovery did. */
async function settledAsTheWorkDone(work: Work, timeoutMs: number, clickDied: boolean) {
  const { client } = work.photo;
  const ended = <T>(what: string, check: () => Promise<T | null>) =>
    eventually(check, timeoutMs, 1000).catch(async () => {
      throw new Error(`${what} did not end within ${timeoutMs} ms: ${JSON.stringify(await stateOf(work))}`);
    });
  const jobs = await ended('the jobs', async () => {
    const all = [];
    for (const id of work.photo.jobIds) {
      const job = (await client.get(`/api/jobs/${id}`)).body;
      // The job whose click died with its spend was never started: it waits for the next click, its charge given back.
      const unstarted = clickDied && id === work.photo.clicked.jobId && job.status === 'awaiting_grouping';
      if (job.status !== 'complete' && job.status !== 'error' && !unstarted) return null;
      all.push(job);
    }
    return all;
  });
  const submission = await ended('the claims platform send', async () => {
    const s = await getSubmission(work.claimsSend.submissionId);
    return s && s.status !== 'processing' ? s : null;
  });
  const estimationSend = await ended('the estimation send', async () => {
    const s = await getEstimationSend(work.estimationSend.claimId);
    return s && s.status !== 'processing' ? s : null;
  });

  // Photo jobs: a complete job billed one credit per photo (each answered once) and holds one item per photo; a
  // failed one is given back whole. The ledger nets to that once every refund owed has landed (the billing sweep).
  for (const job of jobs) {
    const items = (await client.get(`/api/inventory/${job.id}`)).body as { item_number: number }[];
    const done = job.status === 'complete';
    expect({ id: job.id, status: job.status, items: items.length, found: job.items_found }).toEqual({
      id: job.id,
      status: job.status,
      items: done ? PHOTOS_PER_JOB : 0,
      found: done ? PHOTOS_PER_JOB : job.items_found,
    });
    if (done) expect(job.billed_cost_usd).toBe(PHOTOS_PER_JOB);
  }
  const jobLedger = await eventually(
    async () => {
      const spends = (await billing.spends(work.photo.teamId)) as {
        reference: string;
        amount: number;
        refunded: number;
      }[];
      const byJob = jobs.map((job) => ({
        id: job.id,
        net: net(spends.filter((s) => s.reference.startsWith(`job:${job.id}:`))),
        billed: job.status === 'complete' ? PHOTOS_PER_JOB : 0,
      }));
      return byJob.every((j) => j.net === j.billed) ? { spends, byJob } : null;
    },
    90_000,
    1000,
  ).catch(async () => ({ spends: await billing.spends(work.photo.teamId), byJob: null }));
  expect(jobLedger.byJob).not.toBeNull();
  // Every charge of the team is one of its jobs'.
  expect(jobLedger.spends.filter((s) => !jobs.some((job) => s.reference.startsWith(`job:${job.id}:`)))).toEqual([]);

  // Item numbers of the claim: 1..n, none missing, none twice.
  const numbers: number[] = [];
  for (const job of jobs)
    for (const item of (await client.get(`/api/inventory/${job.id}`)).body) numbers.push(item.item_number);
  numbers.sort((a, b) => a - b);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, k) => k + 1));

  // The claims platform send: every item counted once (sent or failed), each on the platform once, and charged
  // for what was sent (a failed item's credit given back).
  const [remote] = claimsPlatform.claims(work.claimsSend.token);
  const remoteItems = remote?.items ?? [];
  expect(new Set(remoteItems.map((i) => i.external_id)).size).toBe(remoteItems.length);
  expect(submission.done_count + submission.failed_count).toBe(
    submission.status === 'complete' ? submission.item_count : 0,
  );
  expect(remoteItems.length).toBeGreaterThanOrEqual(submission.done_count);
  const cpSpends = await eventually(async () => {
    const all = (await billing.spends(work.claimsSend.teamId)).filter((s) =>
      s.reference.startsWith(`as-send:${work.claimsSend.claimId}`),
    );
    return net(all) === submission.done_count ? all : null;
  }, 90_000);
  expect(cpSpends.length).toBeGreaterThan(0);

  // The estimation send: the platform's claim holds each item once, charged one credit an item sent.
  const sentItems = estimation.claims(work.estimationSend.key).flatMap((c) => c.items);
  expect(new Set(sentItems.map((i) => i.external_id)).size).toBe(sentItems.length);
  const estSpends = await eventually(async () => {
    const all = await billing.spends(work.estimationSend.teamId);
    return net(all) === (estimationSend.state === 'done' ? sentItems.length : 0) ? all : null;
  }, 90_000);
  expect(estSpends.length).toBeGreaterThan(0);

  return {
    jobs: jobs.map((j) => `${j.status} (recovery attempts ${j.recovery_attempts})`),
    recoveredJobs: jobs.filter((j) => j.recovery_attempts > 0).length,
    claimsSend: `${submission.status}: ${submission.done_count} sent, ${submission.failed_count} failed of ${submission.item_count}`,
    estimationSend: `${estimationSend.state}, ${sentItems.length} items on the platform`,
  };
}

it('control: the same work without the kill ends as it should, with nothing to recover', async () => {
  const work = await putWorkInFlight('control');
  const flight = await allInFlight(work);
  unblock();
  // The click goes through once its spend is answered, and its job runs like the others.
  expect((await work.photo.clicked.answer) as { status: number }).toMatchObject({ status: 200 });
  const outcome = await settledAsTheWorkDone(work, 120_000, false);
  console.log('crash control:', JSON.stringify({ flight, outcome }, null, 1));
  expect(outcome.recoveredJobs).toBe(0);
  expect((await work.estimationSend.answer) as { status: number }).toMatchObject({ status: 200 });
});

it('the machine dies mid-flight: after a restart on the same data every job and send ends, the ledger equal to the work done', async () => {
  const work = await putWorkInFlight('armed');
  // Killed only once work of every kind is in flight.
  const flight = await allInFlight(work);
  const killedAt = Date.now();
  const processes = await stack.killAll();
  // At least the stack's three process groups: its own (the emulators of S3 and SQS, queue delivery), serverless
  // offline and DynamoDB Local.
  expect(processes).toBeGreaterThanOrEqual(3);
  expect(flight).toMatchObject({ claimsSendOpen: true, estimationSendOpen: true });
  expect(flight.processingJobs).toBeGreaterThan(0);
  // The estimation request died with the stack: its caller got no answer.
  expect(await work.estimationSend.answer).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  expect(await work.photo.clicked.answer).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  unblock();

  stack = await startStack();
  const restartedAfter = Date.now() - killedAt;
  const outcome = await settledAsTheWorkDone(work, 300_000, true);
  console.log(
    'crash armed:',
    JSON.stringify(
      { processes, flight, restartedAfterMs: restartedAfter, settledAfterMs: Date.now() - killedAt, outcome },
      null,
      1,
    ),
  );
  // The click's spend landed after the click died: charged once, and given back whole by the billing sweep.
  const clickSpends = (await billing.spends(work.photo.teamId)).filter((s) =>
    s.reference.startsWith(`job:${work.photo.clicked.jobId}:`),
  );
  expect(clickSpends.map((s) => s.refunded === s.amount && s.amount > 0)).toEqual([true]);
  // The claims send was open at the kill and its queued messages were lost with the stack: it ended all the same
  // (settledAsTheWorkDone), its lost units sent again by the watchdog.
});

it('a start after only the starting process was killed stops what that start left running, on the same data', async () => {
  const team = await teamWithRoom('Hall', 10);
  // As when npm start's own process is killed: DynamoDB Local and serverless offline run on in groups of their own,
  // holding their ports and DynamoDB's files.
  const left = await stack.killStarter();
  orphans.push(...left);
  expect(left.filter((pid) => !dead(pid)).length).toBeGreaterThanOrEqual(2);

  stack = await startStack();
  expect(left.filter((pid) => !dead(pid))).toEqual([]);
  expect((await team.client.get(`/api/claims/${team.room.claim_id}`)).status).toBe(200);
});
