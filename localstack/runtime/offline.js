/**
 * Runs `serverless offline` (HTTP API on httpPort, Lambda invoke endpoint on
 * lambdaPort, schedules) as a child process in its own process group, on the
 * shared build of every handler (localstack/runtime/handler-build.js, made first if
 * the sources changed), and resolves once it answers: GET /health, or for the
 * workers' process (no routes) its Lambda endpoint.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const { setPriority } = require('node:os');
const path = require('node:path');
const { ensureHandlerBuild } = require('./handler-build');

const root = path.join(__dirname, '..', '..');
const SERVERLESS_BIN = path.join(root, 'node_modules', 'serverless', 'bin', 'serverless.js');
const OFFLINE_PLUGIN = './localstack/runtime/offline-plugin.js';

/** How long a start may take before it gives up: LOCAL_READY_TIMEOUT_S, 180 s by default. */
const DEFAULT_READY_TIMEOUT_S = 180;
const PROGRESS_EVERY_MS = 15_000;

function readyTimeoutMs(env = process.env) {
  const raw = env.LOCAL_READY_TIMEOUT_S;
  if (raw === undefined || raw === '') return DEFAULT_READY_TIMEOUT_S * 1000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`LOCAL_READY_TIMEOUT_S must be a positive number of seconds, not ${JSON.stringify(raw)}`);
  return seconds * 1000;
}

/**
 * The child's functions write their temp files (ffmpeg pieces, spooled
 * uploads) under the system temp directory. The child gets its own TMPDIR
 * under the git-ignored .local/tmp instead, removed when it stops, so a
 * stopped stack leaves nothing behind; directories of runs that died without
 * stopping (SIGKILL, power loss) are removed by the next start.
 */
const TEMP_ROOT = path.join(root, '.local', 'tmp');
const TEMP_PREFIX = 'offline-';

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes the temp directories of earlier runs whose process is gone. */
function sweepStaleTempDirs(tempRoot = TEMP_ROOT) {
  if (!fs.existsSync(tempRoot)) return [];
  const removed = [];
  for (const entry of fs.readdirSync(tempRoot)) {
    const pid = Number(/^offline-(\d+)-/.exec(entry)?.[1]);
    if (!pid || processAlive(pid)) continue;
    fs.rmSync(path.join(tempRoot, entry), { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}

/** A fresh temp directory for one serverless offline child, named after this process. */
function privateTempDir(tempRoot = TEMP_ROOT) {
  sweepStaleTempDirs(tempRoot);
  fs.mkdirSync(tempRoot, { recursive: true });
  return fs.mkdtempSync(path.join(tempRoot, `${TEMP_PREFIX}${process.pid}-`));
}

/**
 * Spawns serverless offline and returns at once; `ready` resolves once it
 * answers GET /health, or rejects (the child stopped) when it exits first or
 * the wait runs out. The caller starts the rest of the stack meanwhile.
 *
 * @param {object} options
 * @param {string} options.stage
 * @param {number} options.httpPort
 * @param {number} options.lambdaPort
 * @param {Record<string, string>} options.env  extra environment (emulator endpoints, settings)
 * @param {boolean} [options.watch]  rebuild when a source changes (npm start); off for tests and benchmarks
 * @param {boolean} [options.functionsInProcess]  run every function in serverless offline's own process
 *   instead of a worker thread per function instance (see startLocalService)
 * @param {'api' | 'workers'} [options.group]  only these functions (offline-plugin.js): the routes, or the rest
 *   (queue workers, schedules); every function when absent
 * @param {number} [options.niceness]  the child's scheduling priority (its ffmpeg and sandbox children inherit it)
 * @param {(line: string) => void} [options.log]  progress lines
 * @param {(chunk: string) => void} [options.onOutput]
 * @param {number} [options.timeoutMs]  default: LOCAL_READY_TIMEOUT_S
 */
function launchOffline({
  stage,
  httpPort,
  lambdaPort,
  env,
  watch = false,
  functionsInProcess = false,
  group,
  niceness = 0,
  log = () => {},
  onOutput,
  timeoutMs = readyTimeoutMs(),
}) {
  const build = ensureHandlerBuild({ log, sourceMaps: watch });
  if (!build.built) log(`functions: the shared build is up to date (${build.entries} handler files)`);
  const tempDir = privateTempDir();
  const removeTempDir = () => fs.rmSync(tempDir, { recursive: true, force: true });
  const child = spawn(
    process.execPath,
    [
      // Stack traces of the running functions point at the TypeScript while developing.
      ...(watch ? ['--enable-source-maps'] : []),
      SERVERLESS_BIN,
      'offline',
      'start',
      '--stage',
      stage,
      '--httpPort',
      String(httpPort),
      '--lambdaPort',
      String(lambdaPort),
      '--localEnvironment',
      '--noPrependStageInUrl',
      ...(functionsInProcess ? ['--useInProcess'] : []),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        SERVERLESS_BUILD_PLUGIN: OFFLINE_PLUGIN,
        LOCAL_WATCH_SOURCES: String(watch),
        LOCAL_FUNCTION_GROUP: group ?? '',
        TMPDIR: tempDir,
        SLS_TELEMETRY_DISABLED: '1',
        SLS_NOTIFICATIONS_MODE: 'off',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (niceness) {
    try {
      setPriority(child.pid, niceness);
    } catch (err) {
      log(`serverless offline (${group}): could not lower its priority (${err.message}); it runs at the default`);
    }
  }
  let tail = '';
  const collect = (chunk) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-8000);
    onOutput?.(text);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });

  const url = `http://localhost:${httpPort}`;
  const lambdaEndpoint = `http://localhost:${lambdaPort}`;
  // The workers' process serves no routes: any answer of its Lambda endpoint (a 404 here) says it is up.
  const probe =
    group === 'workers'
      ? { url: `${lambdaEndpoint}/`, answers: () => true }
      : { url: `${url}/health`, answers: (res) => res.ok };
  const who = group ? `serverless offline (${group})` : 'serverless offline';
  const guard = () => {
    void stopProcessGroup(child, true);
    removeTempDir();
  };
  process.once('exit', guard);
  const stop = async () => {
    await stopProcessGroup(child);
    process.removeListener('exit', guard);
    removeTempDir();
  };

  log(
    `${who}: starting on :${group === 'workers' ? lambdaPort : httpPort} (reading serverless.yml and the route table)…`,
  );
  const waitUntilAnswering = async () => {
    const started = Date.now();
    const deadline = started + timeoutMs;
    let nextProgress = started + PROGRESS_EVERY_MS;
    while (Date.now() < deadline) {
      if (Date.now() >= nextProgress) {
        nextProgress += PROGRESS_EVERY_MS;
        const lines = tail.trim().split('\n');
        const last = lines[lines.length - 1]?.trim().slice(0, 120);
        log(
          `${who}: still starting (${Math.round((Date.now() - started) / 1000)} s of at most ${timeoutMs / 1000} s)${last ? `; last output: ${last}` : ''}`,
        );
      }
      if (exited) {
        await stop();
        throw new Error(`${who} exited (${JSON.stringify(exited)}) before it was ready:\n${tail}`);
      }
      try {
        const res = await fetch(probe.url, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        if (probe.answers(res)) {
          log(`${who}: answering after ${((Date.now() - started) / 1000).toFixed(1)} s`);
          return;
        }
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await stop();
    throw new Error(
      `${who} did not answer ${probe.url} within ${timeoutMs / 1000}s (LOCAL_READY_TIMEOUT_S sets the wait):\n${tail}`,
    );
  };
  const ready = waitUntilAnswering();
  // Whoever launched it may fail before awaiting `ready`; its rejection is theirs to read then.
  ready.catch(() => {});
  return { url, lambdaEndpoint, ready, stop, child, tempDir };
}

/** Ends the whole process group (serverless plus its handler workers); SIGKILL after a grace period. */
function stopProcessGroup(child, immediate = false) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    if (immediate) {
      kill('SIGKILL');
      return resolve();
    }
    const timer = setTimeout(() => kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    kill('SIGTERM');
  });
}

module.exports = { launchOffline, privateTempDir, sweepStaleTempDirs, readyTimeoutMs, TEMP_ROOT };
