/**
 * The whole service, locally: the embedded AWS stack, the resources from
 * serverless.yml, `serverless offline` (API, Lambda endpoint, schedules) and
 * delivery of queue messages to the worker functions. `npm start` and the
 * test suite's global setup both start it through startLocalService().
 */
const { rmSync } = require('node:fs');
const { startEmulators, assertPortFree } = require('./emulators');
const { provision } = require('./provision');
const { startOffline } = require('./offline');
const { startQueueDelivery, consumersOf, offlineInvoker } = require('./queue-delivery');
const { startStreamServer } = require('./stream-server');

const SERVICE = 'contents-inventory';

/**
 * @param {object} options
 * @param {string} options.stage
 * @param {string} [options.dataDir]  where DynamoDB and S3 data persist; absent = throwaway
 * @param {boolean} [options.removeDataDirOnStop]  dataDir is throwaway too: stop() deletes it
 * @param {{ http?: number, lambda?: number, stream?: number, dynamodb?: number, s3?: number, sqs?: number }} [options.ports]
 * @param {Record<string, string>} [options.env]  settings for the service (e.g. CLAIMS_PLATFORM_JWT_SECRET)
 * @param {(line: string) => void} [options.log]
 * @param {(chunk: string) => void} [options.onOfflineOutput]
 */
async function startLocalService({
  stage,
  dataDir,
  removeDataDirOnStop = false,
  ports = {},
  env = {},
  log = () => {},
  onOfflineOutput,
}) {
  const stops = [];
  // Runs last: the emulators have let go of their files by then.
  if (dataDir && removeDataDirOnStop) stops.push(async () => rmSync(dataDir, { recursive: true, force: true }));
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
    const emulators = await startEmulators({
      dataDir,
      ports: { dynamodb: ports.dynamodb, s3: ports.s3, sqs: ports.sqs },
      quiet: true,
    });
    stops.push(() => emulators.stop());
    log(
      `embedded AWS stack: DynamoDB ${emulators.endpoints.dynamodb}, S3 ${emulators.endpoints.s3}, SQS ${emulators.endpoints.sqs}`,
    );

    const { names, resources } = await provision({ stage, env: emulators.env, log });
    const appEnv = {
      // serverless offline cannot stream responses; the job event stream runs beside it.
      STREAM_BASE_URL: `http://localhost:${streamPort}`,
      // The queue-outage fallback invokes workers directly, here through serverless-offline.
      AWS_ENDPOINT_URL_LAMBDA: `http://localhost:${lambdaPort}`,
      FUNCTION_NAME_PREFIX: `${SERVICE}-${stage}-`,
      ...emulators.env,
      TABLE_NAME: names.table,
      MEDIA_BUCKET: names.bucket,
      QUEUE_NAME_PREFIX: names.queuePrefix,
      ...env,
    };

    const offline = await startOffline({ stage, httpPort, lambdaPort, env: appEnv, onOutput: onOfflineOutput });
    stops.push(() => offline.stop());

    // The manifest, the stream server and the queue delivery run in this
    // process with the same settings the functions see.
    Object.assign(process.env, appEnv);
    const streams = await startStreamServer({ port: streamPort, log });
    stops.push(() => streams.stop());
    const { functions } = require('../functions/manifest.js');
    const invoker = offlineInvoker({ lambdaEndpoint: offline.lambdaEndpoint, functionPrefix: `${SERVICE}-${stage}-` });
    const consumers = consumersOf(functions, (logicalId) => {
      const queue = resources[logicalId];
      if (!queue) throw new Error(`queue ${logicalId} is consumed by a worker but not declared in serverless.yml`);
      return queue.ref;
    });
    const delivery = startQueueDelivery({
      consumers,
      invoke: invoker.invoke,
      sqsEndpoint: emulators.endpoints.sqs,
      log,
    });
    stops.push(async () => invoker.close());
    stops.push(() => delivery.stop());

    return {
      url: offline.url,
      lambdaEndpoint: offline.lambdaEndpoint,
      functionPrefix: `${SERVICE}-${stage}-`,
      env: appEnv,
      names,
      delivery,
      offlinePid: offline.child.pid,
      offlineTempDir: offline.tempDir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startLocalService };
