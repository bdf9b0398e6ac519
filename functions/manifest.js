'use strict';
/**
 * Builds serverless.yml's `functions:` block and the HTTP API CORS settings
 * from the TypeScript declarations (lib/http/route-table.ts and
 * lib/background/functions.ts), so routes and workers are declared once.
 * The declarations are bundled in memory with esbuild (no build step).
 */
const path = require('node:path');
const Module = require('node:module');
const { buildSync } = require('esbuild');

const root = path.join(__dirname, '..');

function loadTypeScript(relativePath) {
  const file = path.join(root, relativePath);
  const { outputFiles } = buildSync({
    entryPoints: [file],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
    packages: 'external',
  });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  mod._compile(outputFiles[0].text, file);
  return mod.exports;
}

/** PurgeQueue for purpose 'purge', the logical id serverless.yml declares. */
function queueLogicalId(purpose) {
  return `${purpose.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}Queue`;
}

/** Deployment names come from serverless.yml itself (they depend on the stage). */
const NAMES_FROM_SERVERLESS_YML = new Set(['TABLE_NAME', 'MEDIA_BUCKET', 'QUEUE_NAME_PREFIX']);

/**
 * The settings the functions run with: the layered settings of this machine
 * (a bad value stops packaging with the variable's name), only where they
 * differ from the spec's defaults.
 */
function buildSettingsEnvironment(config) {
  const defaults = config.settingsSchema.parse({});
  const settings = config.loadSettings();
  const environment = {};
  for (const [name, value] of Object.entries(settings)) {
    if (NAMES_FROM_SERVERLESS_YML.has(name) || JSON.stringify(value) === JSON.stringify(defaults[name])) continue;
    environment[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return environment;
}

function buildFunctions(environment, settings) {
  const { routeTable } = loadTypeScript('lib/http/route-table.ts');
  const { backgroundFunctions } = loadTypeScript('lib/background/functions.ts');
  const functions = {};
  for (const route of routeTable) {
    if (functions[route.name]) throw new Error(`Duplicate function name ${route.name}`);
    functions[route.name] = {
      handler: `functions/${route.handler}.handler`,
      events: [{ httpApi: { method: route.method, path: route.path } }],
      environment,
      ...(route.lambda ?? {}),
    };
  }
  for (const fn of backgroundFunctions) {
    if (functions[fn.name]) throw new Error(`Duplicate function name ${fn.name}`);
    if (fn.kind === 'stream') {
      functions[fn.name] = { handler: `functions/${fn.handler}.handler`, timeout: fn.timeout, environment, url: { invokeMode: 'RESPONSE_STREAM', cors: true } };
      continue;
    }
    const event =
      fn.kind === 'queue'
        ? {
            sqs: {
              arn: { 'Fn::GetAtt': [queueLogicalId(fn.queue), 'Arn'] },
              batchSize: fn.batchSize,
              functionResponseType: 'ReportBatchItemFailures',
              ...(fn.maximumConcurrency
                ? { maximumConcurrency: Math.max(2, typeof fn.maximumConcurrency === 'number' ? fn.maximumConcurrency : settings[fn.maximumConcurrency]) }
                : {}),
            },
          }
        : { schedule: { rate: [fn.rate] } };
    functions[fn.name] = {
      handler: `functions/${fn.handler}.handler`,
      timeout: fn.timeout,
      ...(fn.memorySize ? { memorySize: fn.memorySize } : {}),
      environment: { ...environment, ...(fn.environment ?? {}) },
      events: [event],
    };
  }
  return functions;
}

function buildCors(config) {
  const settings = config.loadSettings();
  return {
    allowedOrigins: settings.CORS_ORIGINS,
    allowCredentials: true,
    allowedHeaders: ['Content-Type', 'Authorization', 'X-Requested-With', 'Idempotency-Key'],
    allowedMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    exposedResponseHeaders: ['Content-Disposition'],
    maxAge: 3600,
  };
}

const config = loadTypeScript('lib/config/index.ts');
const environment = buildSettingsEnvironment(config);

module.exports = { functions: buildFunctions(environment, config.loadSettings()), cors: buildCors(config), environment, queueLogicalId, loadTypeScript };
