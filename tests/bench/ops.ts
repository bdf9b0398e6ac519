/**
 * Benchmark (l): what one job of each type asks of AWS, for the capacity and
 * cost model. Standalone: starts its own stack (stage ops) with a counting
 * proxy between the service and each emulator (startLocalService's
 * `interpose`) and counts, from zero for each job's measured phase:
 *  - DynamoDB operations and read/write capacity units (ConsumedCapacity as
 *    DynamoDB Local reports it, asked for on every request; computed from item
 *    sizes where it reports none or too little: ops/dynamodb-capacity.ts);
 *  - S3 requests by kind, the service's apart from the clients' presigned
 *    requests and browser POST uploads;
 *  - SQS actions and messages;
 *  - Lambda invocations and billed time per function (serverless offline's
 *    output), with each function's memory → GB-seconds.
 * Jobs: a 50-photo job, a 10-minute video, a 5-minute voice note, a 300-page
 * contents list and the photo job it leaves, a 5,000-item export (Excel, PDF
 * report) and a 500-item send to each platform.
 * The fakes answer at once: the counts matter, not the time. The figures are
 * also written to node_modules/.cache/contents-inventory/ops-last.json.
 * It passes when every job completes: it is a measurement, not a bound.
 *
 *   npm run bench -- ops                       # every job
 *   BENCH_OPS_ONLY=photos,send npm run bench -- ops
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAiGateway } from '../fakes/ai-gateway-server';
import { startFakeClaimsPlatform } from '../fakes/claims-platform-server';
import { startFakeEstimationPlatform } from '../fakes/estimation-platform-server';
import { startFakeSpeechServer } from '../fakes/speech-server';
import { capacityModel, formatCapacityModel } from './ops/capacity-model';
import { claimsPlatformSendScenario, exportScenario, sendScenario } from './ops/claim-scenarios';
import { type CountingProxy, type Emulator, startCountingProxy } from './ops/counting-proxy';
import { parseLambdaLine, providerMemoryMb, wholeLines } from './ops/lambda-lines';
import { type Fakes, type ScenarioResult, scenarioContext } from './ops/measure';
import { photoScenario, pdfScenario, videoScenario, voiceScenario } from './ops/media-scenarios';
import { formatScenario, totalsOf, writeJson } from './ops/report-tables';
import { OpsTally } from './ops/tally';
import { emitResult, runBenchmark } from './report';

const { startLocalService } = require('../../localstack/runtime/service.js');
const { freePort }: { freePort: () => Promise<number> } = require('../../localstack/emulators/emulators.js');

const NAME = 'ops';
const SCENARIOS = [
  photoScenario,
  videoScenario,
  voiceScenario,
  pdfScenario,
  exportScenario,
  sendScenario,
  claimsPlatformSendScenario,
];
const JWT_SECRET = 'bench-ops-claims-platform-secret-0123456789';
const OUTPUT_TAIL_LINES = 200;

const METHOD = {
  dynamodb:
    'ReturnConsumedCapacity INDEXES added to every request that did not ask (DynamoDB Local checks no signatures); ' +
    'capacity "reported" is its ConsumedCapacity (GSI units included and shown apart). Transactions of several ' +
    'writes are "computed per item" (2 × the 1 KB units of each Put; 2 for an Update, Delete or ConditionCheck, ' +
    'whose size the request does not show; never below the local figure), as DynamoDB Local reports only one ' +
    "item's units for them (their GSI units are its figure: a lower bound). " +
    '"computed": from item sizes (reads 4 KB units, eventually consistent half; writes 1 KB); ' +
    '"computed, refused": a write refused by its condition (or a cancelled transaction), billed all the same.',
  s3: 'method + path + query of each request through the proxy; "presigned" carries X-Amz-Signature in its query (a URL the service presigned: for the client, or for a tool of its own such as ffmpeg reading a video by range), "browser-post" is a form POST to the bucket without an Authorization header, "service" is signed by the functions (SDK).',
  sqs: 'X-Amz-Target (JSON protocol) or Action (query protocol); messages = batch entries sent or deleted, messages received; "empty" receives are the local event source mapping idling (1-second long polls per queue), which depends on time, not the job.',
  lambda:
    "serverless offline's (λ: fn) … Billed Duration lines (successful invocations only), memory from deploy/manifest.js or serverless.yml's provider; billed time is this machine's.",
  scope:
    'Counters zeroed before each measured phase, read once no request or invocation came for 3 s and no queue holds a message. Setup (media made, user, claim, seeding) is not counted; the benchmark polls job state in the table directly, past the proxies. Scheduled functions run once a day for the run.',
};

async function main() {
  const only = (process.env.BENCH_OPS_ONLY ?? '').split(',').filter(Boolean);
  const selected = SCENARIOS.filter((s) => only.length === 0 || only.includes(s.id));
  if (selected.length === 0)
    throw new Error(
      `BENCH_OPS_ONLY=${only.join(',')} names no scenario; known: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );

  const dir = mkdtempSync(join(tmpdir(), 'bench-ops-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ops-data-'));
  const fakes: Fakes = {
    gateway: await startFakeAiGateway({ apiKey: 'ops-gateway-key' }),
    speech: await startFakeSpeechServer({ apiKey: 'ops-speech-key' }),
    estimation: await startFakeEstimationPlatform(),
    claimsPlatform: await startFakeClaimsPlatform(),
  };
  const tally = new OpsTally();
  const proxies: CountingProxy[] = [];
  const emulators: Record<Emulator, string> = { dynamodb: '', s3: '', sqs: '' };
  const tail: string[] = [];
  const keep = (line: string) => {
    tail.push(line);
    if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
  };
  let service: any;
  const cleanUp = async () => {
    await service?.stop();
    for (const proxy of proxies) await proxy.close();
    await fakes.gateway.stop();
    await fakes.speech.stop();
    await fakes.estimation.close();
    await fakes.claimsPlatform.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = performance.now();
    service = await startLocalService({
      stage: 'ops',
      dataDir,
      removeDataDirOnStop: true,
      ports: { http: await freePort(), lambda: await freePort(), stream: await freePort() },
      env: {
        APP_ENV: 'stage',
        LOG_LEVEL: 'ERROR',
        CLAIMS_PLATFORM_JWT_SECRET: JWT_SECRET,
        MACHINE_SETTINGS_FILE: '/nonexistent/contents-inventory-settings.env',
        DOTENV_FILE: '/nonexistent/.env',
        OPENROUTER_BASE_URL: fakes.gateway.url,
        OPENROUTER_API_KEY: fakes.gateway.apiKey,
        TRANSCRIPTION_BASE_URL: fakes.speech.url,
        TRANSCRIPTION_API_KEY: fakes.speech.apiKey,
        ESTIMATION_PLATFORM_BASE_URL: fakes.estimation.url,
        ESTIMATION_PLATFORM_APP_URL: 'https://estimation.example.test',
        CLAIMS_PLATFORM_BASE_URL: fakes.claimsPlatform.url,
        PUBLIC_BASE_URL: 'https://inventory.example.test',
        // The schedules' work is the service's background, not a job's: they run once a day here.
        WATCHDOG_RATE: 'rate(1 day)',
        BILLING_SWEEP_RATE: 'rate(1 day)',
      },
      log: keep,
      onOfflineOutput: wholeLines((line) => {
        const invocation = parseLambdaLine(line);
        if (invocation) tally.lambda(invocation);
        else keep(line);
      }),
      interpose: async (direct: Record<Emulator, string>) => {
        Object.assign(emulators, direct);
        const through: Record<string, string> = {};
        for (const emulator of ['dynamodb', 's3', 'sqs'] as const) {
          const proxy = await startCountingProxy(emulator, direct[emulator], tally);
          proxies.push(proxy);
          through[emulator] = proxy.url;
        }
        return through;
      },
    });
    process.stdout.write(
      `ops stack ready at ${service.url} in ${((performance.now() - started) / 1000).toFixed(1)} s (counting proxies in front of DynamoDB, S3 and SQS)\n`,
    );
  } catch (err) {
    process.stdout.write(tail.join('\n'));
    await cleanUp();
    throw err;
  }

  // This process's own requests (seeding, polling) go straight to the emulators, uncounted.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = emulators.dynamodb;
  process.env.AWS_ENDPOINT_URL_S3 = emulators.s3;
  process.env.AWS_ENDPOINT_URL_SQS = emulators.sqs;
  const root = process.cwd();
  const { functions } = require(join(root, 'deploy', 'manifest.js'));
  const defaultMemory = providerMemoryMb(readFileSync(join(root, 'serverless.yml'), 'utf8'));
  const memoryMb = (fn: string): number => functions[fn]?.memorySize ?? defaultMemory;

  const ctx = scenarioContext(fakes, dir, tally, { url: service.url, secret: JWT_SECRET, sqsEndpoint: emulators.sqs });
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  try {
    for (const scenario of selected) {
      process.stdout.write(`\n${scenario.id}: setting up…\n`);
      try {
        for (const result of await scenario.run(ctx)) {
          results.push(result);
          process.stdout.write(`${formatScenario(result, memoryMb)}\n`);
        }
      } catch (err) {
        failures.push(`${scenario.id}: ${(err as Error).message.slice(0, 200)}`);
        process.stdout.write(`${scenario.id} failed: ${(err as Error).stack}\n${tail.slice(-40).join('\n')}\n`);
      }
    }
  } finally {
    ctx.close();
    await cleanUp();
  }

  const routed = (fn: string) => (functions[fn]?.events ?? []).some((event: { httpApi?: unknown }) => event.httpApi);
  const bound = (fn: string): number | null =>
    (functions[fn]?.events ?? []).find((event: { sqs?: { maximumConcurrency?: number } }) => event.sqs)?.sqs
      ?.maximumConcurrency ?? null;
  const model = capacityModel(results, memoryMb, routed, bound);
  process.stdout.write(`${formatCapacityModel(model)}\n`);
  const jsonFile = join(root, 'node_modules', '.cache', 'contents-inventory', 'ops-last.json');
  writeJson(jsonFile, results, memoryMb, METHOD, model);
  process.stdout.write(
    `\nHow the figures were obtained\n${Object.entries(METHOD)
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n')}\nJSON: ${jsonFile}\n`,
  );
  const summary: Record<string, string> = {};
  for (const r of results) {
    const t = totalsOf(r.counts, memoryMb);
    const per = (n: number) => (n / r.units).toFixed(2);
    summary[r.title] =
      `per ${r.unit}: ${per(t.rcu)} RCU, ${per(t.wcu)} WCU, ${per(t.s3Requests)} S3, ${per(t.sqsSends)} SQS sent, ${per(t.gbSeconds)} GB-s`;
  }
  for (const failure of failures) summary[`failed ${failure.split(':')[0]}`] = failure;
  emitResult({ name: NAME, pass: failures.length === 0, summary });
}

runBenchmark(NAME, main);
