/**
 * The S3 client. Checksums only when required: otherwise presigned part URLs
 * carry the empty-body CRC and S3 rejects the browser's upload
 * (aws-sdk-js-v3 #6994). Path-style addressing when a local endpoint is set.
 */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { settings } from '../config';
import { withRetry } from '../retry';

let client: S3Client | undefined;

/** A client with this service's S3 options; the function's own credentials unless others are given. */
export function createS3Client(credentials?: S3ClientConfig['credentials']): S3Client {
  return new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL),
    ...(credentials ? { credentials } : {}),
  });
}

export function s3(): S3Client {
  client ??= createS3Client();
  return client;
}

export function mediaBucket(): string {
  return settings().MEDIA_BUCKET;
}

/** DeleteObjects attempts per batch before the keys it still refuses are reported. */
export const DELETE_ATTEMPTS = 4;

/** Objects S3 would not delete (DeleteObjects answers 200 and lists them under Errors). */
export class DeleteObjectsError extends Error {
  override readonly name = 'DeleteObjectsError';
  constructor(readonly failed: { key: string; code: string }[]) {
    const shown = failed
      .slice(0, 5)
      .map((f) => `${f.key} (${f.code})`)
      .join(', ');
    super(`S3 did not delete ${failed.length} object(s): ${shown}${failed.length > 5 ? ', ...' : ''}`);
  }
}

/**
 * Deletes one batch of keys. DeleteObjects succeeds as a call even when some
 * keys were not deleted (throttling, internal errors): those are sent again,
 * and whatever is still refused after DELETE_ATTEMPTS is thrown so the caller
 * (an SQS message, say) fails and is retried rather than leaving files behind.
 */
async function deleteBatch(keys: string[]): Promise<void> {
  let pending = keys;
  await withRetry(
    async () => {
      const { Errors } = await s3().send(
        new DeleteObjectsCommand({
          Bucket: mediaBucket(),
          Delete: { Objects: pending.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      if (!Errors?.length) return;
      // An error that names no key leaves every key of the batch in doubt.
      const failed = Errors.some((e) => !e.Key)
        ? pending.map((key) => ({ key, code: Errors[0].Code ?? 'Unknown' }))
        : Errors.map((e) => ({ key: e.Key as string, code: e.Code ?? 'Unknown' }));
      pending = failed.map((f) => f.key);
      throw new DeleteObjectsError(failed);
    },
    { attempts: DELETE_ATTEMPTS, backoffMs: 200, jitter: true },
  );
}

/** Deletes every object under a prefix; returns how many were deleted. Throws DeleteObjectsError if some could not be. */
export async function deletePrefix(prefix: string): Promise<number> {
  let deleted = 0;
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: mediaBucket(), Prefix: prefix, ContinuationToken }),
    );
    const keys = (page.Contents ?? []).map((o) => o.Key as string);
    if (keys.length > 0) {
      await deleteBatch(keys);
      deleted += keys.length;
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return deleted;
}

/**
 * How a browser is to take an object it fetches through a presigned GET. Both
 * go into the signed URL, so S3 answers with them whatever the object was
 * stored with (a stored text/html is never served as a page from the bucket).
 */
export interface ServedAs {
  /** The type the service knows the bytes are (sniffed, or written by the service itself), never the stored one. */
  contentType: string;
  /** inline: shown or played by the page; attachment: saved under this file name. */
  disposition: 'inline' | { attachment: string };
}

/** RFC 5987 attr-chars are kept; every other byte of the UTF-8 name is percent-encoded. */
const encodeExtValue = (name: string) =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

/**
 * A Content-Disposition value (RFC 6266): an attachment's name as a quoted
 * string, and, when it is more than printable ASCII, as filename* in UTF-8
 * with a quoted ASCII fallback (anything else, quotes, backslashes and '%'
 * become "_"); path separators and control characters never get in.
 */
export function contentDisposition(disposition: ServedAs['disposition']): string {
  if (disposition === 'inline') return 'inline';
  const name =
    [...disposition.attachment]
      .map((c) => (c === '/' || c === '\\' || isControl(c) ? '_' : c))
      .join('')
      .trim() || 'download';
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(name)}`;
}

/**
 * A short-lived GET URL of user content for a browser (S3 then serves HTTP
 * Range itself), answered with the type and disposition `served` names;
 * client, when given, signs it (a team's client: ./team-credentials.ts).
 */
export async function presignedGet(
  key: string,
  served: ServedAs,
  ttlSeconds = settings().PRESIGNED_URL_TTL_SECONDS,
  client?: S3Client,
): Promise<string> {
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const command = new GetObjectCommand({
    Bucket: mediaBucket(),
    Key: key,
    ResponseContentType: served.contentType,
    ResponseContentDisposition: contentDisposition(served.disposition),
  });
  return getSignedUrl(client ?? s3(), command, { expiresIn: ttlSeconds });
}

/**
 * A short-lived GET URL only the service's own tools fetch (ffmpeg reading a
 * recording); never handed to a browser: those get presignedGet's.
 */
export async function presignedToolRead(key: string, ttlSeconds: number): Promise<string> {
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: mediaBucket(), Key: key }), { expiresIn: ttlSeconds });
}

/** Object keys directly under a prefix (one level), sorted. */
export async function listNames(prefix: string): Promise<string[]> {
  const names: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3().send(
      new ListObjectsV2Command({ Bucket: mediaBucket(), Prefix: prefix, ContinuationToken }),
    );
    for (const o of page.Contents ?? []) {
      const name = (o.Key as string).slice(prefix.length);
      if (name && !name.includes('/')) names.push(name);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return names.sort();
}

/** A file name from a URL that may be used as the last segment of a key: no paths, no traversal. */
const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export function isSafeFileName(name: string): boolean {
  return SAFE_FILE_NAME.test(name) && !name.includes('..');
}
