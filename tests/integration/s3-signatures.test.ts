/**
 * The local S3 refuses what AWS refuses (localstack/emulators/s3-auth.js): SigV4
 * signatures are recomputed for header-signed and presigned requests,
 * presigned URLs expire, and a browser POST must match its signed policy.
 * Run against the run's shared emulators (tests/support/global-setup.ts).
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucket, objectExists } from '../support/aws';

const prefix = `s3-signatures/${randomUUID()}/`;
// Signs like the app's client (lib/blob/client.ts).
const clientWith = (secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY as string) =>
  new S3Client({
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID as string, secretAccessKey },
    maxAttempts: 1,
  });
// The SDK's defaults: streamed bodies go up aws-chunked with a trailing checksum.
const defaults = new S3Client({ forcePathStyle: true, maxAttempts: 1 });
const s3 = clientWith();
const wrongSecret = clientWith('not-the-secret');

afterAll(() => {
  for (const c of [s3, wrongSecret, defaults]) c.destroy();
});

const errorCode = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1];

describe('header-signed requests', () => {
  it("accepts the SDK's own calls: PUT, streamed PUT, GET, DeleteObjects", async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: `${prefix}plain.txt`, Body: 'plain' }));
    await defaults.send(
      new PutObjectCommand({
        Bucket: bucket(),
        Key: `${prefix}streamed.txt`,
        ContentLength: 11,
        Body: Readable.from([Buffer.from('hello '), Buffer.from('world')]),
      }),
    );
    const got = await defaults.send(new GetObjectCommand({ Bucket: bucket(), Key: `${prefix}streamed.txt` }));
    expect(await got.Body?.transformToString()).toBe('hello world');

    const { Errors } = await defaults.send(
      new DeleteObjectsCommand({ Bucket: bucket(), Delete: { Objects: [{ Key: `${prefix}plain.txt` }] } }),
    );
    expect(Errors ?? []).toEqual([]);
    expect(await objectExists(`${prefix}plain.txt`)).toBe(false);
  });

  it('refuses a request signed with the wrong secret and stores nothing', async () => {
    const err = await wrongSecret
      .send(new PutObjectCommand({ Bucket: bucket(), Key: `${prefix}forged.txt`, Body: 'x' }))
      .catch((e) => e);

    expect(err).toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    expect(await objectExists(`${prefix}forged.txt`)).toBe(false);
  });

  it('refuses an unsigned request: the bucket is private', async () => {
    const res = await fetch(`${process.env.AWS_ENDPOINT_URL_S3}/${bucket()}/${prefix}anonymous.txt`, {
      method: 'PUT',
      body: 'x',
    });

    expect(res.status).toBe(403);
    expect(errorCode(await res.text())).toBe('AccessDenied');
    expect(await objectExists(`${prefix}anonymous.txt`)).toBe(false);
  });
});

describe('presigned URLs', () => {
  const key = `${prefix}photo.jpg`;
  beforeAll(() => s3.send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: 'the photo' })));

  it('serve the signed object', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: 60 });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('the photo');
  });

  it('refuse a tampered key, a missing signature and a wrong secret', async () => {
    await s3.send(new PutObjectCommand({ Bucket: bucket(), Key: `${prefix}other.jpg`, Body: 'another photo' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: 60 });

    const tampered = await fetch(url.replace('photo.jpg', 'other.jpg'));
    expect(tampered.status).toBe(403);
    expect(errorCode(await tampered.text())).toBe('SignatureDoesNotMatch');

    const unsigned = new URL(url);
    unsigned.searchParams.delete('X-Amz-Signature');
    const dropped = await fetch(unsigned);
    expect(dropped.status).toBe(400);
    expect(errorCode(await dropped.text())).toBe('AuthorizationQueryParametersError');

    const forged = await fetch(
      await getSignedUrl(wrongSecret, new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: 60 }),
    );
    expect(forged.status).toBe(403);
    expect(errorCode(await forged.text())).toBe('SignatureDoesNotMatch');
  });

  it('refuse an expired URL with AccessDenied "Request has expired"', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket(), Key: key }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 10 * 60_000),
    });

    const res = await fetch(url);

    expect(res.status).toBe(403);
    const body = await res.text();
    expect(errorCode(body)).toBe('AccessDenied');
    expect(body).toContain('Request has expired');
  });

  it('hold a part URL to the size it was signed for (content-length is a signed header)', async () => {
    const partKey = `${prefix}video.mp4`;
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket(), Key: partKey }));
    const url = await getSignedUrl(
      s3,
      new UploadPartCommand({ Bucket: bucket(), Key: partKey, UploadId, PartNumber: 1, ContentLength: 8 }),
      {
        expiresIn: 60,
        signableHeaders: new Set(['content-length']),
      },
    );

    const oversize = await fetch(url, { method: 'PUT', body: 'more than eight bytes' });
    expect(oversize.status).toBe(403);
    expect(errorCode(await oversize.text())).toBe('SignatureDoesNotMatch');

    const exact = await fetch(url, { method: 'PUT', body: '8 bytes!' });
    expect(exact.status).toBe(200);
  });
});

describe('browser POST policies', () => {
  const key = `${prefix}incoming/orig_0001`;
  const signedPost = (options: { expires?: number; client?: S3Client } = {}) =>
    createPresignedPost(options.client ?? s3, {
      Bucket: bucket(),
      Key: key,
      Conditions: [
        ['content-length-range', 1, 16],
        ['starts-with', '$x-amz-meta-note', ''],
      ],
      Fields: { 'Content-Type': 'image/png', 'x-amz-meta-note': 'n' },
      Expires: options.expires ?? 600,
    });
  const post = (url: string, fields: Record<string, string>, body = 'png bytes') => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([body], { type: 'text/html' }), 'x.png');
    return fetch(url, { method: 'POST', body: form });
  };
  const refusal = async (res: Response) => ({ status: res.status, code: errorCode(await res.text()) });

  it('accepts the form as signed and stores the policy Content-Type', async () => {
    const { url, fields } = await signedPost();

    expect((await post(url, fields)).status).toBe(204);

    const stored = await s3.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    expect(stored.ContentType).toBe('image/png');
    expect(await stored.Body?.transformToString()).toBe('png bytes');
  });

  it('refuses a form that breaks a condition, and stores nothing', async () => {
    const { url, fields } = await signedPost();
    const other = `${prefix}elsewhere`;

    await expect(refusal(await post(url, { ...fields, 'Content-Type': 'text/html' }))).resolves.toEqual({
      status: 403,
      code: 'AccessDenied',
    });
    await expect(refusal(await post(url, { ...fields, key: other }))).resolves.toEqual({
      status: 403,
      code: 'AccessDenied',
    });
    await expect(refusal(await post(url, fields, 'seventeen bytes!!'))).resolves.toEqual({
      status: 400,
      code: 'EntityTooLarge',
    });
    await expect(refusal(await post(url, { ...fields, 'x-amz-meta-extra': 'not in the policy' }))).resolves.toEqual({
      status: 403,
      code: 'AccessDenied',
    });
    expect(await objectExists(other)).toBe(false);
  });

  it('names the failed condition as S3 does', async () => {
    const { url, fields } = await signedPost();
    const res = await post(url, { ...fields, 'Content-Type': 'text/html' });
    expect(await res.text()).toContain('Invalid according to Policy: Policy Condition failed');
  });

  it('refuses an expired policy, a tampered policy and a wrong secret', async () => {
    const expired = await signedPost({ expires: -60 });
    await expect(refusal(await post(expired.url, expired.fields))).resolves.toEqual({
      status: 403,
      code: 'AccessDenied',
    });

    const { url, fields } = await signedPost();
    const policy = JSON.parse(Buffer.from(fields.Policy, 'base64').toString('utf8'));
    policy.conditions = policy.conditions.map((c: unknown) =>
      Array.isArray(c) && c[0] === 'content-length-range' ? ['content-length-range', 1, 1_000_000] : c,
    );
    const tampered = { ...fields, Policy: Buffer.from(JSON.stringify(policy)).toString('base64') };
    await expect(refusal(await post(url, tampered, 'x'.repeat(100)))).resolves.toEqual({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });

    const forged = await signedPost({ client: wrongSecret });
    await expect(refusal(await post(forged.url, forged.fields))).resolves.toEqual({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it('refuses a form without a policy: anonymous uploads are not allowed', async () => {
    const res = await post(`${process.env.AWS_ENDPOINT_URL_S3}/${bucket()}`, { key: `${prefix}anonymous` });
    await expect(refusal(res)).resolves.toEqual({ status: 403, code: 'AccessDenied' });
    expect(await objectExists(`${prefix}anonymous`)).toBe(false);
  });
});
