/**
 * The photo route's redirect (lib/photos/photo-service.ts) when the background
 * re-encode finishes between its two reads: the row said "not re-encoded yet",
 * and by the time the upload was read the worker had written the JPEG and
 * removed the upload. The route serves the JPEG instead of a 404.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { loadSettings, resetSettings } from '../../../lib/config';
import { NotFoundError } from '../../../lib/errors';
import { redirectToPhoto } from '../../../lib/photos/photo-service';
import { newStagedPhoto } from '../../../lib/photos/staged-photo-store';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

beforeAll(() => {
  process.env.AWS_ACCESS_KEY_ID ??= 'unit';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'unit';
  process.env.AWS_REGION ??= 'us-east-1';
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: 'unit-photos', MEDIA_BUCKET: 'unit-media' },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
});
afterAll(() => resetSettings());
beforeEach(() => {
  ddb.reset();
  s3.reset();
});

const staged = newStagedPhoto({
  jobId: 'job-1',
  index: 0,
  filename: 'orig_0.jpg',
  key: 'teams/t/claims/c/jobs/job-1/photos/orig_0.jpg',
  incomingKey: 'teams/t/claims/c/jobs/job-1/incoming/orig_0.png',
  originalFilename: 'new.png',
  capturedAt: null,
  sizeBytes: 100,
});
const missing = Object.assign(new Error('gone'), { name: 'NoSuchKey' });

describe('redirectToPhoto', () => {
  it('serves the upright JPEG when the re-encode removed the upload between the row and the upload reads', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...staged } })
      .resolves({ Item: { ...staged, normalized: true } });
    s3.on(GetObjectCommand).rejects(missing);
    const response = await redirectToPhoto('job-1', 'orig_0.jpg');
    expect(response.statusCode).toBe(302);
    const location = new URL(String(response.headers?.location));
    expect(location.pathname).toContain('/photos/orig_0.jpg');
    expect(location.searchParams.get('response-content-type')).toBe('image/jpeg');
  });

  it('is 404 when the upload is gone and the photo was never re-encoded', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...staged } });
    s3.on(GetObjectCommand).rejects(missing);
    await expect(redirectToPhoto('job-1', 'orig_0.jpg')).rejects.toBeInstanceOf(NotFoundError);
  });
});
