/**
 * The job media redirects (lib/job-actions/media-service.ts): the presigned GET names the type the recording's first
 * bytes show (never the type it was stored with), played inline; bytes that are no recording only download.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { loadSettings, resetSettings } from '../../../lib/config';
import { redirectToJobMedia } from '../../../lib/job-actions/media-service';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

beforeAll(() => {
  process.env.AWS_ACCESS_KEY_ID ??= 'unit';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'unit';
  process.env.AWS_REGION ??= 'us-east-1';
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: 'unit-jobs', MEDIA_BUCKET: 'unit-media' },
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

const job = {
  id: 'job-1',
  team_id: 't',
  claim_id: 'c',
  source_type: 'video',
  media_key: 'teams/t/claims/c/jobs/job-1/media/walk.mp4',
  original_filename: 'walk.mp4',
};
/** The part of a GetObject body the range read uses. */
const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes) }) as never;
const mp4Head = () => {
  const head = Buffer.alloc(64);
  head.writeUInt32BE(24, 0);
  head.write('ftypisom', 4, 'latin1');
  head.write('isomavc1', 16, 'latin1');
  return head;
};

async function redirect(kind: 'video' | 'audio') {
  const response = await redirectToJobMedia('job-1', kind);
  expect(response.statusCode).toBe(302);
  return new URL(String(response.headers.location));
}

describe('redirectToJobMedia', () => {
  it('signs the sniffed recording type, inline, reading only the first bytes', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...job } });
    s3.on(GetObjectCommand).resolves({ Body: body(mp4Head()), ContentType: 'text/html' });
    const url = await redirect('video');
    expect(url.pathname).toContain('/media/walk.mp4');
    expect(url.searchParams.get('response-content-type')).toBe('video/mp4');
    expect(url.searchParams.get('response-content-disposition')).toBe('inline');
    expect(s3.commandCalls(GetObjectCommand)[0].args[0].input).toMatchObject({
      Key: job.media_key,
      Range: expect.stringMatching(/^bytes=0-\d+$/),
    });
  });

  it('serves a voice note’s container as audio', async () => {
    ddb
      .on(GetCommand)
      .resolves({ Item: { ...job, source_type: 'audio', media_key: job.media_key.replace('.mp4', '.m4a') } });
    s3.on(GetObjectCommand).resolves({ Body: body(mp4Head()) });
    expect((await redirect('audio')).searchParams.get('response-content-type')).toBe('audio/mp4');
  });

  it('offers bytes that are no recording (an HTML page stored as the video) only as a download', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...job } });
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.from('<html><script>alert(1)</script></html>')) });
    const url = await redirect('video');
    expect(url.searchParams.get('response-content-type')).toBe('application/octet-stream');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="walk.mp4"');
  });
});
