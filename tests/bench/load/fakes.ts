/**
 * The external systems, faked in the bench process as the test run fakes them
 * (tests/support/global-setup.ts), and the settings the service runs with
 * against them. The AI gateway and the speech-to-text provider answer like
 * busy providers: a latency drawn anew between 1 and 4 s every half second,
 * and a few percent of their requests answered 429, 500 or 503.
 */
import { startFakeAiGateway } from '../../fakes/ai-gateway-server';
import { startFakeBillingServer } from '../../fakes/billing-server';
import { startFakeCaptureSource } from '../../fakes/capture-source-server';
import { startFakeClaimsPlatform } from '../../fakes/claims-platform-server';
import { startFakeEstimationPlatform } from '../../fakes/estimation-platform-server';
import { startFakeMailServer } from '../../fakes/mail-server';
import { startFakeOtlpCollector } from '../../fakes/otlp-collector';
import { startFakePostHog } from '../../fakes/posthog-server';
import { startFakeSentry } from '../../fakes/sentry-server';
import { startFakeSpeechServer } from '../../fakes/speech-server';
import { fakeEndpointSettings, serviceEnv, TEST_MAIL_DOMAIN } from '../../support/service-env';

const LATENCY_MIN_MS = 1000;
const LATENCY_MAX_MS = 4000;
/** The share of provider requests answered with a failure. */
const FAULT_RATE = 0.03;
const FAULT_MODES = ['429', '500', '503'] as const;
const CHAOS_TICK_MS = 500;

export type Fakes = Awaited<ReturnType<typeof startFakes>>;

export async function startFakes() {
  const gateway = await startFakeAiGateway({ latencyMs: LATENCY_MIN_MS });
  // Every team has credits; the ledger is what the checks read.
  const billing = await startFakeBillingServer({ defaultBalance: 1_000_000 });
  const speech = await startFakeSpeechServer({ latencyMs: LATENCY_MIN_MS });
  const mail = await startFakeMailServer({ domain: TEST_MAIL_DOMAIN });
  const estimation = await startFakeEstimationPlatform();
  const claimsPlatform = await startFakeClaimsPlatform();
  const captureSource = await startFakeCaptureSource();
  const collector = await startFakeOtlpCollector();
  const posthog = await startFakePostHog();
  const sentry = await startFakeSentry();

  const injected = { gateway: 0, speech: 0 };
  let seen = { gateway: 0, speech: 0 };
  const latency = () => LATENCY_MIN_MS + Math.random() * (LATENCY_MAX_MS - LATENCY_MIN_MS);
  const mode = () => FAULT_MODES[Math.floor(Math.random() * FAULT_MODES.length)];
  // A failure armed now meets one of the next requests: arming one for FAULT_RATE of the requests that came keeps the rate.
  const chaos = setInterval(() => {
    gateway.setLatency(latency());
    speech.setLatency(latency());
    const now = { gateway: gateway.requests.length, speech: speech.requests.length };
    for (let n = seen.gateway; n < now.gateway; n++)
      if (Math.random() < FAULT_RATE) {
        gateway.failNext(mode());
        injected.gateway += 1;
      }
    for (let n = seen.speech; n < now.speech; n++)
      if (Math.random() < FAULT_RATE) {
        speech.failNext(mode());
        injected.speech += 1;
      }
    seen = now;
  }, CHAOS_TICK_MS);

  return {
    gateway,
    billing,
    speech,
    mail,
    estimation,
    claimsPlatform,
    /** Failures armed so far on the AI gateway and the speech provider. */
    injected,
    /** The providers answer at once and never fail again (the load is over). */
    calm() {
      clearInterval(chaos);
      gateway.setLatency(0);
      speech.setLatency(0);
    },
    /** The settings the service runs with against these fakes. */
    serviceSettings(): Record<string, string> {
      return {
        ...serviceEnv,
        APP_ENV: 'stage',
        // BENCH_LOAD_LOG_LEVEL raises the functions' log level to trace a stall; their output reaches the stack's
        // (kept by BENCH_LOAD_SERVICE_LOG) only with LOCAL_VERBOSE.
        LOG_LEVEL: process.env.BENCH_LOAD_LOG_LEVEL ?? 'ERROR',
        ...(process.env.BENCH_LOAD_LOG_LEVEL ? { LOCAL_VERBOSE: '1' } : {}),
        SLS_LOG_LEVEL: 'warning',
        // The providers take up to 4 s here; the test stack's 3 s gateway timeout would fail most calls.
        OPENROUTER_TIMEOUT_SECONDS: '30',
        TRANSCRIPTION_TIMEOUT_SECONDS: '30',
        // The watchdog and the billing sweep every 15 s, as in the test stack: owed refunds settle within the drain.
        LOCAL_SCHEDULE_SECONDS: '15',
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
      };
    },
    async stop() {
      clearInterval(chaos);
      for (const fake of [gateway, billing, speech, mail, collector, posthog, sentry])
        await fake.stop().catch(() => {});
      for (const fake of [estimation, claimsPlatform, captureSource]) await fake.close().catch(() => {});
    },
  };
}
