/**
 * A homeowner photo is read as it was checked (lib/insured/file-service.ts). Its presigned POST stays valid after
 * the confirm, so the key it names can be written again: the confirm copies the upload where no POST reaches,
 * checks the copy, and the file is that copy from then on (content, thumbnail, the submit's jobs read file.key).
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { loadSettings, resetSettings } from '../../../lib/config';
import { UnsupportedTypeError } from '../../../lib/errors';
import type { DraftFile } from '../../../lib/insured/draft-record-rules';
import { deleteDraftFile, getDraftFile, updateDraftFile } from '../../../lib/insured/draft-store';
import { addRoomPhoto, deleteFileBytes, redirectToFileContent } from '../../../lib/insured/file-service';

jest.mock('../../../lib/insured/access-service', () => ({
  openLink: jest.fn(async () => ({ id: 'link-1', team_id: 't', claim_id: 'c' })),
}));
jest.mock('../../../lib/insured/store', () => ({
  getInsuredLink: jest.fn(),
  listInsuredRooms: jest.fn(async () => [{ id: 'room-1' }]),
}));
jest.mock('../../../lib/insured/draft-store', () => ({
  getDraftFile: jest.fn(),
  getDraftItem: jest.fn(),
  putDraftFile: jest.fn(),
  updateDraftFile: jest.fn(),
  deleteDraftFile: jest.fn(async () => true),
}));

const s3 = mockClient(S3Client);

beforeAll(() => {
  process.env.AWS_ACCESS_KEY_ID ??= 'unit';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'unit';
  process.env.AWS_REGION ??= 'us-east-1';
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: 'unit-insured', MEDIA_BUCKET: 'unit-media' },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
});
afterAll(() => resetSettings());
beforeEach(() => {
  s3.reset();
  jest.mocked(getDraftFile).mockReset();
  jest.mocked(updateDraftFile).mockReset();
  jest.mocked(deleteDraftFile).mockClear();
});

const FOLDER = 'teams/t/claims/c/insured/link-1/files/file-1/';
const UPLOAD_KEY = `${FOLDER}sofa.jpg`;
const CHECKED_KEY = `${FOLDER}checked/sofa.jpg`;
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60)]);
const HTML = Buffer.from('<html><script>alert(document.domain)</script></html>');

const photo = (fields: Partial<DraftFile> = {}): DraftFile => ({
  id: 'file-1',
  link_id: 'link-1',
  kind: 'photo',
  room_id: 'room-1',
  item_id: null,
  filename: 'sofa.jpg',
  content_type: 'image/jpeg',
  size_bytes: 64,
  note: null,
  key: UPLOAD_KEY,
  status: 'pending',
  s3_upload_id: null,
  chunk_size: null,
  part_count: null,
  round: null,
  job_id: null,
  thumb_key: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...fields,
});

/** The part of a GetObject body the range read uses. */
const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes) }) as never;

/** The bucket as it is after a second POST replaced the upload: the checked copy still holds the first bytes. */
function bucket(objects: Record<string, Buffer>) {
  s3.on(CopyObjectCommand).callsFake((input) => {
    const from = decodeURIComponent(String(input.CopySource).replace(/^unit-media\//, ''));
    if (!objects[from]) throw Object.assign(new Error('gone'), { name: 'NoSuchKey' });
    objects[input.Key as string] = objects[from];
    return {};
  });
  s3.on(HeadObjectCommand).callsFake((input) => {
    const bytes = objects[input.Key as string];
    if (!bytes) throw Object.assign(new Error('gone'), { name: 'NotFound' });
    return { ContentLength: bytes.length };
  });
  s3.on(GetObjectCommand).callsFake((input) => {
    const bytes = objects[input.Key as string];
    if (!bytes) throw Object.assign(new Error('gone'), { name: 'NoSuchKey' });
    return { Body: body(bytes) };
  });
  s3.on(DeleteObjectCommand).callsFake((input) => {
    delete objects[input.Key as string];
    return {};
  });
}

describe('confirming a homeowner photo', () => {
  it('checks a copy no POST can reach, and makes that copy the file', async () => {
    const objects: Record<string, Buffer> = { [UPLOAD_KEY]: JPEG };
    bucket(objects);
    jest.mocked(getDraftFile).mockResolvedValue(photo());
    jest.mocked(updateDraftFile).mockImplementation(async (file, fields) => ({ ...photo(), ...fields }) as DraftFile);

    await addRoomPhoto('token', 'room-1', { file_id: 'file-1' });

    expect(s3.commandCalls(CopyObjectCommand)[0].args[0].input).toMatchObject({
      Key: CHECKED_KEY,
      CopySource: `unit-media/${UPLOAD_KEY}`,
    });
    // The sniff reads the copy, not the key the POST names.
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual([CHECKED_KEY]);
    expect(jest.mocked(updateDraftFile).mock.calls[0][1]).toEqual({
      status: 'ready',
      size_bytes: 64,
      key: CHECKED_KEY,
    });
    expect(Object.keys(objects)).toEqual([CHECKED_KEY]);
  });

  it('refuses an upload that is no photo, removing every copy of it', async () => {
    const objects: Record<string, Buffer> = { [UPLOAD_KEY]: HTML };
    bucket(objects);
    jest.mocked(getDraftFile).mockResolvedValue(photo());

    await expect(addRoomPhoto('token', 'room-1', { file_id: 'file-1' })).rejects.toBeInstanceOf(UnsupportedTypeError);

    expect(updateDraftFile).not.toHaveBeenCalled();
    expect(deleteDraftFile).toHaveBeenCalled();
    expect(objects).toEqual({});
  });

  it('answers the ready file to a confirm that lost the race with another one', async () => {
    bucket({});
    jest
      .mocked(getDraftFile)
      .mockResolvedValueOnce(photo())
      .mockResolvedValue(photo({ status: 'ready', key: CHECKED_KEY }));

    const answer = await addRoomPhoto('token', 'room-1', { file_id: 'file-1' });

    expect(answer.file).toMatchObject({ id: 'file-1' });
    expect(updateDraftFile).not.toHaveBeenCalled();
  });
});

describe('a photo replaced after its confirm', () => {
  it('is served as it was checked: the copy is read, the replaced upload never', async () => {
    // A second POST to the upload key after the confirm wrote an HTML page there.
    bucket({ [UPLOAD_KEY]: HTML, [CHECKED_KEY]: JPEG });
    jest.mocked(getDraftFile).mockResolvedValue(photo({ status: 'ready', key: CHECKED_KEY }));

    const response = await redirectToFileContent('token', 'file-1');

    const url = new URL(String(response.headers.location));
    expect(url.pathname).toContain('/checked/sofa.jpg');
    expect(url.searchParams.get('response-content-type')).toBe('image/jpeg');
    expect(url.searchParams.get('response-content-disposition')).toBe('inline');
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual([CHECKED_KEY]);
  });
});

describe('serving a homeowner file', () => {
  it('offers a recording whose bytes are no recording only as a download, whatever type it was stored with', async () => {
    const key = `${FOLDER}walk.mp4`;
    bucket({ [key]: HTML });
    jest
      .mocked(getDraftFile)
      .mockResolvedValue(
        photo({ kind: 'video', filename: 'walk.mp4', content_type: 'video/mp4', key, status: 'ready' }),
      );

    const url = new URL(String((await redirectToFileContent('token', 'file-1')).headers.location));

    expect(url.searchParams.get('response-content-type')).toBe('application/octet-stream');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="walk.mp4"');
  });

  it('removes the checked bytes, the upload written again after the confirm and the thumbnail, listing nothing', async () => {
    s3.on(DeleteObjectCommand).resolves({});

    await deleteFileBytes(
      photo({ status: 'ready', key: CHECKED_KEY, thumb_key: `${FOLDER}thumb/640.jpg` }),
      new S3Client({}),
    );

    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
    expect(
      s3
        .commandCalls(DeleteObjectCommand)
        .map((c) => c.args[0].input.Key)
        .sort(),
    ).toEqual([CHECKED_KEY, `${FOLDER}thumb/640.jpg`, UPLOAD_KEY].sort());
  });
});
