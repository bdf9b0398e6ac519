/**
 * What a scenario of the operations benchmark gets: the fakes, a signed-in
 * user, and `measure`, which zeroes the counters, runs the measured phase and
 * waits until the service has gone quiet before it takes the counts.
 *
 * The benchmark's own reads (polling a job's status, seeding) go straight to
 * the emulators, past the proxies, so only what the service and its clients
 * ask is counted.
 */
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { getJob } from '../../../lib/jobs/job-store';
import type { Job } from '../../../lib/jobs/job-record-rules';
import type { startFakeAiGateway } from '../../fakes/ai-gateway-server';
import type { startFakeClaimsPlatform } from '../../fakes/claims-platform-server';
import type { startFakeEstimationPlatform } from '../../fakes/estimation-platform-server';
import type { startFakeSpeechServer } from '../../fakes/speech-server';
import { type LoginClaimsInput, newTeamMember, signLoginToken } from '../../support/tokens';
import { Api } from '../api';
import type { OpsCounts, OpsTally } from './tally';

/** No counted request and no invocation for this long: the job's work is over. */
const QUIET_MS = 3000;
const QUIET_TIMEOUT_MS = 120_000;
const POLL_MS = 500;

export const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

export interface Fakes {
  gateway: Awaited<ReturnType<typeof startFakeAiGateway>>;
  speech: Awaited<ReturnType<typeof startFakeSpeechServer>>;
  estimation: Awaited<ReturnType<typeof startFakeEstimationPlatform>>;
  claimsPlatform: Awaited<ReturnType<typeof startFakeClaimsPlatform>>;
}

/** Requests the service made of the providers AWS does not bill: the AI gateway and speech-to-text. */
interface ProviderCalls {
  ai: number;
  speech: number;
}

/** What one measured phase cost; a scenario's result carries it as is. */
interface Measurement {
  counts: OpsCounts;
  seconds: number;
  providers: ProviderCalls;
}

interface Measured<T> {
  result: T;
  measurement: Measurement;
}

export interface ScenarioContext {
  fakes: Fakes;
  dir: string;
  /** A new team member signed in through the API (its team and user provisioned). */
  signIn(claims?: Partial<LoginClaimsInput>): Promise<Api>;
  measure<T>(phase: () => Promise<T>): Promise<Measured<T>>;
}

export interface ScenarioResult extends Measurement {
  title: string;
  /** The unit per-unit figures are given in (photo, video minute, page, item) and how many the job has. */
  unit: string;
  units: number;
  /** What the phase covered and what it produced, for the table's heading. */
  notes: string[];
}

/** One scenario's setup and measured phases (one table each). */
export interface Scenario {
  id: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult[]>;
}

/** Messages visible, in flight or delayed on every queue, asked of the emulator itself (not counted). */
async function pendingMessages(sqs: SQSClient): Promise<number> {
  const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
  let total = 0;
  for (const QueueUrl of QueueUrls) {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    // Dead-letter queues hold what failed for good: nothing more will run for it.
    if (/dlq|dead|failures/i.test(QueueUrl)) continue;
    total += Object.values(Attributes).reduce((n, v) => n + Number(v ?? 0), 0);
  }
  return total;
}

export function scenarioContext(
  fakes: Fakes,
  dir: string,
  tally: OpsTally,
  service: { url: string; secret: string; sqsEndpoint: string },
): ScenarioContext & { close(): void } {
  const sqs = new SQSClient({
    endpoint: service.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });

  async function untilQuiet(): Promise<void> {
    const deadline = Date.now() + QUIET_TIMEOUT_MS;
    let seen = tally.activity;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      await sleep(POLL_MS);
      if (tally.activity !== seen) {
        seen = tally.activity;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= QUIET_MS && (await pendingMessages(sqs)) === 0) return;
    }
    throw new Error(`the service was still busy ${QUIET_TIMEOUT_MS / 1000} s after the measured phase`);
  }

  return {
    fakes,
    dir,
    async signIn(claims = {}) {
      const api = new Api(service.url, await signLoginToken(newTeamMember(claims), { secret: service.secret }));
      await api.call('GET', '/api/auth/me');
      return api;
    },
    async measure(phase) {
      await untilQuiet();
      tally.reset();
      const before = { ai: fakes.gateway.requests.length, speech: fakes.speech.requests.length };
      const started = performance.now();
      const result = await phase();
      await untilQuiet();
      // The quiet wait itself is not the job's: the time is the phase's.
      const seconds = (performance.now() - started) / 1000 - QUIET_MS / 1000;
      const providers = {
        ai: fakes.gateway.requests.length - before.ai,
        speech: fakes.speech.requests.length - before.speech,
      };
      return { result, measurement: { counts: tally.snapshot(), seconds, providers } };
    },
    close: () => sqs.destroy(),
  };
}

/**
 * Reads a record in the table itself (not counted) until `done` says so; `done` throws for a record that failed.
 * `what` names it in the error past the deadline.
 */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T | null | undefined>,
  done: (record: T) => boolean,
  timeoutMs = 20 * 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await read();
    if (record && done(record)) return record;
    if (Date.now() > deadline) throw new Error(`${what} did not finish in time`);
    await sleep(POLL_MS);
  }
}

/** Polls the job until `done` says so; fails on status error. */
export const waitForJob = (jobId: string, done: (job: Job) => boolean, timeoutMs?: number): Promise<Job> =>
  pollUntil(
    `job ${jobId}`,
    () => getJob(jobId),
    (job) => {
      if (done(job)) return true;
      if (job.status === 'error') throw new Error(`job ${jobId} ended in error: ${job.error_message ?? ''}`);
      return false;
    },
    timeoutMs,
  );
