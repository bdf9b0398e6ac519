/**
 * Serverless plugin of the local stack, listed in serverless.yml in place of
 * the packaging bundler when localstack/runtime/offline.js starts `serverless offline`
 * (SERVERLESS_BUILD_PLUGIN): the functions run from the shared build of every
 * handler (localstack/runtime/handler-build.js) instead of one bundle per function,
 * so a start builds for a few seconds instead of bundling ~165 functions.
 *
 * With LOCAL_WATCH_SOURCES=true (`npm start`), a change under functions/ or
 * lib/ rebuilds and has serverless offline drop its loaded handlers, so the
 * next call of each function runs the new code.
 *
 * LOCAL_FUNCTION_GROUP keeps some of the functions (localstack/runtime/service.js
 * runs two serverless offline processes): `api`, the functions with routes;
 * `workers`, the rest (queue workers, schedules, the job stream). Only the
 * API's process rebuilds on a change; the workers' process follows the build.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { ensureHandlerBuild, pdfSandboxEntryIn, buildStampIn } = require('./handler-build');

const WATCHED = ['functions', 'lib'];
/**
 * How long the local HTTP servers keep an idle connection (API Gateway keeps one far longer than Node's 5 s). With
 * 5 s, a client whose event loop stalls for a moment (a test file making a video while three share two cores)
 * reused a connection the server had just closed and got "other side closed"; clients retire theirs before the
 * server's advertised Keep-Alive timeout, so a long one makes that race rare.
 */
const IDLE_CONNECTION_MS = 65_000;

/** Every HTTP server of this process (serverless offline's API, Lambda endpoint and streams) keeps idle connections. */
function keepIdleConnections() {
  const { Server } = http;
  if (Server.prototype.listen.keepsIdleConnections) return;
  const listen = Server.prototype.listen;
  Server.prototype.listen = function listenKeepingIdleConnections(...args) {
    this.keepAliveTimeout = IDLE_CONNECTION_MS;
    // Node closes a connection whose next request's headers take longer than this: keep it above the idle time.
    this.headersTimeout = IDLE_CONNECTION_MS + 1_000;
    return listen.apply(this, args);
  };
  Server.prototype.listen.keepsIdleConnections = true;
}
const REBUILD_DELAY_MS = 300;

class LocalHandlerBuild {
  constructor(serverless, _options, utils) {
    this.serverless = serverless;
    this.log = (message) => (utils?.log?.notice ? utils.log.notice(message) : console.log(message));
    this.hooks = {
      'before:offline:start:init': () => {
        this.keepGroup(process.env.LOCAL_FUNCTION_GROUP);
        this.useSharedBuild();
        this.scheduleEvery(process.env.LOCAL_SCHEDULE_SECONDS);
      },
    };
  }

  /**
   * LOCAL_SCHEDULE_SECONDS: the schedules whose rate is a setting (the watchdog, the billing sweep) run every that
   * many seconds, which EventBridge cannot (a minute at the least), so a test's recovery waits are seconds. Set
   * here, after the configuration was validated (which allows AWS's forms only): serverless offline reads a cron's
   * seventh field as AWS's year and drops it, leaving node-schedule's six fields, seconds first.
   */
  scheduleEvery(value) {
    const seconds = Number(value);
    if (!value || !Number.isInteger(seconds) || seconds < 1 || seconds > 59) return;
    const { settingSchedules } = require('../../deploy/manifest');
    for (const name of settingSchedules) {
      const fn = this.serverless.service.functions[name];
      for (const event of fn?.events ?? [])
        if (event.schedule) event.schedule = { ...event.schedule, rate: [`cron(*/${seconds} * * * * * *)`] };
    }
    this.log(`schedules ${settingSchedules.join(', ')}: every ${seconds} s (LOCAL_SCHEDULE_SECONDS)`);
  }

  /** Drops the functions of the other group: a route's function is the API's, any other a worker's. */
  keepGroup(group) {
    if (group !== 'api' && group !== 'workers') return;
    const { functions } = this.serverless.service;
    for (const [name, fn] of Object.entries(functions)) {
      const routed = (fn.events ?? []).some((event) => event.httpApi || event.http);
      if (routed !== (group === 'api')) delete functions[name];
    }
  }

  useSharedBuild() {
    keepIdleConnections();
    const serviceDir = this.serverless.serviceDir ?? this.serverless.config.servicePath;
    // localstack/runtime/offline.js has normally built already; this only checks the stamp.
    const watching = process.env.LOCAL_WATCH_SOURCES === 'true';
    const { outDir } = ensureHandlerBuild({ log: this.log, sourceMaps: watching });
    this.serverless.service.custom ??= {};
    const { custom } = this.serverless.service;
    custom['serverless-offline'] = { ...custom['serverless-offline'], location: path.relative(serviceDir, outDir) };
    // The PDF sandbox's child (lib/pdf/sandbox.ts) is built with the handlers; the functions inherit this.
    process.env.PDF_SANDBOX_ENTRY ??= pdfSandboxEntryIn(outDir);
    if (!watching) return;
    if (process.env.LOCAL_FUNCTION_GROUP === 'workers') this.followBuild(outDir);
    else this.watch(serviceDir);
  }

  /** The workers' process drops its loaded handlers once the API's process has written a new build. */
  followBuild(outDir) {
    const stamp = buildStampIn(outDir);
    fs.watchFile(stamp, { interval: 500, persistent: false }, (now, before) => {
      if (now.mtimeMs === before.mtimeMs && now.ino === before.ino) return;
      if (now.mtimeMs === 0) return; // between the old build's removal and the new one's rename
      void this.serverless.pluginManager.spawn('offline:functionsUpdated');
    });
  }

  watch(serviceDir) {
    let timer = null;
    const rebuild = async () => {
      timer = null;
      try {
        const { built } = ensureHandlerBuild({ log: this.log, sourceMaps: true });
        if (built) await this.serverless.pluginManager.spawn('offline:functionsUpdated');
      } catch (err) {
        this.log(`${err.message}\n(the functions keep running the last build)`);
      }
    };
    for (const dir of WATCHED)
      fs.watch(path.join(serviceDir, dir), { recursive: true }, (_event, file) => {
        if (!file?.endsWith('.ts') || timer) return;
        timer = setTimeout(rebuild, REBUILD_DELAY_MS);
      }).unref();
  }
}

module.exports = LocalHandlerBuild;
