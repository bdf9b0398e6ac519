/**
 * Benchmark (i): how long `npm start` takes to say it is ready, as a new user
 * meets it. Runs on its own, without the benchmarks' shared stack.
 *
 * The service is copied to a new directory with node_modules linked (a fresh
 * clone after `npm install`: no .local, so no build, no data), and
 * `node localstack/runtime/start.js` runs there on free ports:
 *  - first start: builds the functions, creates the table, bucket and queues;
 *  - warm start: the same directory again (three times, the median counts);
 *  - busy machine: a first start again (build and data removed) with one
 *    CPU-burning process per core beside it. It must still come up, within
 *    the start's default readiness wait.
 * Each figure is the time from spawning the command to its "ready" line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { removeSnapshot, snapshotService } from '../support/packaging';
import { emitResult, median, printTable, runBenchmark, seconds } from './report';

const { readyTimeoutMs } = require('../../localstack/runtime/offline.js');
const { freePort }: { freePort: () => Promise<number> } = require('../../localstack/emulators/emulators.js');

const FIRST_START_BOUND_S = 45;
const WARM_START_BOUND_S = 10;
const WARM_ROUNDS = 3;
const READY_LINE = 'Contents inventory service ready at';

async function localPorts(): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const name of ['HTTP', 'LAMBDA', 'STREAM', 'DYNAMODB', 'S3', 'SQS'])
    env[`LOCAL_${name}_PORT`] = String(await freePort());
  return env;
}

function stopStart(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

/** Runs `node localstack/runtime/start.js` in serviceDir; seconds until its ready line (it is stopped then). */
async function timedStart(serviceDir: string, label: string): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(await localPorts()),
    // A new user's machine: no settings file, no .env.
    MACHINE_SETTINGS_FILE: '/nonexistent/contents-inventory-settings.env',
    DOTENV_FILE: '/nonexistent/.env',
  };
  for (const name of Object.keys(env))
    if (/^(AWS_|TABLE_NAME|MEDIA_BUCKET|QUEUE_NAME_PREFIX)/.test(name)) delete env[name];
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['localstack/runtime/start.js'], {
    cwd: serviceDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    return await new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(READY_LINE)) resolve(Number(process.hrtime.bigint() - started) / 1e9);
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code, signal) =>
        reject(
          new Error(`${label}: npm start exited (${signal ?? code}) before it was ready:\n${output.slice(-3000)}`),
        ),
      );
    });
  } finally {
    await stopStart(child);
    const progress = output
      .split('\n')
      .filter((line) => /building|built|up to date|answering|still starting/.test(line));
    process.stdout.write(`${label}:\n${progress.map((line) => `    ${line}`).join('\n')}\n`);
  }
}

/** One busy loop per core, in their own processes. */
function burnCpu(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

async function main(): Promise<void> {
  // The runner starts entries in the repository's root (a bundled entry's __dirname is elsewhere).
  const serviceDir = snapshotService(process.cwd());
  const burners: ChildProcess[] = [];
  try {
    process.stdout.write(`a fresh copy of the service in ${serviceDir} (node_modules linked)\n`);
    const first = await timedStart(serviceDir, 'first start');
    const warm: number[] = [];
    for (let round = 1; round <= WARM_ROUNDS; round++) warm.push(await timedStart(serviceDir, `warm start ${round}`));

    fs.rmSync(path.join(serviceDir, '.local'), { recursive: true, force: true });
    burners.push(...burnCpu());
    const busyBound = readyTimeoutMs() / 1000;
    let busy: number | null = null;
    let busyError = '';
    try {
      busy = await timedStart(serviceDir, `first start beside ${burners.length} CPU-burning processes`);
    } catch (err) {
      busyError = (err as Error).message.split('\n')[0];
    }
    for (const burner of burners.splice(0)) burner.kill('SIGKILL');

    const warmMedian = median(warm);
    const pass = first < FIRST_START_BOUND_S && warmMedian < WARM_START_BOUND_S && busy !== null;
    printTable('Local start (time to the ready line)', [
      ['first start (fresh copy)', `${seconds(first)}  (bound ${FIRST_START_BOUND_S} s)`],
      [
        'warm start, median',
        `${seconds(warmMedian)}  (bound ${WARM_START_BOUND_S} s; ${warm.map(seconds).join(', ')})`,
      ],
      [
        'first start, cores busy',
        busy === null
          ? `did not come up: ${busyError}`
          : `${seconds(busy)}  (must come up; the wait is ${busyBound} s)`,
      ],
    ]);
    emitResult({
      name: 'start',
      pass,
      summary: {
        first: `${seconds(first)} / ${FIRST_START_BOUND_S} s`,
        warm: `${seconds(warmMedian)} / ${WARM_START_BOUND_S} s`,
        busy: busy === null ? 'not ready' : seconds(busy),
      },
    });
  } finally {
    for (const burner of burners) burner.kill('SIGKILL');
    removeSnapshot(serviceDir);
  }
}

runBenchmark('start', main);
