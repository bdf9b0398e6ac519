/**
 * Creators of the resource types provisioned locally: DynamoDB tables (keys,
 * GSIs, billing mode, TTL), S3 buckets (CORS, lifecycle) and SQS queues
 * (attributes, redrive policy). Each creates its resource or brings an
 * existing one up to the declaration, and returns what Ref and GetAtt give.
 */

const {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} = require('@aws-sdk/client-dynamodb');
const {
  CreateBucketCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
} = require('@aws-sdk/client-s3');
const {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
} = require('@aws-sdk/client-sqs');

/**
 * @typedef {import('./template').Json} Json
 * @typedef {import('./template').Created} Created
 * @typedef {import('@aws-sdk/client-dynamodb').DynamoDBClient} DynamoDBClient
 * @typedef {import('@aws-sdk/client-s3').S3Client} S3Client
 * @typedef {import('@aws-sdk/client-sqs').SQSClient} SQSClient
 * @typedef {{ dynamodb: DynamoDBClient, s3: S3Client, sqs: SQSClient, region: string, log: (line: string) => void }} Context
 * @typedef {(id: string, props: Json, ctx: Context) => Promise<Created>} Creator
 */

/** @type {Record<string, { properties: string[], create: Creator }>} */
const CREATORS = {
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

/** @type {Creator} */
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

/** @type {Creator} */
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

/** @type {Creator} */
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

/**
 * Declared properties the creator does not apply, for the one-line note.
 *
 * @param {{ properties: string[] }} creator
 * @param {Json} properties
 */
function unappliedProperties(creator, properties) {
  return Object.keys(properties).filter((key) => !creator.properties.includes(key) && !LOCALLY_IRRELEVANT.has(key));
}

module.exports = { CREATORS, unappliedProperties };
