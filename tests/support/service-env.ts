/** The settings the local service runs with during tests. */
import { TEST_JWT_SECRET } from './tokens';

/** External ids on the admin allowlist in tests. */
export const TEST_ADMIN_EXTERNAL_IDS = ['900000001', 'admin-uuid-0000'];

export const TEST_SSO_SECRET = 'test-estimation-sso-secret-0123456789';

/** The sending domain the fake mail service (tests/fakes/mail-server.ts) answers for. */
export const TEST_MAIL_DOMAIN = 'mail.example.test';

export const serviceEnv: Record<string, string> = {
  APP_ENV: 'stage',
  LOG_LEVEL: 'WARN',
  CLAIMS_PLATFORM_JWT_SECRET: TEST_JWT_SECRET,
  ADMIN_EXTERNAL_USER_IDS: TEST_ADMIN_EXTERNAL_IDS.join(','),
  CORS_ORIGINS: 'http://localhost:3000,http://app.example.test',
  ESTIMATION_PLATFORM_APP_URL: 'https://estimation.example.test',
  ESTIMATION_PLATFORM_SSO_SECRET: TEST_SSO_SECRET,
  PUBLIC_APP_BASE_URL: 'http://app.example.test',
  /** Photo URLs in sends are this origin plus /api/photos/...; the fakes record them without fetching. */
  PUBLIC_BASE_URL: 'https://inventory.example.test',
  CLAIMS_PLATFORM_LOGIN_URL: 'https://claims-platform.example.test/login',
  // Gateway failure tests retry quickly; the fake's 'timeout' mode never answers.
  OPENROUTER_TIMEOUT_SECONDS: '3',
  OPENROUTER_RETRY_BACKOFF_MS: '20',
  // Likewise for speech-to-text (the fake's 'timeout' mode never answers either).
  // Long enough for the video tests' slowed-down transcripts (the frames finish first), short enough for failures.
  TRANSCRIPTION_TIMEOUT_SECONDS: '10',
  TRANSCRIPTION_RETRY_BACKOFF_MS: '20',
  // Mail goes to the run's fake (its URL and key are added by global-setup.ts); same quick failures.
  MAIL_DOMAIN: TEST_MAIL_DOMAIN,
  MAIL_FROM: `Contents Inventory <inventory@${TEST_MAIL_DOMAIN}>`,
  SUPPORT_EMAIL: 'support@example.test',
  MAIL_TIMEOUT_SECONDS: '3',
  // Mail-events webhook callbacks in the tests are signed with it (tests/e2e/insured-links.test.ts).
  MAIL_WEBHOOK_SIGNING_KEY: 'test-mail-webhook-signing-key',
  MAIL_RETRY_BACKOFF_MS: '20',
  // Capture source webhooks in the tests are signed with it (the fake's sendWebhook, capture-source-server.ts).
  CAPTURE_SOURCE_WEBHOOK_SECRET: 'test-capture-webhook-secret',
  // The fake capture source serves its downloads over plain http on 127.0.0.1 and a port of the run: global-setup.ts
  // names it in CAPTURE_SOURCE_DOWNLOAD_HOSTS (captureDownloadHosts below). A stalled download fails after this
  // (tests/e2e/capture-import.test.ts waits for one); the fake's slowest download pauses 40 ms between pieces.
  CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS: '3',
  // Homeowner link ceilings small enough to reach at their edges (tests/e2e/insured-drafts.test.ts); reads per
  // token low enough to spend from two processes at once. Bad tokens from the one test IP are not limited here
  // (every suite shares 127.0.0.1); that limit is tested in-process with its own IP.
  INSURED_MAX_FILE_MB: '1',
  INSURED_MAX_VIDEO_MB: '8',
  INSURED_CHUNK_MB: '5',
  INSURED_LINK_MAX_TOTAL_MB: '12',
  INSURED_LINK_MAX_FILES: '8',
  INSURED_LINK_MAX_ITEMS: '4',
  INSURED_RATE_LIMIT_READS_PER_MINUTE: '30',
  INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE: '0',
  // The outbound signals' fakes answer at once; a down or hanging one (tests/e2e/observability.test.ts) costs each
  // invocation at most this, which keeps its tests short.
  SIGNALS_TIMEOUT_MS: '1000',
  // Keep a developer's checkout .env and machine file out of the test service.
  MACHINE_SETTINGS_FILE: '/nonexistent/contents-inventory-settings.env',
  DOTENV_FILE: '/nonexistent/.env',
};

/** CAPTURE_SOURCE_DOWNLOAD_HOSTS of the test stack: the fake capture source's origin, plain http being a loopback's. */
const captureDownloadHosts = (fakeCaptureSourceUrl: string) => new URL(fakeCaptureSourceUrl).origin;

interface KeyedFake {
  url: string;
  apiKey: string;
}

/** The fakes of every external system, as the test run and the load benchmark start them. */
export interface ExternalFakes {
  gateway: KeyedFake;
  billing: KeyedFake;
  speech: KeyedFake;
  mail: KeyedFake;
  estimation: { url: string };
  claimsPlatform: { url: string };
  captureSource: { url: string };
  collector: { url: string };
  posthog: KeyedFake;
  sentry: { dsn: string };
}

/** The settings that point the service at those fakes (billing on, against its fake). */
export function fakeEndpointSettings(fakes: ExternalFakes): Record<string, string> {
  return {
    OPENROUTER_BASE_URL: fakes.gateway.url,
    OPENROUTER_API_KEY: fakes.gateway.apiKey,
    ENABLE_BILLING: 'true',
    BILLING_APP_DOMAIN: fakes.billing.url,
    BILLING_APP_API_KEY: fakes.billing.apiKey,
    TRANSCRIPTION_BASE_URL: fakes.speech.url,
    TRANSCRIPTION_API_KEY: fakes.speech.apiKey,
    MAIL_BASE_URL: fakes.mail.url,
    MAIL_API_KEY: fakes.mail.apiKey,
    ESTIMATION_PLATFORM_BASE_URL: fakes.estimation.url,
    CLAIMS_PLATFORM_BASE_URL: fakes.claimsPlatform.url,
    CAPTURE_SOURCE_API_BASE_URL: fakes.captureSource.url,
    CAPTURE_SOURCE_DOWNLOAD_HOSTS: captureDownloadHosts(fakes.captureSource.url),
    OTEL_EXPORTER_OTLP_ENDPOINT: fakes.collector.url,
    POSTHOG_HOST: fakes.posthog.url,
    POSTHOG_API_KEY: fakes.posthog.apiKey,
    SENTRY_DSN: fakes.sentry.dsn,
  };
}
