/**
 * `npm run bench`: starts ONE throwaway local stack (embedded emulators,
 * provisioning, serverless offline, queue delivery) on free ports, runs each
 * benchmark entry (tests/bench/*.ts, bundled with esbuild) in a child process
 * against it, prints their figures and a summary table, and stops everything.
 * Exits non-zero when a benchmark fails its bound or errors.
 *
 *   npm run bench                       # all benchmarks
 *   npm run bench -- orchestrator       # only the named ones (upload, orchestrator, photos, photo-memory, exports, video, pdf, admin, start, insured-submit, load, ops)
 *
 * A standalone entry (start, load, ops) runs first and starts what it measures itself;
 * the shared stack starts only when another entry is selected.
 *
 * The service is pointed at a fake AI gateway on a port chosen here
 * (OPENROUTER_BASE_URL, OPENROUTER_API_KEY); an entry that makes AI calls
 * starts the fake itself on BENCH_FAKE_GATEWAY_PORT with BENCH_FAKE_GATEWAY_KEY.
 * Likewise for speech-to-text (TRANSCRIPTION_BASE_URL, TRANSCRIPTION_API_KEY):
 * BENCH_FAKE_SPEECH_PORT and BENCH_FAKE_SPEECH_KEY. BENCH_SERVICE_PID is the
 * serverless offline process, whose handlers run in its worker threads.
 * Billing stays off (no billing settings).
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, mkdirSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { availableParallelism, loadavg, tmpdir } = require('node:os');
const path = require('node:path');
const { build } = require('esbuild');
const { startLocalService } = require('../../localstack/runtime/service.js');

const root = path.join(__dirname, '..', '..');
const RESULT_PREFIX = 'BENCH_RESULT ';
const BENCH_JWT_SECRET = 'bench-claims-platform-secret-0123456789';
const BENCH_GATEWAY_KEY = 'bench-ai-gateway-key';
const BENCH_SPEECH_KEY = 'bench-speech-key';
const BENCHMARKS = [
  { id: 'upload', entry: 'upload.ts', title: '(a) presigned upload 1 GiB' },
  { id: 'orchestrator', entry: 'orchestrator.ts', title: '(b) orchestrator fan-out' },
  { id: 'photos', entry: 'photo-pipeline.ts', title: '(c) photo pipeline 500 photos' },
  { id: 'photo-memory', entry: 'photo-memory.ts', title: '(d) photo worker peak RSS' },
  { id: 'exports', entry: 'exports.ts', title: '(e) exports 5,000 items' },
  { id: 'video', entry: 'video.ts', title: '(f) video pipeline 10-minute 720p walkthrough' },
  { id: 'pdf', entry: 'pdf.ts', title: '(g) PDF import 300-page contents list' },
  { id: 'admin', entry: 'admin.ts', title: '(h) admin overview over 20,000 jobs' },
  { id: 'start', entry: 'start.ts', title: '(i) local start', standalone: true },
  { id: 'insured-submit', entry: 'insured-submit.ts', title: '(j) homeowner submit at ceilings' },
  { id: 'load', entry: 'load.ts', title: '(k) load and soak: many teams at once', standalone: true },
  { id: 'ops', entry: 'ops.ts', title: '(l) AWS operations per job', standalone: true },
];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The local stack's own modules (the .js files under localstack/) stay outside the bundle,
 * required from where they are: they find serverless.yml next to them.
 */
const keepLocalstackExternal = {
  name: 'keep-localstack-external',
  setup(build) {
    build.onResolve({ filter: /localstack\/(emulators|provision|runtime)\/[^/]+\.js$/ }, (args) => ({
      path: path.resolve(args.resolveDir, args.path),
      external: true,
    }));
  },
};

/** Bundles an entry (TypeScript) next to node_modules so its packages resolve; removed after the run. */
async function bundle(entry) {
  const outDir = path.join(root, 'node_modules', '.cache', 'contents-inventory', `bench-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, entry.replace(/\.ts$/, '.js'));
  await build({
    entryPoints: [path.join(__dirname, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    plugins: [keepLocalstackExternal],
    logLevel: 'silent',
    sourcemap: 'inline',
  });
  return { outfile, outDir };
}

/** Runs one bundled entry; echoes its output and returns its result line (or a failure). */
function runChild(file, env, name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result = null;
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith(RESULT_PREFIX)) result = JSON.parse(line.slice(RESULT_PREFIX.length));
        else process.stdout.write(`${line}\n`);
      }
    });
    child.on('exit', (code, signal) => {
      if (buffered) process.stdout.write(buffered);
      if (!result) result = { name, pass: false, summary: { error: `exited ${signal ?? code} without a result` } };
      if (code !== 0 && result.pass !== false) result.pass = false;
      resolve(result);
    });
  });
}

async function main() {
  const only = process.argv.slice(2);
  const selected = BENCHMARKS.filter((b) => only.length === 0 || only.includes(b.id));
  if (selected.length === 0)
    throw new Error(`unknown benchmark(s) ${only.join(', ')}; known: ${BENCHMARKS.map((b) => b.id).join(', ')}`);

  const started = Date.now();
  const files = [];
  for (const b of selected) files.push({ ...b, ...(await bundle(b.entry)) });
  const results = [];
  const removeBundles = () => {
    for (const { outDir } of files) rmSync(outDir, { recursive: true, force: true });
  };
  // Before the shared stack: a standalone entry measures starts of its own on a quiet machine.
  for (const bench of files.filter((b) => b.standalone))
    results.push({ title: bench.title, ...(await runChild(bench.outfile, process.env, bench.id)) });
  const withStack = files.filter((b) => !b.standalone);
  if (withStack.length === 0) {
    removeBundles();
    return summarise(results, started);
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'contents-inventory-bench-'));
  const output = [];
  const stackStarted = Date.now();
  process.stdout.write('starting the local stack (stage bench)…\n');
  const gatewayPort = await freePort();
  const speechPort = await freePort();
  let service;
  try {
    service = await startLocalService({
      stage: 'bench',
      dataDir,
      // 'stream' is for the job event stream server, where the stack has one.
      ports: { http: await freePort(), lambda: await freePort(), stream: await freePort() },
      env: {
        APP_ENV: 'stage',
        LOG_LEVEL: 'ERROR',
        CLAIMS_PLATFORM_JWT_SECRET: BENCH_JWT_SECRET,
        // Keep a developer's checkout .env and machine file out of the bench service.
        MACHINE_SETTINGS_FILE: '/nonexistent/contents-inventory-settings.env',
        DOTENV_FILE: '/nonexistent/.env',
        // The fake AI gateway an entry starts on this port (tests/fakes/ai-gateway-server.ts).
        OPENROUTER_BASE_URL: `http://127.0.0.1:${gatewayPort}/api/v1`,
        OPENROUTER_API_KEY: BENCH_GATEWAY_KEY,
        // The fake speech-to-text provider an entry starts on this port (tests/fakes/speech-server.ts).
        TRANSCRIPTION_BASE_URL: `http://127.0.0.1:${speechPort}`,
        TRANSCRIPTION_API_KEY: BENCH_SPEECH_KEY,
      },
      // The pipelines' benchmarks measure what a job does with every core, as Lambda gives each invocation its own.
      workerThreads: true,
      log: (line) => output.push(line),
      onOfflineOutput: (chunk) => {
        output.push(chunk);
        if (output.length > 400) output.splice(0, output.length - 400);
      },
    });
  } catch (err) {
    process.stdout.write(output.join(''));
    rmSync(dataDir, { recursive: true, force: true });
    removeBundles();
    throw err;
  }
  process.stdout.write(`local stack ready at ${service.url} in ${((Date.now() - stackStarted) / 1000).toFixed(1)} s\n`);
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  process.stdout.write(
    `machine: ${availableParallelism()} cores, load average ${load()} (other work on the machine inflates every figure)\n`,
  );

  const stop = async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
    removeBundles();
  };
  const onSignal = () => void stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const bench of withStack) {
      const env = {
        ...process.env,
        ...service.env,
        BENCH_SERVICE_URL: service.url,
        BENCH_FAKE_GATEWAY_PORT: String(gatewayPort),
        BENCH_FAKE_GATEWAY_KEY: BENCH_GATEWAY_KEY,
        BENCH_FAKE_SPEECH_PORT: String(speechPort),
        BENCH_FAKE_SPEECH_KEY: BENCH_SPEECH_KEY,
        BENCH_SERVICE_PID: String(service.offlinePid),
      };
      results.push({ title: bench.title, ...(await runChild(bench.outfile, env, bench.id)) });
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await stop();
  }
  if (process.env.BENCH_SERVICE_LOG === '1') process.stdout.write(output.join(''));
  return summarise(results, started);
}

function summarise(results, started) {
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  process.stdout.write('\nSummary\n-------\n');
  for (const r of results) {
    const verdict = r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL';
    const figures = Object.entries(r.summary)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' | ');
    process.stdout.write(`  ${verdict.padEnd(4)}  ${r.title.padEnd(28)}  ${figures}\n`);
  }
  process.stdout.write(`total ${((Date.now() - started) / 1000).toFixed(1)} s; load average at the end ${load()}\n`);
  return results.every((r) => r.pass !== false) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
