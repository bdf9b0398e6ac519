/**
 * Single-object operations on the media bucket; a missing object is null, not an error.
 * Those that take a client use it instead of the function's own (a team's: ./team-credentials.ts).
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mediaBucket, s3 } from './client';
import { type ByteRange, cutRanges, spanRanges } from './range-rules';

function isMissingObject(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export interface ObjectHead {
  size: number;
  /** User metadata, names lower-case without the x-amz-meta- prefix. */
  metadata: Record<string, string>;
}

export async function headObject(key: string, client: S3Client = s3()): Promise<ObjectHead | null> {
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: mediaBucket(), Key: key }));
    const metadata = Object.fromEntries(Object.entries(head.Metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return { size: head.ContentLength ?? 0, metadata };
  } catch (err) {
    if (isMissingObject(err)) return null;
    throw err;
  }
}

/** Bytes [start, end) of an object (one Range GET; fewer when it ends sooner), or null when it is gone. */
async function readObjectSpan(key: string, start: number, end: number, client = s3()): Promise<Buffer | null> {
  try {
    const { Body } = await client.send(
      new GetObjectCommand({ Bucket: mediaBucket(), Key: key, Range: `bytes=${start}-${end - 1}` }),
    );
    const data = Buffer.from(await Body!.transformToByteArray());
    return data.subarray(0, end - start);
  } catch (err) {
    if (isMissingObject(err)) return null;
    throw err;
  }
}

/** The first `bytes` bytes of an object (a Range GET), or null when it is gone. */
export function readObjectHead(key: string, bytes: number, client: S3Client = s3()): Promise<Buffer | null> {
  return readObjectSpan(key, 0, bytes, client);
}

/**
 * Several byte ranges of one object, in the order asked, read with as few
 * Range GETs as their closeness allows (./range-rules.ts); null when the
 * object is gone. Throws when a range runs past the object's end.
 */
export async function readObjectRanges(key: string, ranges: readonly ByteRange[]): Promise<Buffer[] | null> {
  const spans = spanRanges(ranges);
  const bodies = await Promise.all(spans.map((span) => readObjectSpan(key, span.start, span.end)));
  if (bodies.some((body) => body === null)) return null;
  return cutRanges(ranges, spans, bodies as Buffer[]);
}

export async function readObject(
  key: string,
  client: S3Client = s3(),
): Promise<{ body: Buffer; metadata: Record<string, string> } | null> {
  try {
    const { Body, Metadata } = await client.send(new GetObjectCommand({ Bucket: mediaBucket(), Key: key }));
    const metadata = Object.fromEntries(Object.entries(Metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const bytes = await Body!.transformToByteArray();
    // A view of the bytes read, not a second copy (a contents list can be hundreds of MB).
    return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), metadata };
  } catch (err) {
    if (isMissingObject(err)) return null;
    throw err;
  }
}

/**
 * Streams an object into `file` (never whole in memory); false when the
 * object is gone. A file left half-written by a failure is the caller's to remove.
 */
export async function downloadObject(key: string, file: string): Promise<boolean> {
  let body: Readable;
  try {
    const { Body } = await s3().send(new GetObjectCommand({ Bucket: mediaBucket(), Key: key }));
    body = Body as Readable;
  } catch (err) {
    if (isMissingObject(err)) return false;
    throw err;
  }
  await pipeline(body, createWriteStream(file));
  return true;
}

/** One PUT: the object is replaced atomically (readers see the old bytes or the new, never a mix). */
export async function putJpeg(key: string, jpeg: Buffer, client: S3Client = s3()): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: key,
      Body: jpeg,
      ContentType: 'image/jpeg',
      CacheControl: 'private, max-age=3600',
    }),
  );
}

/** Bytes of any kind in one PUT, read only by the service (no browser caching asked for). */
export async function putBytes(key: string, body: Buffer, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: mediaBucket(), Key: key, Body: body, ContentType: contentType }));
}

/**
 * A stream of unknown length into the bucket as a multipart upload
 * (lib-storage's Upload: 5 MiB parts, four in flight), so its bytes are never
 * all in memory nor on disk. When the stream fails, the upload is aborted (no
 * parts kept, no object written) and the stream's error is thrown.
 */
export async function putStream(key: string, body: Readable, contentType: string): Promise<void> {
  const upload = new Upload({
    client: s3(),
    params: { Bucket: mediaBucket(), Key: key, Body: body, ContentType: contentType },
  });
  await upload.done();
}

/** A small JSON document (per-team settings), replaced atomically like any PUT. */
export async function putJson(key: string, value: unknown): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: key,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
      CacheControl: 'no-store',
    }),
  );
}

export async function deleteObject(key: string): Promise<void> {
  await deleteObjectWith(s3(), key);
}

/** deleteObject with the given client; its own name so `keys.map(deleteObject)` stays safe. */
export async function deleteObjectWith(client: S3Client, key: string): Promise<void> {
  await client.send(new DeleteObjectCommand({ Bucket: mediaBucket(), Key: key }));
}

/**
 * A copy inside the bucket, made by the store (no bytes pass through the
 * caller); metadata and content type go with it. False when the source is gone.
 */
export async function copyObject(from: string, to: string, client: S3Client = s3()): Promise<boolean> {
  try {
    await client.send(
      new CopyObjectCommand({
        Bucket: mediaBucket(),
        Key: to,
        // The source is "bucket/key" with the key URL-encoded (slashes kept).
        CopySource: `${mediaBucket()}/${from.split('/').map(encodeURIComponent).join('/')}`,
      }),
    );
    return true;
  } catch (err) {
    if (isMissingObject(err)) return false;
    throw err;
  }
}
