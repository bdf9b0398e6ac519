/**
 * The S3 side of a chunked upload: a multipart upload whose parts the browser
 * PUTs straight to the bucket through presigned UploadPart URLs.
 * Each URL signs the part's exact Content-Length, so S3 refuses a body of any
 * other size (SignatureDoesNotMatch); that is also how MAX_CHUNK_BYTES is
 * enforced, since no part is ever signed larger than chunk_size. Each call
 * takes the client to use: a team's for the homeowner link (lib/blob/team-credentials.ts).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { mediaBucket, s3 } from '../blob/client';

/** A part as S3 lists it (PartNumber is 1-based). */
export interface StoredPart {
  partNumber: number;
  size: number;
  etag: string;
}

/** S3 no longer knows the multipart upload (completed, aborted, or expired by the lifecycle rule). */
export function isNoSuchUpload(err: unknown): boolean {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NoSuchUpload' || e?.Code === 'NoSuchUpload';
}

export async function createMultipart(key: string, contentType: string, client: S3Client = s3()): Promise<string> {
  const { UploadId } = await client.send(
    new CreateMultipartUploadCommand({ Bucket: mediaBucket(), Key: key, ContentType: contentType }),
  );
  if (!UploadId) throw new Error('S3 returned no UploadId');
  return UploadId;
}

/**
 * A presigned UploadPart URL for one part. ContentLength puts the exact size
 * in the request, and content-length is named a signable header, so it is in
 * X-Amz-SignedHeaders: the browser's PUT must carry exactly that many bytes.
 */
export async function presignPart(
  key: string,
  uploadId: string,
  partNumber: number,
  size: number,
  ttlSeconds: number,
  client: S3Client = s3(),
): Promise<string> {
  return getSignedUrl(
    client,
    new UploadPartCommand({
      Bucket: mediaBucket(),
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      ContentLength: size,
    }),
    { expiresIn: ttlSeconds, signableHeaders: new Set(['content-length']) },
  );
}

/** Every part S3 holds for the upload, ascending (ListParts pages through 1,000 at a time). */
export async function listAllParts(key: string, uploadId: string, client: S3Client = s3()): Promise<StoredPart[]> {
  const parts: StoredPart[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListPartsCommand({ Bucket: mediaBucket(), Key: key, UploadId: uploadId, PartNumberMarker: marker }),
    );
    for (const p of page.Parts ?? [])
      parts.push({ partNumber: Number(p.PartNumber), size: Number(p.Size ?? 0), etag: String(p.ETag ?? '') });
    if (!page.IsTruncated || page.NextPartNumberMarker === undefined || String(page.NextPartNumberMarker) === marker)
      break;
    marker = String(page.NextPartNumberMarker);
  }
  return parts.sort((a, b) => a.partNumber - b.partNumber);
}

export async function completeMultipart(
  key: string,
  uploadId: string,
  parts: StoredPart[],
  client: S3Client = s3(),
): Promise<void> {
  await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: mediaBucket(),
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
    }),
  );
}

/** Aborts a multipart upload; one S3 no longer knows counts as aborted. */
export async function abortMultipart(key: string, uploadId: string, client: S3Client = s3()): Promise<void> {
  try {
    await client.send(new AbortMultipartUploadCommand({ Bucket: mediaBucket(), Key: key, UploadId: uploadId }));
  } catch (err) {
    if (!isNoSuchUpload(err)) throw err;
  }
}
