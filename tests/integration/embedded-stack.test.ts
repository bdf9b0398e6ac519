/**
 * The embedded AWS stack (localstack/emulators/emulators.js) provisioned from
 * serverless.yml (localstack/provision/provision.js), exercised through the SDK with
 * nothing but the environment variables the stack hands out.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { declaredResources, loadServerlessConfig } from '../../deploy/serverless-config';
import { provision, resourceNames } from '../../localstack/provision/provision';

const STAGE = 'itest';
const ORIGIN = 'http://localhost:3000';
const declared = declaredResources(loadServerlessConfig());
const names = resourceNames({ stage: STAGE });

let dynamodb: DynamoDBClient;
let s3: S3Client;
let sqs: SQSClient;

/** The java process serving DynamoDB Local on this port, if any. */
function dynamoDbLocalPids(endpoint: string): string[] {
  const port = new URL(endpoint).port;
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.* -port ${port}( |$)`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** A killed java can take a moment to disappear from the process table. */
async function javaGone(endpoint: string): Promise<boolean> {
  for (let i = 0; i < 20 && dynamoDbLocalPids(endpoint).length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return dynamoDbLocalPids(endpoint).length === 0;
}

function portIsClosed(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

// The run's shared emulators (tests/support/global-setup.ts); this suite
// provisions its own stage on them, as a second deployment would.
beforeAll(async () => {
  await provision({ stage: STAGE, env: {} });
  // Clients configured by the environment alone, as application code is.
  dynamodb = new DynamoDBClient({});
  s3 = new S3Client({});
  sqs = new SQSClient({});
}, 120_000);

afterAll(() => {
  for (const client of [dynamodb, s3, sqs]) client?.destroy();
});

describe('DynamoDB', () => {
  it('creates the table with the declared keys and every declared GSI', async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: names.table }));
    const declaredIndexes = declared.Table.Properties.GlobalSecondaryIndexes.map(
      (gsi: { IndexName: string }) => gsi.IndexName,
    );

    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.GlobalSecondaryIndexes?.map((gsi) => gsi.IndexName).sort()).toEqual([...declaredIndexes].sort());
    expect(declaredIndexes).toEqual(expect.arrayContaining(['gsi1', 'gsi2', 'archived', 'active']));
  });

  it('enables TTL on the declared attribute', async () => {
    const { TimeToLiveDescription } = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: names.table }));

    expect(TimeToLiveDescription).toEqual({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: declared.Table.Properties.TimeToLiveSpecification.AttributeName,
    });
  });

  it('cancels a transaction whose condition fails and writes none of it', async () => {
    const TableName = names.table;
    await dynamodb.send(new PutItemCommand({ TableName, Item: { pk: { S: 'tx' }, sk: { S: 'existing' } } }));

    const attempt = dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk: { S: 'tx' }, sk: { S: 'new' } } } },
          {
            Put: {
              TableName,
              Item: { pk: { S: 'tx' }, sk: { S: 'existing' } },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );

    await expect(attempt).rejects.toMatchObject({
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    });
    const { Item } = await dynamodb.send(new GetItemCommand({ TableName, Key: { pk: { S: 'tx' }, sk: { S: 'new' } } }));
    expect(Item).toBeUndefined();
  });
});

describe('SQS', () => {
  it('creates the queue with its dead-letter queue as redrive target', async () => {
    const { QueueUrl: dlqUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${names.queuePrefix}purge-dlq` }));
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${names.queuePrefix}purge` }));
    const dlq = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['All'] }));
    const queue = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));

    const props = declared.PurgeQueue.Properties;
    expect(JSON.parse(queue.Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: dlq.Attributes?.QueueArn,
      maxReceiveCount: props.RedrivePolicy.maxReceiveCount,
    });
    expect(queue.Attributes?.VisibilityTimeout).toBe(String(props.VisibilityTimeout));
    expect(dlq.Attributes?.MessageRetentionPeriod).toBe(
      String(declared.PurgeDeadLetterQueue.Properties.MessageRetentionPeriod),
    );
  });
});

describe('S3', () => {
  /** Signs like the app's presigning client must (aws-sdk-js-v3 #6994). */
  let presigner: S3Client;
  beforeAll(() => {
    presigner = new S3Client({
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      forcePathStyle: true,
    });
  });
  afterAll(() => presigner.destroy());

  it('creates the bucket with CORS exposing ETag', async () => {
    const { CORSRules } = await s3.send(new GetBucketCorsCommand({ Bucket: names.bucket }));

    expect(CORSRules).toEqual([
      expect.objectContaining({
        AllowedOrigins: ['*'],
        AllowedMethods: expect.arrayContaining(['PUT', 'POST']),
        ExposeHeaders: ['ETag'],
      }),
    ]);
  });

  it('uploads parts through presigned URLs from another origin and assembles them', async () => {
    const Bucket = names.bucket;
    const Key = 'itest/multipart.bin';
    const chunks = [Buffer.alloc(5 * 1024 * 1024, 'a'), Buffer.from('the last, short part')];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));

    const etags: string[] = [];
    for (const [i, body] of chunks.entries()) {
      const url = await getSignedUrl(presigner, new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: i + 1 }), {
        expiresIn: 600,
      });
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT' },
      });
      expect(preflight.status).toBe(200);
      const res = await fetch(url, { method: 'PUT', headers: { Origin: ORIGIN }, body });
      expect(res.status).toBe(200);
      // A browser can read ETag only when CORS exposes it.
      expect(res.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/i);
      etags.push(res.headers.get('etag') as string);
    }

    const { Parts, IsTruncated } = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
    expect(IsTruncated).toBe(false);
    expect(Parts?.map(({ PartNumber, ETag, Size }) => ({ PartNumber, ETag, Size }))).toEqual([
      { PartNumber: 1, ETag: etags[0], Size: chunks[0].length },
      { PartNumber: 2, ETag: etags[1], Size: chunks[1].length },
    ]);
    expect(Parts?.every((part) => part.LastModified instanceof Date)).toBe(true);

    const { Uploads } = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'itest/' }));
    expect(Uploads).toEqual([expect.objectContaining({ Key, UploadId })]);

    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    const object = await s3.send(new GetObjectCommand({ Bucket, Key }));
    const bytes = Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    expect(bytes.equals(Buffer.concat(chunks))).toBe(true);
    const after = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'itest/' }));
    expect(after.Uploads ?? []).toEqual([]);
  });

  it('aborts an upload and deletes its parts', async () => {
    const Bucket = names.bucket;
    const Key = 'itest/aborted.bin';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.from('part') }));

    await s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));

    await expect(s3.send(new ListPartsCommand({ Bucket, Key, UploadId }))).rejects.toMatchObject({
      name: 'NoSuchUpload',
    });
    const { Uploads } = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
    expect(Uploads ?? []).toEqual([]);
    const partsDir = path.join(
      process.env.TEST_DATA_DIR as string,
      's3',
      Bucket,
      '._S3rver_uploads',
      UploadId as string,
    );
    expect(fs.existsSync(partsDir)).toBe(false);
  });

  it('stores a streamed PutObject body (aws-chunked) as the plain bytes', async () => {
    const Bucket = names.bucket;
    const Key = 'itest/streamed.txt';
    await s3.send(
      new PutObjectCommand({
        Bucket,
        Key,
        ContentLength: 11,
        Body: Readable.from([Buffer.from('hello '), Buffer.from('world')]),
      }),
    );

    const object = await s3.send(new GetObjectCommand({ Bucket, Key }));
    expect(await object.Body?.transformToString()).toBe('hello world');
    expect(object.ContentEncoding).toBeUndefined();
  });

  it('pages object listings with continuation tokens', async () => {
    const Bucket = names.bucket;
    for (const key of ['a', 'b', 'c']) {
      await s3.send(new PutObjectCommand({ Bucket, Key: `itest/page/${key}`, Body: key }));
    }

    const first = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'itest/page/', MaxKeys: 2 }));
    const second = await s3.send(
      new ListObjectsV2Command({
        Bucket,
        Prefix: 'itest/page/',
        MaxKeys: 2,
        ContinuationToken: first.NextContinuationToken,
      }),
    );

    expect(first.Contents?.map((o) => o.Key)).toEqual(['itest/page/a', 'itest/page/b']);
    expect(second.Contents?.map((o) => o.Key)).toEqual(['itest/page/c']);
  });

  it("enforces a presigned POST policy's content-length-range", async () => {
    const Bucket = names.bucket;
    const Key = 'itest/posted.txt';
    const { url, fields } = await createPresignedPost(presigner, {
      Bucket,
      Key,
      Conditions: [['content-length-range', 1, 10]],
      Expires: 600,
    });
    const post = (body: string) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', new Blob([body]), 'posted.txt');
      return fetch(url, { method: 'POST', body: form, headers: { Origin: ORIGIN } });
    };

    expect((await post('fits')).status).toBe(204);
    const tooLarge = await post('far more than ten bytes');
    expect(tooLarge.status).toBe(400);
    expect(await tooLarge.text()).toContain('<Code>EntityTooLarge</Code>');

    const object = await s3.send(new GetObjectCommand({ Bucket, Key }));
    expect(await object.Body?.transformToString()).toBe('fits');
  });
});

describe('provisioning', () => {
  it('can run again over existing resources without touching their data', async () => {
    const Key = { pk: { S: 'idempotent' }, sk: { S: 'kept' } };
    await dynamodb.send(new PutItemCommand({ TableName: names.table, Item: Key }));

    const again = await provision({ stage: STAGE, env: {} });

    expect(again.names).toEqual(names);
    expect(Object.keys(again.resources).sort()).toEqual(Object.keys(declared).sort());
    const { Item } = await dynamodb.send(new GetItemCommand({ TableName: names.table, Key }));
    expect(Item).toEqual(Key);
  });
});

describe('shutdown', () => {
  // The one place a second set of emulators starts: a child process runs them
  // the way npm start does, and a Ctrl-C must leave no java and no open port.
  it('leaves no java and no open port behind when the parent gets SIGINT', async () => {
    const script = `const { startEmulators } = require(${JSON.stringify(path.resolve(__dirname, '../../localstack/emulators/emulators.js'))});
      startEmulators({ quiet: true }).then((s) => {
        process.on('SIGINT', () => s.stop().then(() => process.exit(0)));
        console.log(JSON.stringify(s.endpoints));
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const endpoints = await new Promise<Record<string, string>>((resolve, reject) => {
      child.stdout.once('data', (line) => resolve(JSON.parse(String(line))));
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    expect(dynamoDbLocalPids(endpoints.dynamodb)).not.toEqual([]);

    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');

    expect(await exited).toBe(0);
    expect(await javaGone(endpoints.dynamodb)).toBe(true);
    for (const endpoint of Object.values(endpoints)) expect(await portIsClosed(endpoint)).toBe(true);
  }, 120_000);
});
