/**
 * What an S3 request is, from its method, path-style URL and headers, and who
 * made it: the service (signed with an Authorization header), a client with a
 * presigned URL (X-Amz-Signature in the query) or a browser POST upload (a
 * form whose policy is signed, to the bucket's root).
 */

type S3Origin = 'service' | 'presigned' | 'browser-post';

export interface S3Request {
  kind: string;
  origin: S3Origin;
}

export interface S3RequestHead {
  method: string;
  /** Path and query as sent, e.g. /bucket/a/b.jpg?uploadId=1&partNumber=2 */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

const header = (headers: S3RequestHead['headers'], name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function kindOf(method: string, hasKey: boolean, query: URLSearchParams, copySource: boolean, bucket: string): string {
  const has = (name: string) => query.has(name);
  if (!bucket) return method === 'GET' ? 'ListBuckets' : `${method} /`;
  if (!hasKey) {
    if (method === 'GET') {
      if (has('uploads')) return 'ListMultipartUploads';
      if (has('location')) return 'GetBucketLocation';
      if (has('cors')) return 'GetBucketCors';
      return query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
    }
    if (method === 'HEAD') return 'HeadBucket';
    if (method === 'PUT') return has('cors') ? 'PutBucketCors' : 'CreateBucket';
    if (method === 'POST') return has('delete') ? 'DeleteObjects' : 'PostObject';
    if (method === 'DELETE') return 'DeleteBucket';
    return `${method} bucket`;
  }
  switch (method) {
    case 'GET':
      if (has('uploadId')) return 'ListParts';
      if (has('tagging')) return 'GetObjectTagging';
      return 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'PUT':
      if (has('uploadId') && has('partNumber')) return copySource ? 'UploadPartCopy' : 'UploadPart';
      if (has('tagging')) return 'PutObjectTagging';
      return copySource ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (has('uploads')) return 'CreateMultipartUpload';
      if (has('uploadId')) return 'CompleteMultipartUpload';
      return 'PostObject';
    case 'DELETE':
      return has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      return `${method} object`;
  }
}

/** Classifies a path-style S3 request (the local S3 is addressed by IP, so the SDK uses path style). */
export function classifyS3Request({ method, url, headers }: S3RequestHead): S3Request {
  const parsed = new URL(url, 'http://s3.local');
  const [bucket = '', ...key] = parsed.pathname.replace(/^\//, '').split('/');
  const hasKey = key.join('/') !== '';
  const upper = method.toUpperCase();
  const kind = kindOf(upper, hasKey, parsed.searchParams, Boolean(header(headers, 'x-amz-copy-source')), bucket);
  const presigned = parsed.searchParams.has('X-Amz-Signature');
  const form = /^multipart\/form-data/i.test(header(headers, 'content-type') ?? '');
  const origin: S3Origin = presigned
    ? 'presigned'
    : kind === 'PostObject' && form && !header(headers, 'authorization')
      ? 'browser-post'
      : 'service';
  return { kind, origin };
}
