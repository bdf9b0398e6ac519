/**
 * `npm start`: the whole service on this machine — embedded DynamoDB, S3 and
 * SQS (data kept in ./.local across restarts), the API on
 * http://localhost:3000, queue delivery to the workers, and the schedules.
 * Ctrl-C stops everything it started.
 *
 * Defaults for a first run: APP_ENV=local with the local sign-in bypass as
 * developer@localhost, unless the environment or .env says otherwise.
 */
const path = require('node:path');
const { mkdirSync } = require('node:fs');

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const root = path.join(__dirname, '..', '..');
const port = (name, fallback) => Number(process.env[name] || fallback);

function localDefaults() {
  const { loadTypeScript } = require('../../deploy/manifest.js');
  const { loadSettings, layeredValues } = loadTypeScript('lib/config/load.ts');
  const defaults = {};
  // Local by default, unless the environment, .env or the machine file says otherwise.
  if (layeredValues().APP_ENV === undefined) defaults.APP_ENV = 'local';
  // Validate every setting up front: a bad value names its variable and stops here.
  const settings = loadSettings({ overrides: defaults });
  if (settings.APP_ENV === 'local' && !settings.LOCAL_AUTH_USER_EMAIL)
    defaults.LOCAL_AUTH_USER_EMAIL = 'developer@localhost';
  const captureHosts = localCaptureDownloadHosts(settings, loadTypeScript('lib/config/host-rules.ts'));
  if (captureHosts) defaults.CAPTURE_SOURCE_DOWNLOAD_HOSTS = captureHosts;
  return defaults;
}

/**
 * A local capture source on a loopback http origin (the demo fake of `npm run fakes`) serves its downloads from
 * that origin over plain http, which only CAPTURE_SOURCE_DOWNLOAD_HOSTS can allow: a local start allows it unless
 * the setting is given.
 */
function localCaptureDownloadHosts(settings, { parseHostRule }) {
  if (settings.APP_ENV !== 'local' || settings.CAPTURE_SOURCE_DOWNLOAD_HOSTS.length) return undefined;
  const api = settings.CAPTURE_SOURCE_API_BASE_URL.trim();
  if (!/^http:\/\//i.test(api) || !URL.canParse(api)) return undefined;
  const origin = new URL(api).origin;
  // parseHostRule refuses plain http to anything but a loopback host.
  return typeof parseHostRule(origin) === 'string' ? undefined : origin;
}

const HTTP_METHODS = 'GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS';
/** A request line's method and path, as serverless offline prints it: `GET /api/... (λ: name)`. */
const REQUEST_PATH = new RegExp(`\\b(${HTTP_METHODS}) (/[^\\s]*)`, 'g');
/** Without a route, a homeowner token by position (after /insured/) or shape (43 base64url characters). */
const INSURED_SEGMENT = /(\/insured\/)[^/?#\s]+/g;
const LINK_TOKEN_SEGMENT = /(^|\/)[A-Za-z0-9_-]{43}(?=\/|$)/g;

/**
 * The route table and lib/http/route.ts's loggablePath from one bundle: the
 * credential marks of the routes' parameters live in route.ts's registry, so
 * both must share one copy of it.
 */
function loadRequestPaths() {
  const { loadTypeScriptSource } = require('../../deploy/manifest.js');
  return loadTypeScriptSource(
    'localstack/runtime/request-paths.ts',
    "export { routeTable } from '../../lib/api/route-table'; export { loggablePath, MASKED_CREDENTIAL } from '../../lib/http/route';",
  );
}

/**
 * The masking of serverless offline's request lines: each path written as
 * the service's request log writes it (loggablePath: its route's template
 * with the ids filled in and credential parameters, a homeowner link's token,
 * masked as MASKED_CREDENTIAL); a path no route matches loses any segment
 * after /insured/ and any token-shaped segment; a query string is dropped.
 */
function requestLineMasker({ routeTable, loggablePath, MASKED_CREDENTIAL }) {
  // Static routes first: /api/public/insured/mail-events is not a token.
  const routes = routeTable
    .map((route) => {
      const names = [];
      const pattern = route.path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const param = /^\{([^}+]+)(\+?)\}$/.exec(part);
          if (!param) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
          names.push(param[1]);
          return param[2] ? '(.+)' : '([^/]+)';
        })
        .join('');
      return { route, names, pattern: new RegExp(`^${pattern}$`) };
    })
    .sort((a, b) => a.names.length - b.names.length);
  const maskedPath = (method, requestPath) => {
    const [pathOnly, query] = requestPath.split(/(?=[?#])/, 2);
    const suffix = query === undefined ? '' : '?[query]';
    for (const { route, names, pattern } of routes) {
      if (route.method !== method && method !== 'HEAD' && method !== 'OPTIONS') continue;
      const match = pattern.exec(pathOnly);
      if (!match) continue;
      const values = Object.fromEntries(names.map((name, i) => [name, safeDecode(match[i + 1])]));
      return loggablePath(route, values) + suffix;
    }
    return (
      pathOnly
        .replace(INSURED_SEGMENT, `$1${MASKED_CREDENTIAL}`)
        .replace(LINK_TOKEN_SEGMENT, `$1${MASKED_CREDENTIAL}`) + suffix
    );
  };
  return (text) =>
    text.replace(REQUEST_PATH, (_, method, requestPath) => `${method} ${maskedPath(method, requestPath)}`);
}

function safeDecode(value) {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * serverless offline's output passed through with its request lines masked
 * (LOCAL_VERBOSE=1): a line is written once it is whole, so a path split
 * across two chunks is masked all the same.
 */
function maskedOfflineOutput(write, mask) {
  let partial = '';
  return (chunk) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n') + 1;
    partial = text.slice(end);
    if (end > 0) write(mask(text.slice(0, end)));
  };
}

/** The masking with the service's routes; without them (they failed to load) every path gets the fallback. */
function offlineRequestMask() {
  try {
    return requestLineMasker(loadRequestPaths());
  } catch {
    return requestLineMasker({ routeTable: [], loggablePath: () => '', MASKED_CREDENTIAL: '[credential]' });
  }
}

async function main() {
  let defaults;
  try {
    defaults = localDefaults();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  Object.assign(process.env, defaults);

  const dataDir = path.join(root, '.local');
  mkdirSync(dataDir, { recursive: true });
  const { startLocalService } = require('./service');
  const log = (line) => console.log(`[local] ${line}`);
  log('starting the embedded AWS stack and serverless offline…');

  let service;
  let stopping = false;
  const shutdown = async (signal) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    await service?.stop();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  try {
    service = await startLocalService({
      stage: 'local',
      dataDir,
      ports: {
        http: port('LOCAL_HTTP_PORT', 3000),
        lambda: port('LOCAL_LAMBDA_PORT', 3002),
        stream: port('LOCAL_STREAM_PORT', 3001),
        dynamodb: port('LOCAL_DYNAMODB_PORT', 8000),
        s3: port('LOCAL_S3_PORT', 4569),
        sqs: port('LOCAL_SQS_PORT', 9324),
      },
      env: defaults,
      watch: true,
      log,
      onOfflineOutput: process.env.LOCAL_VERBOSE
        ? maskedOfflineOutput((text) => process.stdout.write(text), offlineRequestMask())
        : undefined,
    });
  } catch (err) {
    console.error(`[local] could not start: ${err.message}`);
    process.exit(1);
  }
  if (stopping) return;
  const who = process.env.LOCAL_AUTH_USER_EMAIL
    ? `, signed in as ${process.env.LOCAL_AUTH_USER_EMAIL} (local bypass)`
    : '';
  console.log(
    `Contents inventory service ready at ${service.url} (workers and schedules running${who}; Ctrl-C to stop)`,
  );
}

if (require.main === module) void main();

module.exports = { requestLineMasker, loadRequestPaths, maskedOfflineOutput };
