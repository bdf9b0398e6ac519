/**
 * The whole service, locally: the embedded AWS stack, the resources from
 * serverless.yml, `serverless offline` (API, Lambda endpoint, schedules) and
 * delivery of queue messages to the worker functions. `npm start` and the
 * test suite's global setup both start it through startLocalService().
 */
const { rmSync } = require('node:fs');
const { startEmulators, assertPortFree, freePort, emulatorEnv } = require('../emulators/emulators');
const { provision, resourceNames } = require('../provision/provision');
const { launchOffline } = require('./offline');
const { startQueueDelivery, consumersOf, offlineInvoker } = require('./queue-delivery');
const { startStreamServer } = require('./stream-server');
const { takeOverDataDir, recordStack, forgetStack } = require('./stack-record');

const SERVICE = 'contents-inventory';
/**
 * The workers' process yields the CPU to the API's: LOCAL_WORKERS_NICENESS, 10 by default (about a tenth of the
 * API's share when both want a core); 0 runs them alike.
 */
function workersNiceness(env = process.env) {
  const raw = env.LOCAL_WORKERS_NICENESS;
  if (raw === undefined || raw === '') return 10;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 19)
    throw new Error(`LOCAL_WORKERS_NICENESS must be a whole number from 0 to 19, not ${JSON.stringify(raw)}`);
  return value;
}

/**
 * @param {object} options
 * @param {string} options.stage
 * @param {string} [options.dataDir]  where DynamoDB and S3 data persist; absent = throwaway
 * @param {boolean} [options.removeDataDirOnStop]  dataDir is throwaway too: stop() deletes it
 * @param {{ http?: number, lambda?: number, stream?: number, dynamodb?: number, s3?: number, sqs?: number }} [options.ports]
 * @param {Record<string, string>} [options.env]  settings for the service (e.g. CLAIMS_PLATFORM_JWT_SECRET)
 * @param {boolean} [options.watch]  rebuild the functions when a source file changes (npm start)
 * @param {boolean} [options.functionsInProcess]  run every function in one serverless offline process (the test
 *   stack). Otherwise (npm start, the benchmarks) the routes run in one process and the workers and schedules in
 *   another, at a lower priority. Either way a process runs its functions in itself, not in a worker thread per
 *   function instance: one module cache, so the shared build is compiled once per process and memory stays flat
 *   however many instances run at once.
 * @param {boolean} [options.workerThreads]  run each instance of a worker function in a worker thread of its own
 *   (serverless offline's default) instead of in the workers' process itself: the pipelines' JavaScript then uses
 *   every core at once, as Lambda gives each invocation its own, at the cost of a copy of the build in memory per
 *   instance. The pipeline benchmarks use it; LOCAL_WORKER_THREADS=1 sets it for npm start.
 * @param {(line: string) => void} [options.log]
 * @param {(chunk: string) => void} [options.onOfflineOutput]
 * @param {(emulators: { dynamodb: string, s3: string, sqs: string }) => Promise<{ dynamodb: string, s3: string, sqs: string }>} [options.interpose]
 *   endpoints to put between the service and the emulators (the operations benchmark's counting proxies): given the
 *   emulators' URLs, the URLs the functions and the queue delivery use instead. Provisioning talks to the emulators.
 */
async function startLocalService({
  stage,
  dataDir,
  removeDataDirOnStop = false,
  ports = {},
  env = {},
  watch = false,
  functionsInProcess = false,
  log = () => {},
  onOfflineOutput,
  interpose,
  workerThreads = Boolean(process.env.LOCAL_WORKER_THREADS),
}) {
  // What a start on this data that was killed left running is stopped first; a stack still running on it refuses
  // this start (before anything below could remove its data).
  if (dataDir) await takeOverDataDir(dataDir, log);
  const stops = [];
  // Runs last: the emulators have let go of their files by then.
  if (dataDir && removeDataDirOnStop) stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  // Then nothing of this start is left running to take over.
  if (dataDir) stops.push(async () => forgetStack(dataDir));
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch((err) => log(`stop: ${err.message}`));
  };
  try {
    const httpPort = ports.http ?? 3000;
    const lambdaPort = ports.lambda ?? 3002;
    const streamPort = ports.stream ?? 3001;
    for (const [what, port] of [
      ['the API', httpPort],
      ['the Lambda endpoint', lambdaPort],
      ['job event streams', streamPort],
    ])
      await assertPortFree(port, what);
    // serverless offline takes the longest to answer: it starts first, beside
    // the emulators, with the endpoints and names they will have.
    const emulatorPorts = {
      dynamodb: ports.dynamodb || (await freePort()),
      s3: ports.s3 || (await freePort()),
      sqs: ports.sqs || (await freePort()),
    };
    const awsEnv = emulatorEnv(emulatorPorts);
    const names = resourceNames({ stage, env: { ...process.env, ...awsEnv } });
    const serviceEndpoints = interpose
      ? await interpose({
          dynamodb: awsEnv.AWS_ENDPOINT_URL_DYNAMODB,
          s3: awsEnv.AWS_ENDPOINT_URL_S3,
          sqs: awsEnv.AWS_ENDPOINT_URL_SQS,
        })
      : null;
    const appEnv = {
      // serverless offline cannot stream responses; the job event stream runs beside it.
      STREAM_BASE_URL: `http://localhost:${streamPort}`,
      // The queue-outage fallback invokes workers directly, here through serverless-offline.
      AWS_ENDPOINT_URL_LAMBDA: `http://localhost:${lambdaPort}`,
      FUNCTION_NAME_PREFIX: `${SERVICE}-${stage}-`,
      ...awsEnv,
      ...(serviceEndpoints && {
        AWS_ENDPOINT_URL_DYNAMODB: serviceEndpoints.dynamodb,
        AWS_ENDPOINT_URL_S3: serviceEndpoints.s3,
        AWS_ENDPOINT_URL_SQS: serviceEndpoints.sqs,
      }),
      TABLE_NAME: names.table,
      MEDIA_BUCKET: names.bucket,
      QUEUE_NAME_PREFIX: names.queuePrefix,
      ...env,
    };
    // Stopped in reverse: serverless offline (pushed below) before the emulators.
    let emulators;
    stops.push(() => emulators?.stop());
    // The test stack runs every function in one process. Otherwise the routes and the workers run in two (as Lambda
    // gives each function its own capacity): a request never waits behind a pipeline's CPU, and the workers' process
    // runs at a lower priority, so on a busy machine the API is served first.
    const groups = functionsInProcess
      ? [{ httpPort, lambdaPort }]
      : [
          { group: 'api', httpPort, lambdaPort: await freePort() },
          {
            group: 'workers',
            httpPort: await freePort(),
            lambdaPort,
            niceness: workersNiceness(),
            functionsInProcess: !workerThreads,
          },
        ];
    const launched = groups.map((options) =>
      launchOffline({
        stage,
        env: appEnv,
        watch,
        // One module cache per process: the shared build is compiled once, not in a worker thread per instance.
        functionsInProcess: true,
        log,
        onOutput: onOfflineOutput,
        ...options,
      }),
    );
    for (const offline of launched) stops.push(() => offline.stop());
    const api = launched[0];
    const workers = launched[launched.length - 1];

    // A throwaway stack's tables need not outlive it: DynamoDB keeps them in memory.
    emulators = await startEmulators({
      dataDir,
      ports: emulatorPorts,
      quiet: true,
      dynamoDbInMemory: Boolean(dataDir && removeDataDirOnStop),
    });
    log(
      `embedded AWS stack: DynamoDB ${emulators.endpoints.dynamodb}, S3 ${emulators.endpoints.s3}, SQS ${emulators.endpoints.sqs}`,
    );
    // Both run in process groups of their own, which outlive this process if it is killed.
    if (dataDir)
      recordStack(
        dataDir,
        [
          ...launched.map((offline, i) => ({ pid: offline.child.pid, role: groups[i].group ?? 'functions' })),
          { pid: emulators.dynamoDbPid, role: 'dynamodb' },
        ],
        [httpPort, lambdaPort, streamPort, ...Object.values(emulatorPorts)],
      );
    const { resources } = await provision({ stage, env: awsEnv, log });

    // The manifest, the stream server and the queue delivery run in this
    // process with the same settings the functions see.
    Object.assign(process.env, appEnv);
    const streams = await startStreamServer({ port: streamPort, log });
    stops.push(() => streams.stop());
    const { functions } = require('../../deploy/manifest.js');
    const invoker = offlineInvoker({ lambdaEndpoint: workers.lambdaEndpoint, functionPrefix: `${SERVICE}-${stage}-` });
    const consumers = consumersOf(functions, (logicalId) => {
      const queue = resources[logicalId];
      if (!queue) throw new Error(`queue ${logicalId} is consumed by a worker but not declared in serverless.yml`);
      return queue.ref;
    });
    for (const offline of launched) await offline.ready;
    const delivery = startQueueDelivery({
      consumers,
      invoke: invoker.invoke,
      sqsEndpoint: serviceEndpoints?.sqs ?? emulators.endpoints.sqs,
      log,
    });
    stops.push(async () => invoker.close());
    stops.push(() => delivery.stop());

    return {
      url: api.url,
      lambdaEndpoint: workers.lambdaEndpoint,
      functionPrefix: `${SERVICE}-${stage}-`,
      env: appEnv,
      names,
      delivery,
      // The process that runs the workers (every function in the test stack), and all of them.
      offlinePid: workers.child.pid,
      offlineTempDir: workers.tempDir,
      offlinePids: launched.map((offline) => offline.child.pid),
      offlineTempDirs: launched.map((offline) => offline.tempDir),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startLocalService };
