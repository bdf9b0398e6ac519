/**
 * Runs `serverless offline` (HTTP API on httpPort, Lambda invoke endpoint on
 * lambdaPort, schedules) as a child process in its own process group, and
 * resolves once GET /health answers.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SERVERLESS_BIN = path.join(root, 'node_modules', 'serverless', 'bin', 'serverless.js');

/**
 * serverless-esbuild copies every function's bundle into a directory under
 * the system temp directory on each start (~72 copies, ~36 MB) and never
 * removes them (its cleanup skips non-empty directories). The child gets its
 * own TMPDIR under the git-ignored .local/tmp instead, removed when it stops;
 * directories of runs that died without stopping (SIGKILL, power loss) are
 * removed by the next start.
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
 * @param {object} options
 * @param {string} options.stage
 * @param {number} options.httpPort
 * @param {number} options.lambdaPort
 * @param {Record<string, string>} options.env  extra environment (emulator endpoints, settings)
 * @param {(chunk: string) => void} [options.onOutput]
 * @param {number} [options.readyTimeoutMs]
 */
async function startOffline({ stage, httpPort, lambdaPort, env, onOutput, readyTimeoutMs = 240_000 }) {
  const tempDir = privateTempDir();
  const removeTempDir = () => fs.rmSync(tempDir, { recursive: true, force: true });
  const child = spawn(
    process.execPath,
    [
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
    ],
    {
      cwd: root,
      env: { ...process.env, ...env, TMPDIR: tempDir, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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

  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (exited) {
      await stop();
      throw new Error(`serverless offline exited (${JSON.stringify(exited)}) before it was ready:\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return { url, lambdaEndpoint: `http://localhost:${lambdaPort}`, stop, child, tempDir };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`serverless offline did not answer /health within ${readyTimeoutMs / 1000}s:\n${tail}`);
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

module.exports = { startOffline, privateTempDir, sweepStaleTempDirs, TEMP_ROOT };
