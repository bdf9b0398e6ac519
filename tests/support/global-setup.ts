/**
 * Starts the embedded AWS stack and the local service once for the whole run
 * (fresh, throwaway state on free ports) and tells the test workers where it
 * is through environment variables.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAiGateway } from '../fakes/ai-gateway-server';
import { startFakeBillingServer } from '../fakes/billing-server';
import { startFakeCaptureSource } from '../fakes/capture-source-server';
import { startFakeClaimsPlatform } from '../fakes/claims-platform-server';
import { startFakeEstimationPlatform } from '../fakes/estimation-platform-server';
import { startFakeMailServer } from '../fakes/mail-server';
import { startFakeOtlpCollector } from '../fakes/otlp-collector';
import { startFakePostHog } from '../fakes/posthog-server';
import { startFakeSentry } from '../fakes/sentry-server';
import { startFakeSpeechServer } from '../fakes/speech-server';
import { fakeEndpointSettings, serviceEnv, TEST_MAIL_DOMAIN } from './service-env';

const { startLocalService } = require('../../localstack/runtime/service.js');
const { freePort }: { freePort: () => Promise<number> } = require('../../localstack/emulators/emulators.js');
const { pdfSandboxEntryIn }: { pdfSandboxEntryIn: () => string } = require('../../localstack/runtime/handler-build.js');

/** SIGNALS_ID_KEY of the stack and of the test processes. */
const TEST_SIGNALS_ID_KEY = 'test-signals-id-key-0123456789abcdef';

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'contents-inventory-test-'));
  const output: string[] = [];
  // Named fault points (lib/faults) are on in the test stack; a test arms one with a file here (tests/support/fault-points.ts).
  const faultPointsDir = join(dataDir, 'fault-points');
  mkdirSync(faultPointsDir);
  // The external systems the pipelines call: one fake each for the whole run, driven by
  // the tests through their control APIs (tests/support/fake-gateway.ts, fake-billing.ts, fake-speech.ts, fake-mail.ts,
  // fake-estimation.ts, fake-claims-platform.ts, fake-capture-source.ts).
  const gateway = await startFakeAiGateway();
  // Teams have credits unless a test sets a balance; billing is on as in production.
  const billing = await startFakeBillingServer({ defaultBalance: 1_000_000 });
  const speech = await startFakeSpeechServer();
  const mail = await startFakeMailServer({ domain: TEST_MAIL_DOMAIN });
  const estimation = await startFakeEstimationPlatform();
  const claimsPlatform = await startFakeClaimsPlatform();
  const captureSource = await startFakeCaptureSource();
  // The outbound signals' endpoints (tests/support/fake-otlp.ts, fake-posthog.ts, fake-sentry.ts): telemetry is on in
  // every test, as in production, so each invocation's end-of-call flush runs against them (a few local requests).
  const collector = await startFakeOtlpCollector();
  const posthog = await startFakePostHog();
  const sentry = await startFakeSentry();
  (globalThis as Record<string, unknown>).__TEST_FAKES__ = [
    gateway,
    billing,
    speech,
    mail,
    { stop: () => estimation.close() },
    { stop: () => claimsPlatform.close() },
    { stop: () => captureSource.close() },
    collector,
    posthog,
    sentry,
  ];
  const service = await startLocalService({
    stage: 'test',
    dataDir,
    // Throwaway: the teardown's stop() deletes it, so runs leave nothing in the temp directory.
    removeDataDirOnStop: true,
    // Every function runs in serverless offline's own process: its worker threads (one per function instance, about
    // 300 over a run) each compiled the shared build anew and ran it cold, which was most of the suite's CPU.
    functionsInProcess: true,
    ports: { http: await freePort(), lambda: await freePort(), stream: await freePort() },
    env: {
      ...serviceEnv,
      // serverless offline's own notices (a line per request and per invocation, tens of thousands a run) are not
      // read by anyone here; warnings and the functions' own log lines still come through.
      SLS_LOG_LEVEL: 'warning',
      // The watchdog and the billing sweep every 15 s (the local stack only; EventBridge's shortest is a minute):
      // the fault tests leave recovery to these schedules, and wait for their ticks.
      LOCAL_SCHEDULE_SECONDS: '15',
      // A charged round whose run never started is given back after 30 s, the least the setting allows (more than
      // the API's 29 s): the fault matrix's dead clicks wait for it.
      UNSTARTED_ROUND_LEASE_SECONDS: '30',
      FAULT_POINTS: 'on',
      FAULT_POINTS_DIR: faultPointsDir,
      ...fakeEndpointSettings({
        gateway,
        billing,
        speech,
        mail,
        estimation,
        claimsPlatform,
        captureSource,
        collector,
        posthog,
        sentry,
      }),
      // The key of the hashes ids leave as, explicit so this process can compute them (tests/e2e/capability-ids.test.ts).
      SIGNALS_ID_KEY: TEST_SIGNALS_ID_KEY,
    },
    log: (line: string) => output.push(line),
    onOfflineOutput: (chunk: string) => {
      output.push(chunk);
      if (output.length > 400) output.splice(0, output.length - 400);
    },
  });
  (globalThis as Record<string, unknown>).__LOCAL_SERVICE__ = service;
  (globalThis as Record<string, unknown>).__LOCAL_SERVICE_OUTPUT__ = output;
  Object.assign(process.env, service.env, {
    TEST_SERVICE_URL: service.url,
    TEST_LAMBDA_ENDPOINT: service.lambdaEndpoint,
    TEST_FUNCTION_PREFIX: service.functionPrefix,
    TEST_DATA_DIR: dataDir,
    // The temporary directory the local service gives its functions (checked for leftovers by the import fuzz).
    TEST_SERVICE_TMPDIR: service.offlineTempDir,
    // The serverless offline process every function runs in (its memory is watched while hostile PDFs are read).
    TEST_SERVICE_PID: String(service.offlinePid),
    // Workers a test runs in its own process read PDFs in the stack build's sandbox child, as the stack's do.
    PDF_SANDBOX_ENTRY: pdfSandboxEntryIn(),
    TEST_FAKE_GATEWAY_URL: gateway.url,
    TEST_FAKE_BILLING_URL: billing.url,
    TEST_FAKE_SPEECH_URL: speech.url,
    TEST_FAKE_MAIL_URL: mail.url,
    TEST_FAKE_ESTIMATION_URL: estimation.url,
    TEST_FAKE_CLAIMS_PLATFORM_URL: claimsPlatform.url,
    TEST_FAKE_CAPTURE_SOURCE_URL: captureSource.url,
    TEST_FAKE_OTLP_URL: collector.url,
    TEST_FAKE_POSTHOG_URL: posthog.url,
    TEST_FAKE_SENTRY_URL: sentry.url,
    // Signals sent from this process hash ids as the stack does.
    SIGNALS_ID_KEY: TEST_SIGNALS_ID_KEY,
    // Use cases called in a test's own process send their signals to the fakes in this process, which answer
    // late while three test files and the stack share two cores: a 1 s bound there dropped error reports the
    // tests wait for, and on a machine busy with other work so did 5 s (this process also runs the S3 and SQS
    // emulators). The stack keeps the service's 1 s bound (the observability tests time it).
    SIGNALS_TIMEOUT_MS: '10000',
  });
  process.stdout.write(`\nlocal service ready at ${service.url} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
