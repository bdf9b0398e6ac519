/**
 * Creates the AWS resources declared under `resources.Resources` in
 * serverless.yml against whatever endpoints the SDK's AWS_ENDPOINT_URL*
 * variables point at: the embedded emulators, LocalStack or Floci.
 * serverless.yml stays the only declaration; nothing here lists resources.
 *
 *   node localstack/provision/provision.js --stage local [--region us-east-1]
 */

const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { S3Client } = require('@aws-sdk/client-s3');
const { SQSClient } = require('@aws-sdk/client-sqs');
const { CREATORS, unappliedProperties } = require('./resources');
const { declaredResources, loadServerlessConfig } = require('../../deploy/serverless-config');
const { createVariableResolver, creationOrder, evaluate } = require('./template');

/**
 * @typedef {import('./template').Json} Json
 * @typedef {import('./template').Created} Created
 */

/**
 * SDK client settings from an environment map: the service's own
 * AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL, else AWS itself.
 *
 * @param {Record<string, string | undefined>} env
 * @param {'DYNAMODB' | 'S3' | 'SQS'} service
 */
function clientConfig(env, service) {
  const endpoint = env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL;
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY }
      : undefined;
  return { endpoint, region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1', credentials };
}

/**
 * Table, bucket and queue prefix names for a stage, from custom.names in
 * serverless.yml (the app's TABLE_NAME, MEDIA_BUCKET and QUEUE_NAME_PREFIX).
 *
 * @param {{ stage: string, env?: Record<string, string | undefined> }} options
 * @returns {{ table: string, bucket: string, queuePrefix: string }}
 */
function resourceNames({ stage, env = process.env }) {
  const config = loadServerlessConfig();
  return namesFrom(createVariableResolver(config, { stage, region: env.AWS_REGION || 'us-east-1', env }));
}

/** @param {(value: unknown) => any} resolve */
function namesFrom(resolve) {
  const { table, bucket, queuePrefix } = resolve(['$', '{self:custom.names}'].join(''));
  return { table, bucket, queuePrefix };
}

/**
 * Creates (or brings up to date) every resource under resources.Resources.
 * Safe to run again against existing resources.
 *
 * @param {{ stage: string, env?: Record<string, string | undefined>, log?: (line: string) => void }} options
 *   env: endpoint and credential variables (e.g. startEmulators().env), over process.env.
 * @returns {Promise<{ names: { table: string, bucket: string, queuePrefix: string }, resources: Record<string, Created> }>}
 */
async function provision({ stage, env = {}, log = () => {} }) {
  const allEnv = { ...process.env, ...env };
  const config = loadServerlessConfig();
  const s3Config = clientConfig(allEnv, 'S3');
  const options = { stage, region: s3Config.region, env: allEnv };
  const resolve = createVariableResolver(config, options);
  const resources = declaredResources(config);

  const ctx = {
    dynamodb: new DynamoDBClient(clientConfig(allEnv, 'DYNAMODB')),
    s3: new S3Client({ ...s3Config, forcePathStyle: true }),
    sqs: new SQSClient(clientConfig(allEnv, 'SQS')),
    region: options.region,
    log,
  };
  /** @type {Map<string, Created>} */
  const created = new Map();
  try {
    for (const id of creationOrder(resources)) {
      const { Type, Properties = {} } = resources[id];
      const creator = CREATORS[Type];
      if (!creator) {
        log(`${id}: note: ${Type} is not provisioned locally`);
        continue;
      }
      const ignored = unappliedProperties(creator, Properties);
      if (ignored.length) log(`${id}: note: not applied locally: ${ignored.join(', ')}`);
      const props = evaluate(resolve(Properties), created, options);
      created.set(id, await creator.create(id, props, ctx));
    }
  } finally {
    ctx.dynamodb.destroy();
    ctx.s3.destroy();
    ctx.sqs.destroy();
  }
  return { names: namesFrom(resolve), resources: Object.fromEntries(created) };
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {Record<string, string>} */
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`Unexpected argument: ${argv[i]}`);
    args[match[1]] = match[2] ?? argv[++i];
  }
  return args;
}

if (require.main === module) {
  const args = parseArgs(process.argv.slice(2));
  const env = args.region ? { AWS_REGION: args.region } : {};
  provision({ stage: args.stage || 'local', env, log: (line) => console.log(line) }).then(
    ({ names }) => console.log(`provisioned stage "${args.stage || 'local'}": ${JSON.stringify(names)}`),
    (err) => {
      console.error(`provisioning failed: ${err.message}`);
      process.exitCode = 1;
    },
  );
}

module.exports = { provision, resourceNames };
