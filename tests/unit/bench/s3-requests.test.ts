import { classifyS3Request } from '../../bench/ops/s3-requests';

const signed = { authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/…' };
const kind = (method: string, url: string, headers: Record<string, string> = signed) =>
  classifyS3Request({ method, url, headers });

describe('classifyS3Request', () => {
  it.each([
    ['GET', '/media/a/b.jpg', 'GetObject'],
    ['HEAD', '/media/a/b.jpg', 'HeadObject'],
    ['PUT', '/media/a/b.jpg', 'PutObject'],
    ['DELETE', '/media/a/b.jpg', 'DeleteObject'],
    ['GET', '/media?list-type=2&prefix=a%2F', 'ListObjectsV2'],
    ['GET', '/media?prefix=a%2F', 'ListObjects'],
    ['POST', '/media?delete', 'DeleteObjects'],
    ['POST', '/media/a/v.mp4?uploads', 'CreateMultipartUpload'],
    ['PUT', '/media/a/v.mp4?partNumber=3&uploadId=u1', 'UploadPart'],
    ['POST', '/media/a/v.mp4?uploadId=u1', 'CompleteMultipartUpload'],
    ['DELETE', '/media/a/v.mp4?uploadId=u1', 'AbortMultipartUpload'],
    ['GET', '/media/a/v.mp4?uploadId=u1', 'ListParts'],
    ['HEAD', '/media', 'HeadBucket'],
    ['GET', '/', 'ListBuckets'],
  ])('%s %s is %s', (method, url, expected) => {
    expect(kind(method, url)).toEqual({ kind: expected, origin: 'service' });
  });

  it('tells a copy from a put by its x-amz-copy-source header, for objects and parts', () => {
    const copy = { ...signed, 'x-amz-copy-source': '/media/a/b.jpg' };
    expect(kind('PUT', '/media/a/c.jpg', copy).kind).toBe('CopyObject');
    expect(kind('PUT', '/media/a/c.jpg?partNumber=1&uploadId=u', copy).kind).toBe('UploadPartCopy');
  });

  it('counts presigned requests (signature in the query) as the client’s', () => {
    expect(kind('GET', '/media/a/b.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab12', {})).toEqual({
      kind: 'GetObject',
      origin: 'presigned',
    });
    expect(kind('PUT', '/media/a/v.mp4?partNumber=1&uploadId=u&X-Amz-Signature=ab12', {})).toEqual({
      kind: 'UploadPart',
      origin: 'presigned',
    });
  });

  it('counts a form POST to the bucket without an Authorization header as a browser upload', () => {
    const form = { 'content-type': 'multipart/form-data; boundary=x' };
    expect(kind('POST', '/media', form)).toEqual({ kind: 'PostObject', origin: 'browser-post' });
    expect(kind('POST', '/media', { ...form, ...signed })).toEqual({ kind: 'PostObject', origin: 'service' });
  });
});
