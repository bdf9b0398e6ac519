/**
 * Creates the AWS resources declared under `resources.Resources` in
 * serverless.yml against whatever endpoints the SDK's AWS_ENDPOINT_URL*
 * variables point at: the embedded emulators, LocalStack or Floci.
 * serverless.yml stays the only declaration; nothing here lists resources.
 *
 *   node localstack/provision.js --stage local [--region us-east-1]
 */

const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');
const {
  DynamoDBClient,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} = require('@aws-sdk/client-dynamodb');
const {
  S3Client,
  CreateBucketCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
} = require('@aws-sdk/client-s3');
const {
  SQSClient,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
} = require('@aws-sdk/client-sqs');

const SERVERLESS_YML = path.join(__dirname, '..', 'serverless.yml');
const ACCOUNT_ID = '000000000000';

/**
 * @typedef {Record<string, any>} Json
 * @typedef {{ type: string, ref: string, attributes: Record<string, string> }} Created
 * @typedef {{ stage: string, region: string, env: Record<string, string | undefined> }} Options
 */

// ---------------------------------------------------------------------------
// serverless.yml: CloudFormation short tags and serverless variables
// ---------------------------------------------------------------------------

const INTRINSICS = [
  'Base64',
  'Cidr',
  'FindInMap',
  'GetAtt',
  'GetAZs',
  'If',
  'ImportValue',
  'Join',
  'Select',
  'Split',
  'Sub',
  'Equals',
  'Not',
  'And',
  'Or',
  'Condition',
  'Ref',
];

// `!GetAtt X.Arn` becomes { 'Fn::GetAtt': ['X', 'Arn'] }, `!Ref X` becomes
// { Ref: 'X' }: the long forms CloudFormation itself uses.
const CFN_SCHEMA = yaml.DEFAULT_SCHEMA.extend(
  INTRINSICS.flatMap((name) =>
    /** @type {const} */ (['scalar', 'sequence', 'mapping']).map(
      (kind) =>
        new yaml.Type(`!${name}`, {
          kind,
          construct: (data) => {
            const key = name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`;
            if (name === 'GetAtt' && typeof data === 'string') {
              const dot = data.indexOf('.');
              return { [key]: [data.slice(0, dot), data.slice(dot + 1)] };
            }
            return { [key]: data };
          },
        }),
    ),
  ),
);

/** @returns {Json} */
function loadServerlessConfig(file = SERVERLESS_YML) {
  return /** @type {Json} */ (yaml.load(fs.readFileSync(file, 'utf8'), { schema: CFN_SCHEMA, filename: file }));
}

// `${source:address, fallback}` with a serverless source; `${AWS::Region}`
// and `${Logical.Attr}` inside !Sub are CloudFormation's and are left alone.
const INNERMOST_VARIABLE = /\$\{([^${}]+)\}/g;
const SERVERLESS_SOURCE = /^\s*[a-zA-Z]+(?:\([^)]*\))?:(?!:)/;

/**
 * Resolves serverless variables on demand: only the values provisioning
 * reads are resolved, so `${file(...)}` elsewhere in the file is never run.
 *
 * @param {Json} config
 * @param {Options} options
 */
function createVariableResolver(config, { stage, region, env }) {
  /**
   * @param {string} body e.g. "self:custom.names.table" or "env:X, 'default'"
   * @param {string[]} stack references being resolved, to report cycles
   * @returns {any}
   */
  const resolveReference = (body, stack) => {
    const [reference, fallback] = splitFallback(body);
    if (stack.includes(reference)) {
      throw new Error(`serverless.yml: circular variable \${${[...stack, reference].join(' -> ')}}`);
    }
    const value = lookup(reference, [...stack, reference]);
    if (value !== undefined && value !== null) return value;
    if (fallback !== undefined) return resolveFallback(fallback, stack);
    throw new Error(`serverless.yml: variable \${${body}} has no value and no default`);
  };

  /** @param {string} fallback @param {string[]} stack @returns {any} */
  const resolveFallback = (fallback, stack) => {
    const quoted = /^(['"])(.*)\1$/.exec(fallback);
    if (quoted) return quoted[2];
    if (SERVERLESS_SOURCE.test(fallback)) return resolveReference(fallback, stack);
    if (/^-?\d+(\.\d+)?$/.test(fallback)) return Number(fallback);
    if (fallback === 'true' || fallback === 'false') return fallback === 'true';
    return fallback;
  };

  /** @param {string} reference @param {string[]} stack */
  const lookup = (reference, stack) => {
    const colon = reference.indexOf(':');
    const source = reference.slice(0, colon);
    const address = reference.slice(colon + 1).trim();
    switch (source) {
      case 'self':
        return resolve(address === '' ? config : getPath(config, address), stack);
      case 'sls':
        if (address === 'stage') return stage;
        break;
      case 'opt':
        if (address === 'stage') return stage;
        if (address === 'region') return region;
        return undefined;
      case 'env':
        return env[address];
      case 'aws':
        if (address === 'region') return region;
        if (address === 'accountId') return ACCOUNT_ID;
        break;
    }
    throw new Error(`serverless.yml: \${${reference}} is not supported by localstack/provision.js`);
  };

  /**
   * @param {unknown} value
   * @param {string[]} [stack]
   * @returns {any}
   */
  const resolve = (value, stack = []) => {
    if (Array.isArray(value)) return value.map((item) => resolve(item, stack));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, stack)]));
    }
    if (typeof value !== 'string') return value;

    /** @type {unknown} */
    let current = value;
    let previous;
    // Innermost first, so `${self:custom.${sls:stage}}` works.
    while (typeof current === 'string' && current !== previous) {
      previous = current;
      const whole = /^\$\{([^${}]+)\}$/.exec(current);
      if (whole && SERVERLESS_SOURCE.test(whole[1])) {
        // A lone variable keeps its value's type (objects, numbers).
        current = resolveReference(whole[1], stack);
      } else {
        current = current.replace(INNERMOST_VARIABLE, (match, body) =>
          SERVERLESS_SOURCE.test(body) ? String(resolveReference(body, stack)) : match,
        );
      }
    }
    return current;
  };

  return resolve;
}

/**
 * Splits "env:X, 'a, b'" into ["env:X", "'a, b'"] at the first comma outside quotes.
 *
 * @param {string} body
 * @returns {[string, string | undefined]}
 */
function splitFallback(body) {
  let quote = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === ',') {
      return [body.slice(0, i).trim(), body.slice(i + 1).trim()];
    }
  }
  return [body.trim(), undefined];
}

/** @param {Json} object @param {string} dotted */
function getPath(object, dotted) {
  return dotted.split('.').reduce((node, key) => (node == null ? undefined : node[key]), object);
}

// ---------------------------------------------------------------------------
// CloudFormation intrinsics over the resources created so far
// ---------------------------------------------------------------------------

/**
 * @param {unknown} value
 * @param {Map<string, Created>} created
 * @param {Options} options
 * @returns {any}
 */
function evaluate(value, created, options) {
  if (Array.isArray(value)) return value.map((item) => evaluate(item, created, options));
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const v = /** @type {Json} */ (value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) {
    const arg = evaluate(v[keys[0]], created, options);
    switch (keys[0]) {
      case 'Ref':
        return refValue(arg, created, options);
      case 'Fn::GetAtt': {
        // long form accepts "X.Arn" as well as ["X", "Arn"]
        const [name, attribute] = Array.isArray(arg)
          ? arg
          : [arg.slice(0, arg.indexOf('.')), arg.slice(arg.indexOf('.') + 1)];
        return getAtt(name, attribute, created);
      }
      case 'Fn::Join':
        return arg[1].join(arg[0]);
      case 'Fn::Select':
        return arg[1][Number(arg[0])];
      case 'Fn::Split':
        return arg[1].split(arg[0]);
      case 'Fn::Sub': {
        const [template, vars = {}] = Array.isArray(arg) ? arg : [arg];
        return template.replace(/\$\{([^}!]+)\}/g, (/** @type {string} */ _, /** @type {string} */ name) => {
          if (name in vars) return vars[name];
          const dot = name.indexOf('.');
          return dot === -1 || name.startsWith('AWS::')
            ? refValue(name, created, options)
            : getAtt(name.slice(0, dot), name.slice(dot + 1), created);
        });
      }
      default:
        throw new Error(`${keys[0]} is not supported by localstack/provision.js`);
    }
  }
  return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, evaluate(item, created, options)]));
}

/** @param {string} name @param {Map<string, Created>} created @param {Options} options */
function refValue(name, created, { region }) {
  const pseudo = {
    'AWS::Region': region,
    'AWS::AccountId': ACCOUNT_ID,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  if (name in pseudo) return pseudo[/** @type {keyof typeof pseudo} */ (name)];
  const resource = created.get(name);
  if (!resource) throw new Error(`Ref ${name}: no such resource (or not created yet)`);
  return resource.ref;
}

/** @param {string} name @param {string} attribute @param {Map<string, Created>} created */
function getAtt(name, attribute, created) {
  const resource = created.get(name);
  if (!resource) throw new Error(`GetAtt ${name}.${attribute}: no such resource (or not created yet)`);
  if (!(attribute in resource.attributes)) {
    throw new Error(`GetAtt ${name}.${attribute}: ${resource.type} attribute not available locally`);
  }
  return resource.attributes[attribute];
}

/**
 * Logical ids a value refers to through Ref, GetAtt or Sub.
 *
 * @param {unknown} value
 * @param {Set<string>} [ids]
 */
function dependenciesOf(value, ids = new Set()) {
  if (Array.isArray(value)) {
    for (const item of value) dependenciesOf(item, ids);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'Ref' && typeof item === 'string') ids.add(item);
      else if (key === 'Fn::GetAtt') ids.add(Array.isArray(item) ? item[0] : String(item).split('.')[0]);
      else if (key === 'Fn::Sub') {
        const template = Array.isArray(item) ? item[0] : item;
        for (const [, name] of String(template).matchAll(/\$\{([^}!.]+)[^}]*\}/g)) ids.add(name);
      }
      dependenciesOf(item, ids);
    }
  }
  return ids;
}

/**
 * Logical ids in creation order: everything a resource refers to (e.g. the
 * DLQ behind `!GetAtt PurgeDeadLetterQueue.Arn`) is created before it.
 *
 * @param {Record<string, Json>} resources
 */
function creationOrder(resources) {
  /** @type {string[]} */
  const order = [];
  const state = new Map();
  /** @param {string} id @param {string[]} trail */
  const visit = (id, trail) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') throw new Error(`Circular dependency: ${[...trail, id].join(' -> ')}`);
    state.set(id, 'visiting');
    const deps = dependenciesOf(resources[id].Properties);
    for (const dep of [].concat(resources[id].DependsOn || [])) deps.add(dep);
    for (const dep of deps) if (dep in resources) visit(dep, [...trail, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of Object.keys(resources)) visit(id, []);
  return order;
}

// ---------------------------------------------------------------------------
// Resource handlers
// ---------------------------------------------------------------------------

/**
 * @typedef {{ dynamodb: DynamoDBClient, s3: S3Client, sqs: SQSClient, region: string, log: (line: string) => void }} Context
 * @typedef {(id: string, props: Json, ctx: Context) => Promise<Created>} Handler
 */

/** @type {Record<string, { properties: string[], create: Handler }>} */
const HANDLERS = {
  'AWS::DynamoDB::Table': {
    properties: [
      'TableName',
      'AttributeDefinitions',
      'KeySchema',
      'GlobalSecondaryIndexes',
      'LocalSecondaryIndexes',
      'BillingMode',
      'ProvisionedThroughput',
      'StreamSpecification',
      'TimeToLiveSpecification',
      'TableClass',
      'DeletionProtectionEnabled',
      'Tags',
    ],
    create: createTable,
  },
  'AWS::S3::Bucket': {
    properties: ['BucketName', 'CorsConfiguration', 'LifecycleConfiguration'],
    create: createBucket,
  },
  'AWS::SQS::Queue': {
    properties: [
      'QueueName',
      'VisibilityTimeout',
      'MessageRetentionPeriod',
      'DelaySeconds',
      'MaximumMessageSize',
      'ReceiveMessageWaitTimeSeconds',
      'FifoQueue',
      'ContentBasedDeduplication',
      'DeduplicationScope',
      'FifoThroughputLimit',
      'KmsMasterKeyId',
      'KmsDataKeyReusePeriodSeconds',
      'SqsManagedSseEnabled',
      'RedrivePolicy',
      'RedriveAllowPolicy',
      'Tags',
    ],
    create: createQueue,
  },
};

// Durability and encryption settings have no local meaning; not worth a note.
const LOCALLY_IRRELEVANT = new Set(['SSESpecification', 'PointInTimeRecoverySpecification']);

/** @type {Handler} */
async function createTable(id, props, { dynamodb, log }) {
  const { TableName } = props;
  const payPerRequest = props.BillingMode === 'PAY_PER_REQUEST';
  const table = await describeTable(dynamodb, TableName);
  if (!table) {
    await dynamodb.send(
      new CreateTableCommand({
        TableName,
        AttributeDefinitions: props.AttributeDefinitions,
        KeySchema: props.KeySchema,
        BillingMode: props.BillingMode,
        ProvisionedThroughput: payPerRequest ? undefined : props.ProvisionedThroughput,
        GlobalSecondaryIndexes: props.GlobalSecondaryIndexes?.map((/** @type {Json} */ gsi) =>
          payPerRequest ? { ...gsi, ProvisionedThroughput: undefined } : gsi,
        ),
        LocalSecondaryIndexes: props.LocalSecondaryIndexes,
        StreamSpecification: props.StreamSpecification && {
          StreamEnabled: true,
          StreamViewType: props.StreamSpecification.StreamViewType,
        },
        TableClass: props.TableClass,
        DeletionProtectionEnabled: props.DeletionProtectionEnabled,
        Tags: props.Tags,
      }),
    );
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 60 }, { TableName });
    log(`${id}: created table ${TableName}`);
  } else {
    // Data kept from an earlier run may predate an index added since.
    await addMissingIndexes(dynamodb, table, props, log);
    log(`${id}: table ${TableName} exists`);
  }

  const ttl = props.TimeToLiveSpecification;
  if (ttl?.Enabled) {
    const { TimeToLiveDescription: current } = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName }));
    const enabled = current?.TimeToLiveStatus === 'ENABLED' || current?.TimeToLiveStatus === 'ENABLING';
    if (!(enabled && current?.AttributeName === ttl.AttributeName)) {
      await dynamodb.send(
        new UpdateTimeToLiveCommand({
          TableName,
          TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
        }),
      );
    }
  }

  const described = /** @type {Json} */ (await describeTable(dynamodb, TableName));
  return {
    type: 'AWS::DynamoDB::Table',
    ref: TableName,
    attributes: { Arn: described.TableArn, StreamArn: described.LatestStreamArn },
  };
}

/** @param {DynamoDBClient} dynamodb @param {string} TableName */
async function describeTable(dynamodb, TableName) {
  try {
    return (await dynamodb.send(new DescribeTableCommand({ TableName }))).Table;
  } catch (err) {
    if (/** @type {Error} */ (err).name === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

/**
 * DynamoDB creates one index per UpdateTable call, so they go one by one.
 *
 * @param {DynamoDBClient} dynamodb @param {Json} table @param {Json} props @param {(line: string) => void} log
 */
async function addMissingIndexes(dynamodb, table, props, log) {
  const existing = new Set((table.GlobalSecondaryIndexes || []).map((/** @type {Json} */ gsi) => gsi.IndexName));
  for (const gsi of props.GlobalSecondaryIndexes || []) {
    if (existing.has(gsi.IndexName)) continue;
    const keyNames = new Set(gsi.KeySchema.map((/** @type {Json} */ key) => key.AttributeName));
    await dynamodb.send(
      new UpdateTableCommand({
        TableName: props.TableName,
        AttributeDefinitions: props.AttributeDefinitions.filter((/** @type {Json} */ a) =>
          keyNames.has(a.AttributeName),
        ),
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              ...gsi,
              ProvisionedThroughput: props.BillingMode === 'PAY_PER_REQUEST' ? undefined : gsi.ProvisionedThroughput,
            },
          },
        ],
      }),
    );
    await waitForIndexes(dynamodb, props.TableName);
    log(`${props.TableName}: added index ${gsi.IndexName}`);
  }
}

/** @param {DynamoDBClient} dynamodb @param {string} TableName */
async function waitForIndexes(dynamodb, TableName) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const table = await describeTable(dynamodb, TableName);
    const indexes = table?.GlobalSecondaryIndexes || [];
    if (table?.TableStatus === 'ACTIVE' && indexes.every((gsi) => gsi.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${TableName}: indexes did not become ACTIVE within 60 s`);
}

/** @type {Handler} */
async function createBucket(id, props, { s3, region, log }) {
  const Bucket = props.BucketName;
  if (!Bucket) throw new Error(`${id}: BucketName is required for local provisioning`);
  if (await bucketExists(s3, Bucket)) {
    log(`${id}: bucket ${Bucket} exists`);
  } else {
    await s3.send(
      new CreateBucketCommand({
        Bucket,
        // us-east-1 is the one region that rejects an explicit constraint.
        CreateBucketConfiguration:
          region === 'us-east-1' ? undefined : { LocationConstraint: /** @type {any} */ (region) },
      }),
    );
    log(`${id}: created bucket ${Bucket}`);
  }

  if (props.CorsConfiguration) {
    await s3.send(
      new PutBucketCorsCommand({
        Bucket,
        CORSConfiguration: {
          CORSRules: props.CorsConfiguration.CorsRules.map((/** @type {Json} */ rule) => ({
            ID: rule.Id,
            AllowedHeaders: rule.AllowedHeaders,
            AllowedMethods: rule.AllowedMethods,
            AllowedOrigins: rule.AllowedOrigins,
            ExposeHeaders: rule.ExposedHeaders,
            MaxAgeSeconds: rule.MaxAge,
          })),
        },
      }),
    );
  }

  if (props.LifecycleConfiguration) {
    try {
      await s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket,
          LifecycleConfiguration: { Rules: props.LifecycleConfiguration.Rules.map(lifecycleRule) },
        }),
      );
    } catch (err) {
      if (/** @type {Error} */ (err).name !== 'NotImplemented') throw err;
      log(`${id}: note: this S3 emulator does not implement lifecycle rules; skipped`);
    }
  }

  return {
    type: 'AWS::S3::Bucket',
    ref: Bucket,
    attributes: {
      Arn: `arn:aws:s3:::${Bucket}`,
      DomainName: `${Bucket}.s3.amazonaws.com`,
      RegionalDomainName: `${Bucket}.s3.${region}.amazonaws.com`,
    },
  };
}

/** @param {S3Client} s3 @param {string} Bucket */
async function bucketExists(s3, Bucket) {
  try {
    await s3.send(new HeadBucketCommand({ Bucket }));
    return true;
  } catch (err) {
    const e = /** @type {Json} */ (err);
    if (e.name === 'NotFound' || e.name === 'NoSuchBucket' || e.$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}

/**
 * CloudFormation's lifecycle rule shape to the S3 API's.
 *
 * @param {Json} rule
 */
function lifecycleRule(rule) {
  const tags = (rule.TagFilters || []).map((/** @type {Json} */ t) => ({ Key: t.Key, Value: t.Value }));
  const prefix = rule.Prefix ?? rule.Filter?.Prefix ?? '';
  return {
    ID: rule.Id,
    Status: rule.Status,
    Filter: tags.length ? { And: { Prefix: prefix, Tags: tags } } : { Prefix: prefix },
    AbortIncompleteMultipartUpload: rule.AbortIncompleteMultipartUpload,
    Expiration:
      rule.ExpirationInDays !== undefined || rule.ExpirationDate !== undefined
        ? { Days: rule.ExpirationInDays, Date: rule.ExpirationDate && new Date(rule.ExpirationDate) }
        : undefined,
    NoncurrentVersionExpiration: rule.NoncurrentVersionExpiration
      ? { NoncurrentDays: rule.NoncurrentVersionExpiration.NoncurrentDays }
      : rule.NoncurrentVersionExpirationInDays !== undefined
        ? { NoncurrentDays: rule.NoncurrentVersionExpirationInDays }
        : undefined,
    Transitions: rule.Transitions?.map((/** @type {Json} */ t) => ({
      Days: t.TransitionInDays,
      Date: t.TransitionDate && new Date(t.TransitionDate),
      StorageClass: t.StorageClass,
    })),
  };
}

/** @type {Handler} */
async function createQueue(id, props, { sqs, log }) {
  const { QueueName, Tags, ...rest } = props;
  if (!QueueName) throw new Error(`${id}: QueueName is required for local provisioning`);
  /** @type {Record<string, string>} */
  const Attributes = {};
  for (const [key, value] of Object.entries(rest)) {
    Attributes[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  const tags = Tags && Object.fromEntries(Tags.map((/** @type {Json} */ t) => [t.Key, t.Value]));

  let QueueUrl;
  try {
    ({ QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName, Attributes, tags })));
    log(`${id}: queue ${QueueName} ready`);
  } catch (err) {
    // CreateQueue is idempotent only for identical attributes: bring an
    // existing queue up to the declaration instead.
    const name = /** @type {Error} */ (err).name;
    if (name !== 'QueueNameExists' && name !== 'QueueAlreadyExists') throw err;
    ({ QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName })));
    const { FifoQueue, ...changeable } = Attributes;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: changeable }));
    log(`${id}: queue ${QueueName} exists; attributes updated`);
  }

  const { Attributes: current } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return {
    type: 'AWS::SQS::Queue',
    ref: /** @type {string} */ (QueueUrl),
    attributes: {
      Arn: /** @type {string} */ (current?.QueueArn),
      QueueName,
      QueueUrl: /** @type {string} */ (QueueUrl),
    },
  };
}

// ---------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------

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

/**
 * The resources serverless.yml declares itself. `resources:` is a list of
 * mappings there; the generated entry (`${file(./functions/manifest.js):resources}`:
 * IAM roles and alarms, nothing an emulator runs) stays an unresolved string
 * and is skipped.
 *
 * @param {Json} config
 * @returns {Record<string, Json>}
 */
function declaredResources(config) {
  const parts = Array.isArray(config.resources) ? config.resources : [config.resources];
  /** @type {Record<string, Json>} */
  const merged = {};
  for (const part of parts) if (part && typeof part === 'object') Object.assign(merged, part.Resources);
  return merged;
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
      const handler = HANDLERS[Type];
      if (!handler) {
        log(`${id}: note: ${Type} is not provisioned locally`);
        continue;
      }
      const ignored = Object.keys(Properties).filter(
        (key) => !handler.properties.includes(key) && !LOCALLY_IRRELEVANT.has(key),
      );
      if (ignored.length) log(`${id}: note: not applied locally: ${ignored.join(', ')}`);
      const props = evaluate(resolve(Properties), created, options);
      created.set(id, await handler.create(id, props, ctx));
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

module.exports = { provision, resourceNames, loadServerlessConfig, declaredResources };
