'use strict';
/**
 * Runs `serverless offline` (HTTP API on httpPort, Lambda invoke endpoint on
 * lambdaPort, schedules) as a child process in its own process group, and
 * resolves once GET /health answers.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SERVERLESS_BIN = path.join(root, 'node_modules', 'serverless', 'bin', 'serverless.js');

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
  const child = spawn(
    process.execPath,
    [SERVERLESS_BIN, 'offline', 'start', '--stage', stage, '--httpPort', String(httpPort), '--lambdaPort', String(lambdaPort), '--localEnvironment', '--noPrependStageInUrl'],
    { cwd: root, env: { ...process.env, ...env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
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
  const stop = () => stopProcessGroup(child);
  const guard = () => stopProcessGroup(child, true);
  process.once('exit', guard);

  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`serverless offline exited (${JSON.stringify(exited)}) before it was ready:\n${tail}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return { url, lambdaEndpoint: `http://localhost:${lambdaPort}`, stop, child };
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

module.exports = { startOffline };
