/**
 * A capture import's recording is stored as the type its bytes show (lib/pipelines/capture/download-unit.ts):
 * the capture source's declared type never becomes the object's Content-Type (a recording listed as text/html
 * would be served as a page from the bucket's origin), and bytes that are no recording fail the item.
 */
import { Readable } from 'node:stream';
import { putStream } from '../../../../lib/blob/objects';
import { putUploadRecords } from '../../../../lib/imports/capture/import-store';
import { loadSettings, resetSettings } from '../../../../lib/config';
import { openDownload } from '../../../../lib/integrations/guarded-download';
import type { StageContext } from '../../../../lib/orchestrator/pipeline';
import { downloadUnit } from '../../../../lib/pipelines/capture/download-unit';
import { type DownloadResult, putUnitResults } from '../../../../lib/pipelines/capture/run-store';

jest.mock('../../../../lib/blob/objects', () => ({ putJpeg: jest.fn(), putStream: jest.fn() }));
jest.mock('../../../../lib/imports/capture/import-store', () => ({ putUploadRecords: jest.fn() }));
jest.mock('../../../../lib/imports/store', () => ({ addBatchProgress: jest.fn() }));
jest.mock('../../../../lib/faults/fault-points', () => ({ faultPoint: jest.fn() }));
jest.mock('../../../../lib/media/normalize', () => ({ normalizePhoto: jest.fn() }));
jest.mock('../../../../lib/integrations/guarded-download', () => ({
  downloadBytes: jest.fn(),
  openDownload: jest.fn(),
}));
jest.mock('../../../../lib/pipelines/capture/expand-stage', () => ({
  captureAnswer: (answer: unknown) => answer,
  runnerBatch: jest.fn(async () => ({
    batch: { id: 'batch-1' },
    connection: { id: 'conn-1' },
    client: {
      sign: async (ids: string[]) => ({
        data: ids.map((id) => ({ id, original_url: `https://files.example.com/${id}`, proxy_url: null })),
      }),
    },
  })),
}));
jest.mock('../../../../lib/pipelines/capture/run-store', () => ({
  getUnitResults: jest.fn(async () => null),
  getImportPlan: jest.fn(async () => ({ media: [plannedVideo], units: [[0]], rooms: [], skipped: 0 })),
  putUnitResults: jest.fn(),
}));

const plannedVideo = {
  media_id: 'm-1',
  type: 'video',
  filename: 'walk.mp4',
  content_type: 'text/html',
  size_bytes: 10_000,
  captured_at: null,
  job_id: 'job-2',
  room_id: 'room-1',
  room_name: 'Kitchen',
  index: null,
  group_index: null,
  key: 'teams/t/claims/c/jobs/job-2/media/walk.mp4',
  meta: {},
};

beforeAll(() => {
  resetSettings(
    loadSettings({
      env: {},
      overrides: { TABLE_NAME: 'unit-capture', MEDIA_BUCKET: 'unit-media' },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
});
afterAll(() => resetSettings());

const stored: { contentType: string; bytes: Buffer }[] = [];
beforeEach(() => {
  stored.length = 0;
  jest.mocked(putStream).mockImplementation(async (_key, body, contentType) => {
    const pieces: Buffer[] = [];
    for await (const piece of body) pieces.push(piece as Buffer);
    stored.push({ contentType, bytes: Buffer.concat(pieces) });
  });
  jest.mocked(putUnitResults).mockClear();
  jest.mocked(putUploadRecords).mockClear();
});

const ctx = { job: { id: 'import-1', run_id: 'run-1' }, heartbeat: jest.fn() } as unknown as StageContext;

/** An MP4's first bytes (ftyp isom), then the rest of the file, in small pieces as a download delivers them. */
function mp4(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisomisomavc1mp41', 4, 'latin1');
  return bytes;
}
const pieces = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

function serve(bytes: Buffer) {
  jest.mocked(openDownload).mockResolvedValue({
    contentType: 'text/html',
    body: Readable.from(pieces(bytes, 1000), { objectMode: false }),
  });
}

const result = () => (jest.mocked(putUnitResults).mock.calls[0][3] as DownloadResult[])[0];

describe('a capture recording listed as text/html', () => {
  it('is stored as the video its bytes are, every byte of it', async () => {
    const video = mp4(10_000);
    serve(video);

    await downloadUnit(ctx, 0);

    expect(stored).toHaveLength(1);
    expect(stored[0].contentType).toBe('video/mp4');
    expect(stored[0].bytes.equals(video)).toBe(true);
    expect(result()).toMatchObject({ ok: true, size_bytes: 10_000, error: null });
  });

  it('fails, storing nothing, when its bytes are no recording', async () => {
    serve(Buffer.from(`<!DOCTYPE html><html><script>alert(document.cookie)</script>${' '.repeat(5000)}</html>`));

    await downloadUnit(ctx, 0);

    expect(stored).toHaveLength(0);
    expect(result()).toMatchObject({
      ok: false,
      error: "The capture source's file is not a video: its bytes are in no audio or video format.",
    });
    expect(jest.mocked(putUploadRecords).mock.calls[0][0][0]).toMatchObject({ status: 'failed' });
  });

  it('is stored whole when it is shorter than the bytes sniffed', async () => {
    const short = mp4(100);
    serve(short);

    await downloadUnit(ctx, 0);

    expect(stored[0]).toEqual({ contentType: 'video/mp4', bytes: short });
  });
});
