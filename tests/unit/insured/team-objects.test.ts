/**
 * The homeowner link reaches objects with its team's credentials only
 * (lib/blob/team-credentials.ts): every S3 call of the photo, upload, content,
 * thumbnail and removal paths goes through the client of the link's team, and
 * every presigned URL or POST is signed with that team's session. In AWS the
 * functions' own roles hold no object (deploy/iam.js), so a call left on
 * the function's own client would be refused there.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { s3ForTeam } from '../../../lib/blob/team-credentials';
import { openLink } from '../../../lib/insured/access-service';
import * as drafts from '../../../lib/insured/draft-store';
import { addRoomPhoto, redirectToFileContent, removeFile } from '../../../lib/insured/file-service';
import { removeDraftItem } from '../../../lib/insured/item-service';
import { listInsuredRooms } from '../../../lib/insured/store';
import { redirectToFileThumb } from '../../../lib/insured/thumb-service';
import {
  abortInsuredUpload,
  completeInsuredUpload,
  initInsuredUpload,
  presignInsuredParts,
} from '../../../lib/insured/upload-service';
import { useIsolatedSettings } from '../../support/unit-settings';
import type { DraftFile } from '../../../lib/insured/draft-record-rules';

jest.mock('../../../lib/insured/access-service');
jest.mock('../../../lib/insured/draft-store');
jest.mock('../../../lib/insured/store');
jest.mock('../../../lib/media/normalize', () => ({
  normalizePhoto: jest.fn(async () => ({ jpeg: Buffer.from('thumb') })),
}));

process.env.AWS_REGION ??= 'us-east-1';

const TEAM = 'team-t1';
const TEAM_KEY_ID = 'AKIATEAMT1';
const s3 = mockClient(S3Client);
const sts = mockClient(STSClient);

useIsolatedSettings({
  TEAM_OBJECTS_ROLE_ARN: 'arn:aws:iam::123456789012:role/contents-inventory-ci-team-objects',
  MEDIA_BUCKET: 'unit-media',
});

const link = { id: 'link-1', team_id: TEAM, claim_id: 'claim-1' };
const folder = `teams/${TEAM}/claims/claim-1/insured/link-1/files/`;
const file = (fields: Partial<DraftFile>): DraftFile => ({
  id: 'f1',
  link_id: link.id,
  kind: 'photo',
  room_id: 'r1',
  item_id: null,
  filename: 'a.jpg',
  content_type: 'image/jpeg',
  size_bytes: 100,
  note: null,
  key: `${folder}f1/a.jpg`,
  status: 'ready',
  s3_upload_id: null,
  chunk_size: null,
  part_count: null,
  round: null,
  job_id: null,
  thumb_key: null,
  created_at: '2026-11-29T12:00:00.000Z',
  updated_at: '2026-11-29T12:00:00.000Z',
  ...fields,
});
const body = (bytes: Buffer) => ({ transformToByteArray: async () => new Uint8Array(bytes) }) as never;
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);

let teamClient: S3Client;

beforeAll(async () => {
  sts.on(AssumeRoleCommand).resolves({
    Credentials: {
      AccessKeyId: TEAM_KEY_ID,
      SecretAccessKey: 'team-secret',
      SessionToken: 'team-token',
      Expiration: new Date(Date.now() + 3600_000),
    },
  });
  teamClient = await s3ForTeam(TEAM);
});

beforeEach(() => {
  s3.reset();
  jest.mocked(openLink).mockResolvedValue(link as never);
  jest.mocked(listInsuredRooms).mockResolvedValue([{ id: 'r1' }] as never);
  jest.mocked(drafts.putDraftFile).mockResolvedValue(true);
  jest.mocked(drafts.listDraftFiles).mockResolvedValue([]);
  jest.mocked(drafts.deleteDraftFile).mockResolvedValue(true as never);
  jest.mocked(drafts.updateDraftFile).mockImplementation(async (f, fields) => ({ ...f, ...fields }) as never);
  jest.mocked(drafts.closeDraftUpload).mockResolvedValue(true as never);
});

/** Every S3 call so far was made with the team's client. */
function expectOnlyTeamClient(minimumCalls: number) {
  const calls = s3.calls();
  expect(calls.length).toBeGreaterThanOrEqual(minimumCalls);
  for (const call of calls)
    expect([call.args[0].constructor.name, call.thisValue === teamClient]).toEqual([
      call.args[0].constructor.name,
      true,
    ]);
}

const signedByTeam = (url: string) => new URL(url).searchParams.get('X-Amz-Credential')?.startsWith(`${TEAM_KEY_ID}/`);

describe("the homeowner link's object calls", () => {
  it("signs the photo's presigned POST with the team's session", async () => {
    const answer = (await addRoomPhoto('tok', 'r1', {
      filename: 'a.jpg',
      content_type: 'image/jpeg',
      size: 100,
    })) as unknown as { upload: { fields: Record<string, string> } };
    expect(answer.upload.fields['X-Amz-Credential'].startsWith(`${TEAM_KEY_ID}/`)).toBe(true);
    expect(answer.upload.fields['X-Amz-Security-Token']).toBe('team-token');
  });

  it('checks and removes an arrived upload that is not a photo with the team client', async () => {
    jest.mocked(drafts.getDraftFile).mockResolvedValue(file({ status: 'pending' }));
    s3.on(HeadObjectCommand).resolves({ ContentLength: 100 });
    s3.on(GetObjectCommand).resolves({ Body: body(Buffer.from('not an image at all')) });
    s3.on(DeleteObjectCommand).resolves({});
    s3.on(CopyObjectCommand).resolves({});

    await expect(addRoomPhoto('tok', 'r1', { file_id: 'f1' })).rejects.toThrow();
    // The checked copy and the upload both go.
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(2);
    expectOnlyTeamClient(5);
  });

  it("reads the content's header and signs its GET with the team's session", async () => {
    jest.mocked(drafts.getDraftFile).mockResolvedValue(file({}));
    s3.on(GetObjectCommand).resolves({ Body: body(JPEG_HEAD) });

    const response = (await redirectToFileContent('tok', 'f1')) as { headers: Record<string, string> };
    expect(signedByTeam(response.headers.Location ?? response.headers.location)).toBe(true);
    expectOnlyTeamClient(1);
  });

  it('makes, keeps and signs the thumbnail with the team client', async () => {
    jest.mocked(drafts.getDraftFile).mockResolvedValue(file({}));
    s3.on(HeadObjectCommand).rejects(Object.assign(new Error('NotFound'), { name: 'NotFound' }));
    s3.on(GetObjectCommand).resolves({ Body: body(JPEG_HEAD) });
    s3.on(PutObjectCommand).resolves({});

    const response = (await redirectToFileThumb('tok', 'f1')) as { headers: Record<string, string> };
    expect(signedByTeam(response.headers.Location ?? response.headers.location)).toBe(true);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
    expectOnlyTeamClient(2);
  });

  it('opens, signs, completes and aborts a chunked upload with the team client', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u1' });
    await initInsuredUpload('tok', { kind: 'video', filename: 'walk.mp4', room_id: 'r1', total_size: 1000 });

    const open = file({
      kind: 'video',
      status: 'open',
      s3_upload_id: 'u1',
      size_bytes: 1000,
      chunk_size: 1000,
      part_count: 1,
    });
    jest.mocked(drafts.getDraftFile).mockResolvedValue(open);
    const { urls } = await presignInsuredParts('tok', 'f1', [0]);
    expect(signedByTeam(urls[0].url)).toBe(true);

    s3.on(ListPartsCommand).resolves({ Parts: [{ PartNumber: 1, Size: 1000, ETag: '"e1"' }] });
    s3.on(CompleteMultipartUploadCommand).resolves({});
    await completeInsuredUpload('tok', 'f1');

    jest.mocked(drafts.getDraftFile).mockResolvedValue(open);
    s3.on(AbortMultipartUploadCommand).resolves({});
    await abortInsuredUpload('tok', 'f1');

    const sent = s3.calls().map((call) => call.args[0].constructor.name);
    expect(sent).toEqual(
      expect.arrayContaining([
        'CreateMultipartUploadCommand',
        'ListPartsCommand',
        'CompleteMultipartUploadCommand',
        'AbortMultipartUploadCommand',
      ]),
    );
    expectOnlyTeamClient(4);
  });

  it("removes a file's bytes and its thumbnail with the team client", async () => {
    jest.mocked(drafts.getDraftFile).mockResolvedValue(file({ thumb_key: `${folder}f1/thumb-640.jpg` }));
    s3.on(DeleteObjectCommand).resolves({});

    await removeFile('tok', 'f1');
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(2);
    expectOnlyTeamClient(2);
  });

  it("removes a typed row's photos with the team client", async () => {
    jest.mocked(drafts.getDraftItem).mockResolvedValue({ id: 'i1', link_id: link.id, round: null } as never);
    jest.mocked(drafts.deleteDraftItem).mockResolvedValue(true as never);
    jest.mocked(drafts.listDraftFiles).mockResolvedValue([file({ room_id: null, item_id: 'i1' })]);
    s3.on(DeleteObjectCommand).resolves({});

    await removeDraftItem('tok', 'i1');
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(1);
    expectOnlyTeamClient(1);
  });
});
