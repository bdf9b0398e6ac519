/**
 * One line per setting, for .env.example and the configuration table of
 * docs/configuration.md. tests/unit/config/docs.test.ts checks that every setting has exactly
 * one line here and that both documents match what renders from it.
 */
import type { Settings } from './schema';

export const SETTING_GROUPS: { title: string; descriptions: Partial<Record<keyof Settings, string>> }[] = [
  {
    title: 'Credit prices and charging',
    descriptions: {
      BILLING_BLOCK_SECONDS: 'Length of a billing block; media time is rounded up to whole blocks.',
      COST_PER_VIDEO_BLOCK: 'Credits per video block.',
      COST_PER_AUDIO_BLOCK: 'Credits per audio block.',
      COST_PER_PHOTO_REQUEST: 'Credits per photo AI request (one per group that reaches the AI).',
      COST_PER_CONTENTS_ESTIMATION_ITEM: 'Credits per item sent to the estimation platform.',
      ENABLE_BILLING:
        'Prepaid mode through the billing service (needs BILLING_APP_DOMAIN and BILLING_APP_API_KEY, else fails open).',
      BILLING_APP_DOMAIN: 'Billing service: a bare domain (https assumed) or a full base URL.',
      BILLING_APP_API_KEY: 'Billing service bearer key.',
      BILLING_EXTERNAL_APP: "This service's app identifier at the billing service.",
      DEFAULT_TEAM_CREDIT_RATE: 'Dollars per credit for teams without their own credit_rate.',
    },
  },
  {
    title: 'Size and concurrency limits',
    descriptions: {
      MAX_UPLOAD_SIZE_MB: 'Per-file cap for video and audio uploads (413 above it).',
      MAX_PHOTO_UPLOAD_MB: 'Running total of photo bytes per photo job (413 above it).',
      MAX_CHUNK_BYTES: 'Hard cap per upload part.',
      RECOMMENDED_CHUNK_BYTES: 'Part size handed to clients.',
      MAX_PHOTOS_PER_ITEM: 'Photos per group (regroup and segment enforce it).',
      OPENROUTER_CONCURRENCY: 'AI calls in flight per video or audio job.',
      OPENROUTER_PHOTO_CONCURRENCY: 'AI calls in flight per photo job.',
      OPENROUTER_GLOBAL_CONCURRENCY:
        "AI calls in flight across the deployment: the units worker's concurrency (at most 1000, the SQS event source's limit; each invocation holds one connection). Size it to the AI provider's rate limit (docs/capacity.md).",
      WORKER_CONCURRENCY: 'Pipelines per worker (maps to the worker event source concurrency).',
      JOB_TIMEOUT_S: 'Longest one run of one job may take.',
      WEB_CONCURRENCY: 'Backend processes (single-server setting; Lambda scales per request).',
      STUCK_JOB_MINUTES: 'Watchdog threshold for a quiet job without a queue.',
      STUCK_JOB_MINUTES_WITH_QUEUE: 'Watchdog threshold for a quiet job with the queue.',
      FRAME_EXTRACTION_HEARTBEAT_SECONDS: 'Heartbeat interval during frame extraction.',
      FRAME_EXTRACTION_CONCURRENCY:
        'Frame extraction units (2-minute stretches of a video) run side by side per job, each on its own worker.',
      WORKER_SHUTDOWN_GRACE_SECONDS: 'Grace period for a worker to finish on shutdown.',
      ARCHIVE_PURGE_DAYS:
        'Archived claims, rooms and items older than this are deleted permanently by the daily purge (an item with its photo rows and the photo files nothing else shows).',
      RECENT_JOBS_LIMIT: 'How many recent jobs GET /api/jobs lists.',
      ADMIN_USER_SEARCH_CAP: 'Most users the admin search returns.',
      ADMIN_MEDIA_PHOTOS_PER_JOB: 'Photos per job in the admin media view.',
      JOB_LOG_BUFFER_LINES: 'Live log lines kept per job.',
      JOB_LOG_TTL_HOURS: 'Lifetime of the live job log mirror.',
    },
  },
  {
    title: 'Pipeline tuning',
    descriptions: {
      FRAME_EXTRACTION_FPS: 'Frames extracted per second of video.',
      FRAME_LONG_EDGE_PX: 'Long edge of extracted frames, never upscaled (0 keeps full size).',
      FRAME_JPEG_QUALITY: 'ffmpeg JPEG quality for frames (2 best to 31 worst).',
      KEYFRAME_DECODE_MIN_RATIO:
        'Keyframe-only decode when the keyframe rate is at least this times the fps (0 disables).',
      CHUNK_DURATION_SECONDS: 'Length of a video analysis chunk.',
      FRAMES_PER_MINUTE: 'Frame density picked for analysis.',
      MAX_FRAMES_PER_CALL: 'Most frames in one vision call.',
      VIDEO_DEDUP_WINDOW_SECONDS: 'Same-named items this close to a chunk boundary are merged.',
      MAX_PHOTOS_PER_CALL: 'Photos per call on the legacy batched path.',
      PHOTO_IMAGE_MAX_PIXELS: 'Photos are resized to at most this many pixels before the AI call.',
      PHOTO_IMAGE_MAX_LONG_EDGE: 'Long edge cap for photos sent to the AI.',
      VIDEO_FRAME_LONG_EDGE: 'Long edge of frames sent to the AI.',
      PHOTO_BUDGET_CREDIT_RATE_USD: 'Credit value used by the per-request output token budget.',
      PHOTO_BUDGET_TARGET_MARGIN: 'Share of the credit value the request may spend.',
      PHOTO_BUDGET_MIN_OUTPUT_TOKENS: 'Lower clamp of the output token budget.',
      PHOTO_BUDGET_MAX_OUTPUT_TOKENS: 'Upper clamp of the output token budget.',
      PHOTO_BUDGET_TRUNCATION_RATIO: 'An answer using this share of its budget counts as cut short.',
      PHOTO_MAX_PASSES: "Most passes per photo group, counting the first ('read the rest' ceiling).",
      OPENROUTER_TEMPERATURE: 'Temperature sent to models that accept one.',
      OPENROUTER_MODEL: 'Vision model id at the AI gateway.',
      OPENROUTER_BASE_URL: 'AI gateway base URL (OpenAI-compatible chat completions).',
      OPENROUTER_API_KEY: 'AI gateway key.',
      OPENROUTER_TIMEOUT_SECONDS: 'Seconds one AI gateway request may take before it is retried.',
      OPENROUTER_MAX_ATTEMPTS: 'Attempts per AI request (5xx, 429, timeouts and empty answers are retried).',
      OPENROUTER_RETRY_BACKOFF_MS: 'First retry pause of an AI request; doubles on each retry.',
      TRANSCRIPTION_MODEL: 'Speech-to-text model id.',
      TRANSCRIPTION_API_KEY: 'Speech-to-text key; without it pipelines run visual-only with a warning.',
      TRANSCRIPTION_BASE_URL: 'Speech-to-text provider base URL (Deepgram-compatible pre-recorded API).',
      TRANSCRIPTION_TIMEOUT_SECONDS:
        'Seconds one speech-to-text request (one audio piece) may take before it is retried.',
      TRANSCRIPTION_RETRY_BACKOFF_MS: 'First retry pause of a speech-to-text request; doubles on each retry.',
    },
  },
  {
    title: 'Insured link limits (0 or less disables a limit)',
    descriptions: {
      INSURED_LINK_TTL_DAYS: 'Lifetime of a homeowner link.',
      INSURED_MAX_FILE_MB: 'Largest single photo a homeowner may upload.',
      INSURED_MAX_VIDEO_MB: 'Largest video or voice note a homeowner may upload.',
      INSURED_CHUNK_MB: 'Part size for homeowner uploads.',
      INSURED_LINK_MAX_TOTAL_MB: 'Lifetime byte ceiling per link (deletion does not credit back).',
      INSURED_LINK_MAX_FILES: 'Most files per link.',
      INSURED_LINK_MAX_ITEMS: 'Most typed rows per link.',
      INSURED_RATE_LIMIT_READS_PER_MINUTE:
        'Reads per minute per token, counted across every instance (one limit for the service).',
      INSURED_RATE_LIMIT_WRITES_PER_MINUTE: 'Writes per minute per token, across every instance.',
      INSURED_RATE_LIMIT_UPLOADS_PER_MINUTE:
        'Photo uploads (both calls), chunked upload starts and part URL requests per minute per token, across every instance.',
      INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE:
        'Requests with a token that opens nothing, per minute per client IP, across every instance.',
    },
  },
  {
    title: 'Identity, integrations and environment',
    descriptions: {
      CLAIMS_PLATFORM_JWT_SECRET:
        'Shared HS256 secret of the login token. Outside APP_ENV=local, at least 32 bytes or the service refuses to start; empty is accepted and makes every login fail.',
      CLAIMS_PLATFORM_LOGIN_URL: 'Claims platform login page (GET /api/auth/config adds return_to).',
      CLAIMS_PLATFORM_COOKIE_NAME: 'Cookie that may carry the login token on same-domain deployments.',
      ADMIN_EXTERNAL_USER_IDS: 'Comma list of user external ids allowed into /api/admin.',
      CLAIMS_PLATFORM_BASE_URL: 'Claims platform API; required to submit.',
      CLAIMS_PLATFORM_BEARER_TOKEN: 'Optional global fallback token for the claims platform.',
      CLAIMS_PLATFORM_APP_URL: 'Deep links {app_url}/lkq/{claim_key}; empty renders plain text.',
      ESTIMATION_PLATFORM_BASE_URL: 'Estimation platform API host (not the web app); required to send.',
      ESTIMATION_PLATFORM_APP_URL: 'Estimation platform web app: deep links and the hand-off redirect.',
      ESTIMATION_PLATFORM_SSO_SECRET: 'Hand-off token secret (falls back to CLAIMS_PLATFORM_JWT_SECRET).',
      ESTIMATION_PLATFORM_SSO_TTL_MINUTES: 'Hand-off token lifetime.',
      PUBLIC_BASE_URL: "This service's public origin; required for photos in sends.",
      PUBLIC_APP_BASE_URL: 'Origin of the web app (login return_to, emailed homeowner links).',
      CAPTURE_SOURCE_API_BASE_URL: 'Capture source API; empty disables the integration.',
      CAPTURE_SOURCE_WEBHOOK_SECRET: 'Capture source webhook HMAC secret; empty answers 503.',
      CAPTURE_SOURCE_IMPORT_CONCURRENCY: 'Parallel downloads during a capture import.',
      CAPTURE_SOURCE_DOWNLOAD_HOSTS:
        "Comma list of the hosts the capture source's download URLs (and their redirects) may point at: host, host:port or *.domain, over https; http://host:port allows plain http to a loopback test host. Empty: the API's own host only.",
      CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS:
        'Longest a capture download may wait for its next bytes before it fails as stalled.',
      CAPTURE_SOURCE_DOWNLOAD_TIMEOUT_SECONDS:
        "Longest one capture download may take, redirects and retries included (inside a worker's 15 minutes).",
      MAIL_API_KEY: 'Mail service key; empty turns sending off.',
      MAIL_DOMAIN: 'Mail sending domain.',
      MAIL_BASE_URL: 'Mail service API base URL (Mailgun US; EU sending domains use https://api.eu.mailgun.net).',
      MAIL_FROM:
        'From address, bare or "Name <address>"; must be on MAIL_DOMAIN (checked at start-up when both are set).',
      SUPPORT_EMAIL: 'Where PDF import failure reports go.',
      MAX_EMAIL_ATTACHMENT_MB: 'Larger PDFs are reported without the attachment.',
      MAIL_WEBHOOK_SIGNING_KEY: 'Mail event webhook HMAC key; empty rejects every callback.',
      MAIL_TIMEOUT_SECONDS: 'Time allowed for one mail service call (attachments included).',
      MAIL_RETRY_BACKOFF_MS: 'First pause before retrying a failed mail call (5xx, 429, network); doubles per retry.',
      CHAT_WEBHOOK_URL: 'Chat webhook for job outcome messages; empty disables.',
      APP_ENV: 'production, stage or local (local is refused by serverless package).',
      LOCAL_AUTH_USER_EMAIL:
        'With APP_ENV=local: requests without a token act as this user (local bypass). serverless package refuses it when set.',
      LOCAL_AUTH_TEAM_TOKEN:
        "With the local bypass: the bypass team's claims platform token (a login token carries it as current_team_token), e.g. the demo fakes' token.",
      LOCAL_AUTH_ESTIMATION_KEY:
        "With the local bypass: the bypass team's estimation platform key (a login token carries it as current_team_estimation_intake_key), e.g. the demo fakes' key.",
      CORS_ORIGINS: 'Comma list of browser origins allowed to call the API.',
      LOG_LEVEL: 'DEBUG, INFO, WARN or ERROR.',
    },
  },
  {
    title: 'Observability (best-effort outbound signals; each is off until configured)',
    descriptions: {
      OTEL_SDK_DISABLED: 'Turns OpenTelemetry export off even when an endpoint is set.',
      OTEL_EXPORTER_OTLP_ENDPOINT:
        'OTLP/HTTP collector base URL: traces, metrics and logs go to /v1/traces, /v1/metrics and /v1/logs under it (JSON); empty exports nothing.',
      OTEL_EXPORTER_OTLP_HEADERS:
        'Headers sent with every OTLP export, as comma-separated key=value pairs (values percent-encoded), e.g. the collector key.',
      OTEL_SERVICE_NAME: 'service.name of everything exported.',
      POSTHOG_API_KEY: 'Product analytics project key (PostHog capture API); empty turns analytics off.',
      POSTHOG_HOST: 'Product analytics host; events are posted in batches to /batch/ under it.',
      SENTRY_DSN: 'Error tracking DSN of the backend project (Sentry); empty turns error tracking off.',
      SIGNALS_TIMEOUT_MS:
        'Longest one outbound signal may take (an OTLP export, an analytics batch, an error report); the flush at the end of every invocation waits at most this long.',
      SIGNALS_ID_KEY:
        "Key of the hashes ids leave as: every UUID in a span, OTLP log record, error report or analytics event becomes id_ + the first 24 hex characters of HMAC-SHA256(key, id in lower case), so a job id (which opens the job's media) never reaches those services (stdout logs keep raw ids). Empty: a key derived (HKDF-SHA256) from CLAIMS_PLATFORM_JWT_SECRET, which changes when that secret does; with neither, APP_ENV=local uses a fixed local-only key and other stages send every id as id_unkeyed. Set at least 32 random bytes to keep hashes stable across login secret rotations.",
    },
  },
  {
    title: 'Deployment (set by serverless.yml per stage; local defaults shown)',
    descriptions: {
      TABLE_NAME: 'DynamoDB table.',
      MEDIA_BUCKET: 'S3 bucket for media and per-team settings files.',
      QUEUE_NAME_PREFIX: 'SQS queues are named <prefix><purpose>.',
      FUNCTION_NAME_PREFIX:
        'Lambda functions are named <prefix><function> (the queue-outage fallback invokes workers directly).',
      TEAM_OBJECTS_ROLE_ARN:
        "ARN of the team-objects role (deploy/iam.js): the homeowner link's functions assume it with a session tag naming the link's team, and it reaches only teams/<that team>/ in the media bucket. Set by the packaging step on those functions; empty (npm start, tests) uses the function's own credentials. Presigned URLs signed with it last at most its one-hour session.",
      STREAM_BASE_URL:
        "Origin of the job event stream: the jobStream function's URL after deploy (npm start sets its own).",
      STAGE_LEASE_SECONDS: 'How long a worker holds a pipeline stage before it counts as interrupted.',
      PRESIGNED_URL_TTL_SECONDS: 'Lifetime of presigned upload and download URLs.',
    },
  },
  {
    title:
      'The PDF sandbox (every read of an uploaded PDF runs in a child process; a worker keeps one child warm for its next document while the child stays under half this ceiling)',
    descriptions: {
      PDF_SANDBOX_MEMORY_MB:
        "Resident memory the child reading one PDF may reach, in MB; past it the child is killed and the document fails as too large to read. Keep it below the PDF workers' memory (2,048 MB) less the worker's own (about 400 MB).",
      PDF_SANDBOX_SECONDS:
        'Wall time the child may take to open a PDF, and then for each step (a unit of pages, an image, a render), in seconds; past it the child is killed and the document fails as too large to read.',
      PDF_SANDBOX_ENTRY:
        "The child's script: relative to the function's root (the packaging puts it there), or absolute (the local stack and the tests name their build).",
    },
  },
  {
    title: 'Schedules, sweeps and leases',
    descriptions: {
      WATCHDOG_RATE:
        "How often the watchdog runs (the recovery of runs: jobs and both platforms' sends; homeowner submit rounds): an EventBridge rate expression, rate(<n> minute|minutes|hour|hours|day|days). Read when the functions are packaged and by `npm start`.",
      BILLING_SWEEP_RATE:
        'How often the billing sweep settles unconfirmed refunds and lost spends: an EventBridge rate expression, as WATCHDOG_RATE.',
      CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS:
        "A claims platform send's request's lease on the send's run; more than the API's 29 s, so a live request never loses it. Past it (and a minute with no heartbeat), the watchdog fails the send and gives its charge back.",
      ESTIMATION_SEND_LEASE_SECONDS:
        "An estimation platform send's request's lease on the send's run; more than the API's 29 s, so a live request never loses it. Past it (and a minute with no heartbeat), the watchdog has an engine worker carry the send on under the same charge reference.",
      UNSTARTED_ROUND_LEASE_SECONDS:
        "How long a job's charged round may wait for its run to start (and a spend asked for, for its answer to be recorded); more than the API's 29 s, since the request that charges it starts it. Past it, the billing sweep gives the round back and the next Process click charges a new one.",
    },
  },
];
