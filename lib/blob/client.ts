/**
 * The S3 client. Checksums only when required: otherwise presigned part URLs
 * carry the empty-body CRC and S3 rejects the browser's upload
 * (aws-sdk-js-v3 #6994). Path-style addressing when a local endpoint is set.
 */
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { settings } from '../config';

let client: S3Client | undefined;

export function s3(): S3Client {
  client ??= new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL),
  });
  return client;
}

export function mediaBucket(): string {
  return settings().MEDIA_BUCKET;
}

/** Deletes every object under a prefix; returns how many were deleted. */
export async function deletePrefix(prefix: string): Promise<number> {
  let deleted = 0;
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: mediaBucket(), Prefix: prefix, ContinuationToken }));
    const objects = (page.Contents ?? []).map((o) => ({ Key: o.Key as string }));
    if (objects.length > 0) {
      await s3().send(new DeleteObjectsCommand({ Bucket: mediaBucket(), Delete: { Objects: objects, Quiet: true } }));
      deleted += objects.length;
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return deleted;
}

/** A short-lived GET URL for an object (S3 then serves HTTP Range itself). */
export async function presignedGet(key: string, ttlSeconds = settings().PRESIGNED_URL_TTL_SECONDS): Promise<string> {
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: mediaBucket(), Key: key }), { expiresIn: ttlSeconds });
}

/** Object keys directly under a prefix (one level), sorted. */
export async function listNames(prefix: string): Promise<string[]> {
  const names: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: mediaBucket(), Prefix: prefix, ContinuationToken }));
    for (const o of page.Contents ?? []) {
      const name = (o.Key as string).slice(prefix.length);
      if (name && !name.includes('/')) names.push(name);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return names.sort();
}

/** A file name from a URL that may be used as the last segment of a key: no paths, no traversal. */
export const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export function isSafeFileName(name: string): boolean {
  return SAFE_FILE_NAME.test(name) && !name.includes('..');
}
