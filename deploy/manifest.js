/**
 * Builds serverless.yml's `functions:` block, the HTTP API CORS settings and
 * the generated resources (one IAM role per function group, dead-letter
 * alarms) from the TypeScript declarations (lib/api/route-table.ts and
 * lib/background/functions.ts), so routes and workers are declared once.
 * The declarations are bundled in memory with esbuild (no build step).
 *
 * What each function gets is derived from its own code, not from a list kept
 * by hand (see analyseHandlers):
 *  - environment: only the settings its handler reads, where this machine's
 *    value differs from the spec's default; secret settings never (they are
 *    read from SSM at run time, lib/config/secrets.ts);
 *  - IAM: its group's role allows only the AWS services the group's code
 *    imports, on the exact resources of this stack (deploy/iam.js).
 * Its media layers are the exception: a worker declares them (`layers` in
 * lib/background/functions.ts), because running ffmpeg leaves no trace in a
 * bundle; they become references to serverless.yml's layers
 * (deploy/layers.js builds them).
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { buildSync } = require('esbuild');
const { generatedResources } = require('./iam');
const { LAYERS, layerLogicalId } = require('./layers');
const { bundleFacts, isPublicRoute, isTableKeyModule, publicAccess } = require('./public-access');
const { sourceFiles, sourceFingerprint } = require('./source-fingerprint');

const root = path.join(__dirname, '..');
/** The last analysis, reused while the sources are the same (every local start reads the manifest twice). */
const ANALYSIS_CACHE = path.join(root, '.local', 'build', 'handler-analysis.json');

/** Bundles TypeScript (an entry file, or source read as if it were `file`) and runs it as a CommonJS module. */
function compiledModule(file, input) {
  const { outputFiles } = buildSync({
    ...input,
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

function loadTypeScript(relativePath) {
  const file = path.join(root, relativePath);
  return compiledModule(file, { entryPoints: [file] });
}

/**
 * What `source` (TypeScript, its imports resolved as if it were the file at
 * `relativePath`) exports, from one bundle: modules it re-exports from share
 * one copy of what they import.
 */
function loadTypeScriptSource(relativePath, source) {
  const file = path.join(root, relativePath);
  return compiledModule(file, {
    stdin: { contents: source, resolveDir: path.dirname(file), sourcefile: file, loader: 'ts' },
  });
}

/**
 * Every table key builder by the name its module exports it under ({ keys, jobKeys, jobIndexes, … }): lib/db/keys.ts
 * and each domain's keys.ts. Two modules exporting one name would make a bundle's calls ambiguous: refused.
 */
function loadTableKeys(files) {
  const tableKeys = {};
  for (const file of files.filter(isTableKeyModule))
    for (const [name, builders] of Object.entries(loadTypeScript(file))) {
      if (Object.hasOwn(tableKeys, name))
        throw new Error(`deploy/manifest.js: ${name} is exported by two table key modules (${file} and another)`);
      tableKeys[name] = builders;
    }
  return tableKeys;
}

/** PurgeQueue for purpose 'purge', the logical id serverless.yml declares. */
function queueLogicalId(purpose) {
  return `${purpose.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}Queue`;
}

/** Deployment names come from serverless.yml itself (they depend on the stage). */
const NAMES_FROM_SERVERLESS_YML = new Set(['TABLE_NAME', 'MEDIA_BUCKET', 'QUEUE_NAME_PREFIX', 'FUNCTION_NAME_PREFIX']);

/** Concurrent job event streams (each holds a connection ~10 minutes); the rest of the account stays free. */
const JOB_STREAM_RESERVED_CONCURRENCY = 50;

/** Scheduled functions send failed asynchronous invocations here (declared in serverless.yml, alarmed). */
const SCHEDULE_FAILURES_QUEUE = 'ScheduleFailuresQueue';

/**
 * Which settings and AWS SDK packages each handler's code uses.
 *
 * All handlers are bundled in one esbuild pass with npm packages and lib/config
 * left out (`*\/config` is how every module imports it). What remains is the
 * code that runs for that handler, so a setting name appearing in its bundle
 * (settings().OPENROUTER_MODEL, const { MAIL_FROM } = settings()) is a
 * setting the handler reads, and the external imports in the metafile are the
 * SDK clients it calls. lib/config itself is kept out because it names every
 * setting. A handler that somehow pulls lib/config in another way fails the
 * build here rather than silently getting every setting.
 */
function analyseHandlers(handlers, settingNames) {
  const entryPoints = [...new Set(handlers)].map((handler) => path.join(root, 'functions', `${handler}.ts`));
  let result;
  try {
    result = buildSync({
      entryPoints,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      logLevel: 'silent',
      packages: 'external',
      external: ['*/config'],
      outdir: path.join(root, '.esbuild', 'settings-analysis'),
      absWorkingDir: root,
    });
  } catch (err) {
    const first = (err.errors ?? []).slice(0, 5).map((e) => `${e.location?.file}:${e.location?.line}: ${e.text}`);
    throw new Error(
      `deploy/manifest.js: could not bundle the handlers to find the settings they read:\n${first.join('\n') || err.message}`,
    );
  }
  const leaked = Object.keys(result.metafile.inputs).filter((file) => file.startsWith('lib/config/'));
  if (leaked.length)
    throw new Error(
      `deploy/manifest.js: lib/config was bundled (${leaked.join(', ')}); import it as '<relative>/config'`,
    );

  const textByOutput = new Map(result.outputFiles.map((f) => [path.relative(root, f.path), f.text]));
  const sourceCache = new Map();
  const sourcesOf = (meta) =>
    Object.fromEntries(
      Object.keys(meta.inputs)
        .filter((file) => file.startsWith('lib/'))
        .map((file) => {
          if (!sourceCache.has(file)) sourceCache.set(file, fs.readFileSync(path.join(root, file), 'utf8'));
          return [file, sourceCache.get(file)];
        }),
    );
  const byHandler = new Map();
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const handler = meta.entryPoint.replace(/^functions\//, '').replace(/\.ts$/, '');
    const text = textByOutput.get(output) ?? '';
    byHandler.set(handler, {
      settings: new Set(settingNames.filter((name) => new RegExp(`\\b${name}\\b`).test(text))),
      packages: new Set(meta.imports.filter((i) => i.external && !i.path.startsWith('.')).map((i) => i.path)),
      facts: bundleFacts(text, sourcesOf(meta)),
    });
  }
  return byHandler;
}

/** analyseHandlers, or its last result when functions/, lib/ and the lock file are unchanged since. */
function cachedAnalysis(handlers, settingNames) {
  const { hash } = sourceFingerprint();
  try {
    const cached = JSON.parse(fs.readFileSync(ANALYSIS_CACHE, 'utf8'));
    if (cached.hash === hash)
      return new Map(
        Object.entries(cached.byHandler).map(([handler, { settings, packages, facts }]) => [
          handler,
          { settings: new Set(settings), packages: new Set(packages), facts },
        ]),
      );
  } catch {
    // no cache yet, or an unreadable one: analyse
  }
  const analysis = analyseHandlers(handlers, settingNames);
  const byHandler = Object.fromEntries(
    [...analysis].map(([handler, { settings, packages, facts }]) => [
      handler,
      { settings: [...settings], packages: [...packages], facts },
    ]),
  );
  try {
    fs.mkdirSync(path.dirname(ANALYSIS_CACHE), { recursive: true });
    const staging = `${ANALYSIS_CACHE}.${process.pid}`;
    fs.writeFileSync(staging, JSON.stringify({ hash, byHandler }));
    fs.renameSync(staging, ANALYSIS_CACHE);
  } catch {
    // a read-only tree: analyse again next time
  }
  return analysis;
}

/**
 * The settings of this machine (real env > .env > machine file; a bad value
 * stops packaging with the variable's name) that differ from the defaults.
 * Secret settings are blanked: they never go into a template, so this
 * machine's values (and their strength) play no part in packaging.
 */
function nonDefaultSettings(config) {
  const blankSecrets = Object.fromEntries(config.SECRET_SETTING_NAMES.map((name) => [name, '']));
  const defaults = config.settingsSchema.parse({});
  const settings = config.loadSettings({ overrides: blankSecrets });
  const values = {};
  for (const [name, value] of Object.entries(settings)) {
    if (NAMES_FROM_SERVERLESS_YML.has(name) || config.isSecretSetting(name)) continue;
    if (JSON.stringify(value) === JSON.stringify(defaults[name])) continue;
    values[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return { values, settings };
}

/**
 * The role a function runs with: one per group (HTTP API, each worker kind,
 * schedules, the stream), and one of its own for each public route, scoped
 * to what that route's code touches (deploy/public-access.js).
 */
function roleOf(kind, fn) {
  if (kind === 'http' && isPublicRoute(fn)) return `Public${fn.name[0].toUpperCase()}${fn.name.slice(1)}Role`;
  if (kind === 'http') return 'HttpApiRole';
  if (fn.kind === 'queue') return `${queueLogicalId(fn.queue).replace(/Queue$/, '')}WorkerRole`;
  if (fn.kind === 'schedule') return 'SchedulesRole';
  return 'JobStreamRole';
}

function build() {
  const config = loadTypeScript('lib/config/index.ts');
  const tableKeys = loadTableKeys(sourceFiles());
  const { routeTable } = loadTypeScript('lib/api/route-table.ts');
  const { backgroundFunctions } = loadTypeScript('lib/background/functions.ts');
  const { values, settings } = nonDefaultSettings(config);
  const analysis = cachedAnalysis(
    [...routeTable, ...backgroundFunctions].map((f) => f.handler),
    [...config.SETTING_NAMES],
  );

  /** name → { role, readsSecrets, packages, layers, queue?, access? } for the IAM roles and the package-time checks (access: public routes only). */
  const profiles = {};
  const functions = {};
  const describe = (name, kind, declaration) => {
    if (functions[name]) throw new Error(`Duplicate function name ${name}`);
    const { settings: reads, packages, facts } = analysis.get(declaration.handler);
    const environment = {};
    for (const setting of [...reads].sort()) if (setting in values) environment[setting] = values[setting];
    profiles[name] = {
      role: roleOf(kind, declaration),
      readsSecrets: [...reads].some((s) => config.isSecretSetting(s)),
      packages: [...packages].sort(),
      queue: declaration.kind === 'queue' ? declaration.queue : undefined,
      kind: kind === 'http' ? 'http' : declaration.kind,
      layers: declaration.layers ?? [],
    };
    if (kind === 'http' && isPublicRoute(declaration))
      profiles[name].access = publicAccess({
        handler: declaration.handler,
        facts,
        packages: profiles[name].packages,
        tableKeys,
      });
    for (const layer of profiles[name].layers)
      if (!LAYERS[layer])
        throw new Error(`deploy/manifest.js: ${name} asks for media layer ${layer}, which does not exist`);
    return { handler: `functions/${declaration.handler}.handler`, role: profiles[name].role, environment };
  };

  for (const route of routeTable) {
    functions[route.name] = {
      ...describe(route.name, 'http', route),
      events: [{ httpApi: { method: route.method, path: route.path } }],
      ...(route.lambda ?? {}),
      ...(route.layers?.length ? { layers: route.layers.map((layer) => ({ Ref: layerLogicalId(layer) })) } : {}),
    };
  }
  for (const fn of backgroundFunctions) {
    const base = describe(fn.name, 'background', fn);
    if (fn.kind === 'stream') {
      functions[fn.name] = {
        ...base,
        timeout: fn.timeout,
        reservedConcurrency: JOB_STREAM_RESERVED_CONCURRENCY,
        url: { invokeMode: 'RESPONSE_STREAM', cors: true },
      };
      continue;
    }
    if (fn.kind === 'schedule') {
      functions[fn.name] = {
        ...base,
        timeout: fn.timeout,
        // A rate taken from a setting (WATCHDOG_RATE) is this machine's value, checked by the settings schema.
        events: [{ schedule: { rate: [/^(rate|cron)\(/.test(fn.rate) ? fn.rate : settings[fn.rate]] } }],
        // After the two automatic retries, the failed event is kept and alarmed instead of lost.
        destinations: { onFailure: { type: 'sqs', arn: { 'Fn::GetAtt': [SCHEDULE_FAILURES_QUEUE, 'Arn'] } } },
      };
      continue;
    }
    functions[fn.name] = {
      ...base,
      timeout: fn.timeout,
      ...(fn.memorySize ? { memorySize: fn.memorySize } : {}),
      ...(fn.ephemeralStorageMb ? { ephemeralStorageSize: fn.ephemeralStorageMb } : {}),
      environment: { ...base.environment, ...(fn.environment ?? {}) },
      ...(fn.layers?.length ? { layers: fn.layers.map((layer) => ({ Ref: layerLogicalId(layer) })) } : {}),
      events: [
        {
          sqs: {
            arn: { 'Fn::GetAtt': [queueLogicalId(fn.queue), 'Arn'] },
            batchSize: fn.batchSize,
            functionResponseType: 'ReportBatchItemFailures',
            ...(fn.maximumConcurrency
              ? {
                  maximumConcurrency: Math.max(
                    2,
                    typeof fn.maximumConcurrency === 'number' ? fn.maximumConcurrency : settings[fn.maximumConcurrency],
                  ),
                }
              : {}),
          },
        },
      ],
    };
  }

  const cors = {
    allowedOrigins: settings.CORS_ORIGINS,
    allowCredentials: true,
    allowedHeaders: ['Content-Type', 'Authorization', 'X-Requested-With', 'Idempotency-Key'],
    allowedMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    // Retry-After is not a CORS-safelisted response header: a browser client reads a 429's wait only when exposed.
    exposedResponseHeaders: ['Content-Disposition', 'Retry-After'],
    maxAge: 3600,
  };
  // The schedules whose rate is a setting: the local stack may run them more often (localstack/runtime/offline-plugin.js).
  const settingSchedules = backgroundFunctions
    .filter((fn) => fn.kind === 'schedule' && !/^(rate|cron)\(/.test(fn.rate))
    .map((fn) => fn.name);
  return { functions, cors, profiles, settings, config, settingSchedules };
}

let built;
const manifest = () => (built ??= build());

/**
 * Resources generated from the declarations, merged after serverless.yml's
 * own (serverless calls this with the resolved options).
 */
async function resources({ resolveVariable }) {
  const [service, stage] = await Promise.all([resolveVariable('self:service'), resolveVariable('sls:stage')]);
  const { profiles, config } = manifest();
  return generatedResources({
    service,
    stage,
    profiles,
    secretNames: config.SECRET_SETTING_NAMES,
    scheduleFailuresQueue: SCHEDULE_FAILURES_QUEUE,
  });
}

module.exports = {
  get functions() {
    return manifest().functions;
  },
  get cors() {
    return manifest().cors;
  },
  /** name → role, secret use, SDK packages and media layers of each function (deploy/iam.js, deploy/package-offline.js, deploy/layers.js). */
  get profiles() {
    return manifest().profiles;
  },
  /** The packaging machine's settings (secrets blanked). */
  get settings() {
    return manifest().settings;
  },
  /** Names of the schedules whose rate is a setting (WATCHDOG_RATE, BILLING_SWEEP_RATE). */
  get settingSchedules() {
    return manifest().settingSchedules;
  },
  resources,
  queueLogicalId,
  loadTypeScript,
  loadTypeScriptSource,
  JOB_STREAM_RESERVED_CONCURRENCY,
  SCHEDULE_FAILURES_QUEUE,
};
