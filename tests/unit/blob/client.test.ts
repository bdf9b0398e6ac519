/**
 * Deleting a prefix (the purge, job deletion): DeleteObjects answers 200 even
 * when it did not delete some keys, listing them under Errors. Those are sent
 * again, and what is still refused fails the call so the message is retried.
 * Presigned GETs of user content name the type and disposition S3 answers with.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import {
  contentDisposition,
  DELETE_ATTEMPTS,
  DeleteObjectsError,
  deletePrefix,
  presignedGet,
  presignedToolRead,
} from '../../../lib/blob/client';
import { loadSettings, resetSettings } from '../../../lib/config';

const s3 = mockClient(S3Client);
const prefix = 'teams/t/claims/c/';
const keys = ['a.jpg', 'b.jpg', 'c.jpg'].map((name) => `${prefix}${name}`);

beforeEach(() => {
  s3.reset();
  s3.on(ListObjectsV2Command).resolves({ Contents: keys.map((Key) => ({ Key })), IsTruncated: false });
});

const deletedKeys = (call: number) =>
  (s3.commandCalls(DeleteObjectsCommand)[call].args[0].input.Delete?.Objects ?? []).map((o) => o.Key);

describe('deletePrefix', () => {
  it('sends the keys S3 reported under Errors again until they are deleted', async () => {
    s3.on(DeleteObjectsCommand)
      .resolvesOnce({
        Deleted: [{ Key: keys[0] }, { Key: keys[2] }],
        Errors: [{ Key: keys[1], Code: 'InternalError', Message: 'try again' }],
      })
      .resolves({});

    await expect(deletePrefix(prefix)).resolves.toBe(3);

    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(2);
    expect(deletedKeys(0)).toEqual(keys);
    expect(deletedKeys(1)).toEqual([keys[1]]);
  });

  it('fails, naming the keys, when S3 keeps refusing them', async () => {
    s3.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: keys[2], Code: 'SlowDown', Message: 'slow down' }] });

    const err = await deletePrefix(prefix).catch((e) => e);

    expect(err).toBeInstanceOf(DeleteObjectsError);
    expect(err.failed).toEqual([{ key: keys[2], code: 'SlowDown' }]);
    expect(err.message).toContain(keys[2]);
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(DELETE_ATTEMPTS);
  });
});

describe('presignedGet', () => {
  beforeAll(() => {
    process.env.AWS_ACCESS_KEY_ID ??= 'unit';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'unit';
    process.env.AWS_REGION ??= 'us-east-1';
    resetSettings(
      loadSettings({
        env: {},
        overrides: { MEDIA_BUCKET: 'unit-media' },
        dotenvPath: '/nonexistent',
        machineFilePath: '/nonexistent',
      }),
    );
  });
  afterAll(() => resetSettings());

  it('signs the type and an inline disposition into the URL, whatever the object was stored as', async () => {
    const url = new URL(
      await presignedGet('teams/t/claims/c/jobs/j/media/walk.mp4', {
        contentType: 'video/mp4',
        disposition: 'inline',
      }),
    );
    expect(url.searchParams.get('response-content-type')).toBe('video/mp4');
    expect(url.searchParams.get('response-content-disposition')).toBe('inline');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Expires')).toBeTruthy();
  });

  it('signs an attachment with its file name for a download', async () => {
    const url = new URL(
      await presignedGet(
        'teams/t/claims/c/exports/e.xlsx',
        { contentType: 'text/csv; charset=utf-8', disposition: { attachment: 'Claim "7" – Küche.csv' } },
        60,
      ),
    );
    expect(url.searchParams.get('response-content-type')).toBe('text/csv; charset=utf-8');
    expect(url.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="Claim _7_ _ K_che.csv"; filename*=UTF-8''Claim%20%227%22%20%E2%80%93%20K%C3%BCche.csv`,
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('leaves the type out only of URLs for the service’s own tools', async () => {
    const url = new URL(await presignedToolRead('teams/t/claims/c/jobs/j/media/walk.mp4', 30));
    expect(url.searchParams.has('response-content-type')).toBe(false);
  });
});

describe('contentDisposition', () => {
  it('keeps the ASCII fallback a quoted string and the UTF-8 name percent-encoded (RFC 6266, RFC 5987)', () => {
    expect(contentDisposition('inline')).toBe('inline');
    expect(contentDisposition({ attachment: 'CLM-1_Kitchen_items_2025-01-31.xlsx' })).toBe(
      'attachment; filename="CLM-1_Kitchen_items_2025-01-31.xlsx"',
    );
    const hostile = contentDisposition({ attachment: 'a"b\\c\r\nSet-Cookie: x=1;(*)\'.pdf' });
    expect(hostile).not.toMatch(/[\r\n]/);
    expect(hostile).toBe(
      `attachment; filename="a_b_c__Set-Cookie: x=1;(*)'.pdf"; filename*=UTF-8''a%22b_c__Set-Cookie%3A%20x%3D1%3B%28%2A%29%27.pdf`,
    );
    expect(contentDisposition({ attachment: '../../etc/passwd' })).toBe('attachment; filename=".._.._etc_passwd"');
    expect(contentDisposition({ attachment: '   ' })).toBe('attachment; filename="download"');
    expect(contentDisposition({ attachment: '100%.csv' })).toBe(
      `attachment; filename="100_.csv"; filename*=UTF-8''100%25.csv`,
    );
  });
});
