/**
 * Direct access to the embedded emulators the service runs on, for seeding
 * states no route in this slice can produce yet (a submitted claim, items)
 * and for checking what was written.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
export const s3 = new S3Client({
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
export const table = () => process.env.TABLE_NAME as string;
export const bucket = () => process.env.MEDIA_BUCKET as string;

export async function getRow(pk: string, sk: string) {
  const { Item } = await doc.send(new GetCommand({ TableName: table(), Key: { pk, sk }, ConsistentRead: true }));
  return Item ?? null;
}

export async function setFields(pk: string, sk: string, fields: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:v${i}`] = v;
    return `#f${i} = :v${i}`;
  });
  await doc.send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk, sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/** A job row as the ingestion capability writes it (only the fields room counts read). */
export async function seedJob(
  room: { id: string; claim_id: string; team_id: string },
  sourceType: 'video' | 'photo' | 'audio',
) {
  const id = randomUUID();
  const now = new Date().toISOString();
  await doc.send(
    new PutCommand({
      TableName: table(),
      Item: {
        pk: `JOB#${id}`,
        sk: 'JOB',
        entity: 'Job',
        gsi1pk: `ROOM#${room.id}#JOBS`,
        gsi1sk: `${now}#${id}`,
        gsi2pk: `TEAM#${room.team_id}#JOBS`,
        gsi2sk: now,
        id,
        room_id: room.id,
        claim_id: room.claim_id,
        team_id: room.team_id,
        source_type: sourceType,
        status: 'complete',
        created_at: now,
      },
    }),
  );
  return id;
}

/** An item row as the pipelines write it (only the fields room rules read). */
export async function seedItem(
  room: { id: string; team_id: string },
  jobId: string,
  fields: { number: number; is_archived?: boolean; submitted?: boolean },
) {
  const id = randomUUID();
  await doc.send(
    new PutCommand({
      TableName: table(),
      Item: {
        pk: `ITEM#${id}`,
        sk: 'ITEM',
        entity: 'Item',
        gsi1pk: `JOB#${jobId}#ITEMS`,
        gsi1sk: String(fields.number).padStart(8, '0'),
        gsi2pk: `ROOM#${room.id}#ITEMS`,
        gsi2sk: String(fields.number).padStart(8, '0'),
        id,
        job_id: jobId,
        room_id: room.id,
        team_id: room.team_id,
        item_number: fields.number,
        is_archived: fields.is_archived ?? false,
        claims_platform_submitted_at: fields.submitted ? new Date().toISOString() : null,
      },
    }),
  );
  return id;
}

export async function putObject(key: string, body = 'bytes') {
  await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body }));
}

export async function listKeys(prefix: string): Promise<string[]> {
  const { Contents } = await s3.send(new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix }));
  return (Contents ?? []).map((o) => o.Key as string);
}

export async function objectExists(key: string): Promise<boolean> {
  try {
    await s3.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** Invokes a function of the running service through serverless-offline's Lambda endpoint. */
export async function invokeFunction(name: string, event: unknown = {}) {
  // Loaded here, not at the top: most files that import these helpers never invoke a function.
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  const lambda = new LambdaClient({ endpoint: process.env.TEST_LAMBDA_ENDPOINT, maxAttempts: 1 });
  const result = await lambda.send(
    new InvokeCommand({
      FunctionName: `${process.env.TEST_FUNCTION_PREFIX}${name}`,
      Payload: Buffer.from(JSON.stringify(event)),
    }),
  );
  const text = result.Payload ? Buffer.from(result.Payload).toString('utf8') : '';
  return { error: result.FunctionError, payload: text ? JSON.parse(text) : null };
}
