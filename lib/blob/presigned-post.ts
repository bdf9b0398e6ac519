/**
 * The browser upload form of one object (a presigned POST). The signed policy
 * caps the size (1 byte to maxBytes) and turns every field into an `eq`
 * condition, so a confirm step can trust the fields it reads back from the
 * object's metadata. The one place the service writes such a policy.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { settings } from '../config';
import { mediaBucket, s3 } from './client';

export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

/** client, when given, signs the form (a team's client: ./team-credentials.ts). */
export async function presignedUploadForm(
  key: string,
  form: { maxBytes: number; fields: Record<string, string> },
  ttlSeconds = settings().PRESIGNED_URL_TTL_SECONDS,
  client: S3Client = s3(),
): Promise<UploadForm> {
  const post = await createPresignedPost(client, {
    Bucket: mediaBucket(),
    Key: key,
    Conditions: [['content-length-range', 1, form.maxBytes]],
    Fields: form.fields,
    Expires: ttlSeconds,
  });
  return { url: post.url, fields: post.fields };
}
