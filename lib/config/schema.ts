/**
 * Every setting the specification names (Limits, Pipeline tuning defaults,
 * Insured link limits, Other configuration), plus the infrastructure names the
 * serverless deployment adds. Defaults are the spec's defaults.
 *
 * Values arrive as strings from the environment and files, so numbers and
 * booleans are coerced here; a value that cannot be coerced stops start-up
 * with a message naming the variable (see load.ts).
 */
import * as z from 'zod';
import { parseHostRule } from './host-rules';

const num = (def: number) => z.coerce.number().refine(Number.isFinite, 'must be a finite number').default(def);
const int = (def: number) => z.coerce.number().int('must be a whole number').default(def);
const str = (def = '') => z.string().default(def);
const bool = (def: boolean) =>
  z
    .union([
      z.boolean(),
      z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'TRUE', 'FALSE', 'True', 'False']),
    ])
    .transform((v) => (typeof v === 'boolean' ? v : ['true', '1', 'yes', 'on'].includes(v.toLowerCase())))
    .default(def);
/** Comma-separated list, blanks dropped. */
const list = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );

/**
 * An EventBridge rate expression, as a schedule's rate setting takes it:
 * rate(<n> <unit>), n a whole number from 1, the unit minute, hour or day,
 * singular for 1 and plural otherwise (EventBridge refuses "rate(1 minutes)"
 * and "rate(5 minute)"; the local scheduler reads the same form).
 */
function rateExpressionProblem(value: string): string | null {
  const match = /^rate\((\d+) (minute|hour|day)(s?)\)$/.exec(value);
  const example = 'e.g. rate(1 minute) or rate(5 minutes)';
  if (!match) return `must be an EventBridge rate expression, rate(<n> minute(s)|hour(s)|day(s)), ${example}`;
  const n = Number(match[1]);
  if (n < 1) return `must be a rate of at least 1, ${example}`;
  if ((n === 1) !== (match[3] === '')) return `must say ${n === 1 ? match[2] : `${match[2]}s`} for ${n}, ${example}`;
  return null;
}

const rate = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) => v.trim())
    .superRefine((v, ctx) => {
      const problem = rateExpressionProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** Comma list of allowed hosts (./host-rules.ts), each entry checked. */
const hostList = () =>
  list('').superRefine((entries, ctx) => {
    for (const entry of entries) {
      const rule = parseHostRule(entry);
      if (typeof rule === 'string') ctx.addIssue({ code: 'custom', message: rule });
    }
  });

/**
 * The mail service sends only from its own domain: MAIL_FROM, a bare address
 * or "Name <address>", must be on MAIL_DOMAIN. Checked only when both are set
 * (an unset one already turns sending off).
 */
function mailFromProblem(from: string, domain: string): string | null {
  const wanted = domain.trim().toLowerCase();
  if (!from.trim() || !wanted) return null;
  const address = (/<([^<>]*)>\s*$/.exec(from)?.[1] ?? from).trim();
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const host = address.slice(at + 1).toLowerCase();
  const example = `e.g. inventory@${wanted} or "Contents Inventory <inventory@${wanted}>"`;
  if (at <= 0 || !host || /\s/.test(local)) return `must be an email address on MAIL_DOMAIN, ${example}`;
  if (host === wanted) return null;
  return `must be an address on MAIL_DOMAIN (${wanted}), not on ${host}: ${example}`;
}

const settingFields = z.object({
  // --- Credit prices and charging ---
  BILLING_BLOCK_SECONDS: int(20).refine((v) => v > 0, 'must be positive'),
  COST_PER_VIDEO_BLOCK: num(3),
  COST_PER_AUDIO_BLOCK: num(1),
  COST_PER_PHOTO_REQUEST: num(1),
  COST_PER_CONTENTS_ESTIMATION_ITEM: num(1),
  ENABLE_BILLING: bool(false),
  BILLING_APP_DOMAIN: str(),
  BILLING_APP_API_KEY: str(),
  BILLING_EXTERNAL_APP: str('contents-inventory'),
  DEFAULT_TEAM_CREDIT_RATE: num(0.15),

  // --- Size and concurrency limits ---
  MAX_UPLOAD_SIZE_MB: num(2000),
  MAX_PHOTO_UPLOAD_MB: num(8000),
  MAX_CHUNK_BYTES: int(32 * 1024 * 1024),
  RECOMMENDED_CHUNK_BYTES: int(16 * 1024 * 1024),
  MAX_PHOTOS_PER_ITEM: int(5).refine((v) => v >= 1, 'must be at least 1'),
  OPENROUTER_CONCURRENCY: int(6).refine((v) => v >= 1, 'must be at least 1'),
  OPENROUTER_PHOTO_CONCURRENCY: int(12).refine((v) => v >= 1, 'must be at least 1'),
  // The units worker's event source concurrency; SQS event sources allow at most 1,000.
  OPENROUTER_GLOBAL_CONCURRENCY: int(24).refine((v) => v >= 1 && v <= 1000, 'must be between 1 and 1000'),
  WORKER_CONCURRENCY: int(4),
  JOB_TIMEOUT_S: int(3600),
  WEB_CONCURRENCY: int(2),
  STUCK_JOB_MINUTES: num(15),
  STUCK_JOB_MINUTES_WITH_QUEUE: num(30),
  FRAME_EXTRACTION_HEARTBEAT_SECONDS: num(10),
  FRAME_EXTRACTION_CONCURRENCY: int(8).refine((v) => v >= 1, 'must be at least 1'),
  WORKER_SHUTDOWN_GRACE_SECONDS: num(30),
  ARCHIVE_PURGE_DAYS: num(30),
  RECENT_JOBS_LIMIT: int(50),
  ADMIN_USER_SEARCH_CAP: int(200),
  ADMIN_MEDIA_PHOTOS_PER_JOB: int(12),
  JOB_LOG_BUFFER_LINES: int(1000),
  JOB_LOG_TTL_HOURS: num(24),

  // --- Pipeline tuning defaults ---
  FRAME_EXTRACTION_FPS: num(1.0),
  FRAME_LONG_EDGE_PX: int(1600),
  FRAME_JPEG_QUALITY: int(4).refine((v) => v >= 2 && v <= 31, 'must be between 2 and 31'),
  KEYFRAME_DECODE_MIN_RATIO: num(0.8),
  CHUNK_DURATION_SECONDS: num(30.0),
  FRAMES_PER_MINUTE: int(60),
  MAX_FRAMES_PER_CALL: int(60),
  VIDEO_DEDUP_WINDOW_SECONDS: num(3.0),
  MAX_PHOTOS_PER_CALL: int(8),
  PHOTO_IMAGE_MAX_PIXELS: int(1150000),
  PHOTO_IMAGE_MAX_LONG_EDGE: int(1568),
  VIDEO_FRAME_LONG_EDGE: int(768),
  PHOTO_BUDGET_CREDIT_RATE_USD: num(0.1),
  PHOTO_BUDGET_TARGET_MARGIN: num(0.8),
  PHOTO_BUDGET_MIN_OUTPUT_TOKENS: int(800),
  PHOTO_BUDGET_MAX_OUTPUT_TOKENS: int(3500),
  PHOTO_BUDGET_TRUNCATION_RATIO: num(0.95),
  PHOTO_MAX_PASSES: int(3).refine((v) => v >= 1, 'must be at least 1'),
  OPENROUTER_TEMPERATURE: num(0),
  OPENROUTER_MODEL: str('google/gemini-2.5-flash'),
  OPENROUTER_BASE_URL: str('https://openrouter.ai/api/v1'),
  OPENROUTER_API_KEY: str(),
  OPENROUTER_TIMEOUT_SECONDS: num(120).refine((v) => v > 0, 'must be positive'),
  OPENROUTER_MAX_ATTEMPTS: int(4).refine((v) => v >= 1, 'must be at least 1'),
  OPENROUTER_RETRY_BACKOFF_MS: int(1000).refine((v) => v >= 0, 'must not be negative'),
  TRANSCRIPTION_MODEL: str('nova-3'),
  TRANSCRIPTION_API_KEY: str(),
  TRANSCRIPTION_BASE_URL: str('https://api.deepgram.com'),
  TRANSCRIPTION_TIMEOUT_SECONDS: num(120).refine((v) => v > 0, 'must be positive'),
  TRANSCRIPTION_RETRY_BACKOFF_MS: int(1000).refine((v) => v >= 0, 'must not be negative'),

  // --- Insured link limits (0 or less disables a limit) ---
  INSURED_LINK_TTL_DAYS: num(30),
  INSURED_MAX_FILE_MB: num(80),
  INSURED_MAX_VIDEO_MB: num(1500),
  INSURED_CHUNK_MB: num(16),
  INSURED_LINK_MAX_TOTAL_MB: num(4000),
  INSURED_LINK_MAX_FILES: int(2000),
  INSURED_LINK_MAX_ITEMS: int(5000),
  INSURED_RATE_LIMIT_READS_PER_MINUTE: int(120),
  INSURED_RATE_LIMIT_WRITES_PER_MINUTE: int(120),
  INSURED_RATE_LIMIT_UPLOADS_PER_MINUTE: int(60),
  INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE: int(20),

  // --- Other configuration ---
  CLAIMS_PLATFORM_JWT_SECRET: str(),
  CLAIMS_PLATFORM_LOGIN_URL: str('https://claims-platform.example.com/login'),
  CLAIMS_PLATFORM_COOKIE_NAME: str('bt_shared_data'),
  ADMIN_EXTERNAL_USER_IDS: list('7,10'),
  CLAIMS_PLATFORM_BASE_URL: str(),
  CLAIMS_PLATFORM_BEARER_TOKEN: str(),
  CLAIMS_PLATFORM_APP_URL: str(),
  ESTIMATION_PLATFORM_BASE_URL: str(),
  ESTIMATION_PLATFORM_APP_URL: str(),
  ESTIMATION_PLATFORM_SSO_SECRET: str(),
  ESTIMATION_PLATFORM_SSO_TTL_MINUTES: num(3).refine((v) => v > 0, 'must be positive'),
  PUBLIC_BASE_URL: str(),
  PUBLIC_APP_BASE_URL: str('http://localhost:3000'),
  CAPTURE_SOURCE_API_BASE_URL: str(),
  CAPTURE_SOURCE_WEBHOOK_SECRET: str(),
  CAPTURE_SOURCE_IMPORT_CONCURRENCY: int(4),
  CAPTURE_SOURCE_DOWNLOAD_HOSTS: hostList(),
  CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS: num(30).refine((v) => v > 0, 'must be positive'),
  CAPTURE_SOURCE_DOWNLOAD_TIMEOUT_SECONDS: num(600).refine((v) => v > 0, 'must be positive'),
  MAIL_API_KEY: str(),
  MAIL_DOMAIN: str(),
  MAIL_BASE_URL: str('https://api.mailgun.net'),
  MAIL_FROM: str(),
  SUPPORT_EMAIL: str(),
  MAX_EMAIL_ATTACHMENT_MB: num(20),
  MAIL_WEBHOOK_SIGNING_KEY: str(),
  MAIL_TIMEOUT_SECONDS: num(60).refine((v) => v > 0, 'must be positive'),
  MAIL_RETRY_BACKOFF_MS: int(1000).refine((v) => v >= 0, 'must not be negative'),
  CHAT_WEBHOOK_URL: str(),
  APP_ENV: z.enum(['production', 'stage', 'local']).default('production'),
  LOCAL_AUTH_USER_EMAIL: str(),
  LOCAL_AUTH_TEAM_TOKEN: str(),
  LOCAL_AUTH_ESTIMATION_KEY: str(),
  CORS_ORIGINS: list('http://localhost:3000'),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'debug', 'info', 'warn', 'error']).default('INFO'),

  // --- Observability: outbound signals, each off until configured (lib/observability) ---
  OTEL_SDK_DISABLED: bool(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: str().refine(
    (v) => !v.trim() || /^https?:\/\/\S+$/i.test(v.trim()),
    'must be an http(s) URL or empty',
  ),
  OTEL_EXPORTER_OTLP_HEADERS: str(),
  OTEL_SERVICE_NAME: str('contents-inventory'),
  POSTHOG_API_KEY: str(),
  POSTHOG_HOST: str('https://us.i.posthog.com'),
  SENTRY_DSN: str(),
  SIGNALS_TIMEOUT_MS: int(2000).refine((v) => v >= 1 && v <= 10_000, 'must be between 1 and 10000'),
  SIGNALS_ID_KEY: str(),

  // --- Deployment names (serverless.yml sets these; local defaults match the embedded stack) ---
  TABLE_NAME: str('contents-inventory-local'),
  MEDIA_BUCKET: str('contents-inventory-local-media'),
  /** Queues are named <prefix><purpose>, e.g. contents-inventory-local-purge. */
  QUEUE_NAME_PREFIX: str('contents-inventory-local-'),
  /** Lambda function names are <prefix><function>, e.g. contents-inventory-local-stageWorker. */
  FUNCTION_NAME_PREFIX: str('contents-inventory-local-'),
  /** The role a public function assumes, tagged with one team, to reach that team's objects only (lib/blob/team-credentials.ts); empty locally. */
  TEAM_OBJECTS_ROLE_ARN: str(),
  /** How long a worker holds a stage or unit before another may take it over (longer than a worker can run). */
  STAGE_LEASE_SECONDS: int(960).refine((v) => v >= 1, 'must be at least 1'),
  /** Origin of the job event stream (the jobStream Function URL in AWS; npm start runs one locally). */
  STREAM_BASE_URL: str(),
  PRESIGNED_URL_TTL_SECONDS: int(900).refine((v) => v > 0 && v <= 604800, 'must be between 1 and 604800'),

  // --- The PDF sandbox (lib/pdf/sandbox.ts) ---
  /** Below the PDF workers' 2,048 MB, with room for the worker itself. */
  PDF_SANDBOX_MEMORY_MB: int(1024).refine((v) => v >= 128, 'must be at least 128'),
  PDF_SANDBOX_SECONDS: int(120).refine((v) => v >= 1, 'must be at least 1'),
  PDF_SANDBOX_ENTRY: str('functions/sandbox/pdf-reader.js'),

  // --- Schedules, sweeps and leases (rates are read when the functions are packaged or `npm start` starts) ---
  WATCHDOG_RATE: rate('rate(1 minute)'),
  BILLING_SWEEP_RATE: rate('rate(5 minutes)'),
  /** Longer than an HTTP function may run (29 s): a live request never loses its lease. */
  CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS: int(60).refine((v) => v > 29, 'must be more than 29 (the API limit)'),
  ESTIMATION_SEND_LEASE_SECONDS: int(60).refine((v) => v > 29, 'must be more than 29 (the API limit)'),
  UNSTARTED_ROUND_LEASE_SECONDS: int(60).refine((v) => v > 29, 'must be more than 29 (the API limit)'),
});

export const settingsSchema = settingFields.superRefine((values, ctx) => {
  const problem = mailFromProblem(values.MAIL_FROM, values.MAIL_DOMAIN);
  if (problem) ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: problem });
});

export type Settings = z.output<typeof settingsSchema>;
export type SettingsInput = Partial<Record<keyof Settings, string | number | boolean>>;
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as (keyof Settings)[];
