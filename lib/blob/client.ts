/**
 * The S3 client. Checksums only when required: otherwise presigned part URLs
 * carry the empty-body CRC and S3 rejects the browser's upload
 * (aws-sdk-js-v3 #6994). Path-style addressing when a local endpoint is set.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
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
