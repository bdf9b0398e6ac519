/**
 * A photo upload that starts with PDF contents lists, over real HTTP as the
 * browser drives it: the manifest lists photos and PDFs → the job starts in
 * importing_pdf with one presigned POST per PDF → the browser POSTs the PDF →
 * confirm names it → its read starts (pipeline pdf-import). A PDF that never
 * arrived is skipped, and when none arrived the job goes on to grouping with
 * the reason. Appends take no PDF; another team's confirm is 404.
 *
 * What the read finds is not asserted here (the pdf-import suites do that):
 * only that it started, once.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DocumentSlot } from '../../lib/photos/schemas';
import { Client } from '../support/api';
import { doc, getRow, listKeys, objectExists, table } from '../support/aws';
import { cardGridList } from '../support/pdf-fixtures';
import { newTeamMember } from '../support/tokens';
import { newRoom, type PhotoSlot, postDocument, postToBucket, smallPng, type TestRoom } from '../support/uploads';

const GIB = 1024 * 1024 * 1024;

let alice: Client;
let mallory: Client; // another team
let pdf: Buffer;
let photos: Buffer[];

beforeAll(async () => {
  alice = await Client.signIn(newTeamMember());
  mallory = await Client.signIn(newTeamMember());
  pdf = Buffer.from((await cardGridList({ pages: 2 })).bytes);
  photos = [await smallPng(1), await smallPng(2)];
});

const jobRow = (id: string) => getRow(`JOB#${id}`, 'JOB');

async function jobsInRoom(roomId: string): Promise<number> {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `ROOM#${roomId}#JOBS` },
    }),
  );
  return (Items ?? []).length;
}

/** Starts an upload of `photoCount` photos and the given PDFs (name, declared size). */
async function start(room: TestRoom, photoCount: number, pdfs: [string, number][], extra: object = {}) {
  const files = [
    ...photos.slice(0, photoCount).map((p, i) => ({ filename: `photo-${i}.png`, size: p.length })),
    ...pdfs.map(([filename, size]) => ({ filename, size, content_type: 'application/pdf' })),
  ];
  const res = await alice.post('/api/upload-photos', { room_id: room.id, files, ...extra });
  expect(res.status).toBe(201);
  return res.body as { job: any; uploads: PhotoSlot[]; documents: DocumentSlot[]; skipped_photos: any[] };
}

describe('an upload with photos and a contents list', () => {
  let room: TestRoom;
  let jobId: string;
  let started: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    room = await newRoom(alice, 'Living room');
  });

  it('starts the job in importing_pdf with a slot per photo and one for the PDF', async () => {
    started = await start(room, 2, [['Acme inventory.pdf', pdf.length]]);
    jobId = started.job.id;
    expect(started.job).toMatchObject({
      source_type: 'photo',
      status: 'importing_pdf',
      photo_count_hint: 2,
      preparation_error: null,
      pdf_documents: [
        {
          document: 0,
          original_filename: 'Acme inventory.pdf',
          size_bytes: pdf.length,
          state: 'awaiting_upload',
          pages: null,
          photos: 0,
          message: null,
        },
      ],
    });
    expect(started.job.pdf_documents[0]).not.toHaveProperty('key');
    expect(started.uploads.map((u) => [u.index, u.original_filename])).toEqual([
      [0, 'photo-0.png'],
      [1, 'photo-1.png'],
    ]);
    expect(started.documents).toEqual([
      {
        document: 0,
        original_filename: 'Acme inventory.pdf',
        url: expect.any(String),
        fields: expect.objectContaining({
          key: expect.stringMatching(new RegExp(`/jobs/${jobId}/documents/0\\.pdf$`)),
          'Content-Type': 'application/pdf',
          'x-amz-meta-original-filename': encodeURIComponent('Acme inventory.pdf'),
          'x-amz-meta-document': '0',
        }),
        max_bytes: pdf.length,
      },
    ]);
    expect(started.skipped_photos).toEqual([]);
    // only the photos are held against MAX_PHOTO_UPLOAD_MB; the PDF's numbers come after the photos'
    expect(await jobRow(jobId)).toMatchObject({
      photo_bytes_reserved: photos[0].length + photos[1].length,
      photo_next_index: 2,
      photo_count_hint: 2,
      run_id: null,
    });
    const feed = (await alice.get('/api/activity?limit=20')).body.items;
    expect(feed.find((e: any) => e.entity_id === jobId)).toMatchObject({
      action_type: 'upload_photos',
      action_label: 'Uploaded 2 photos and 1 contents list (PDF)',
    });
  });

  it('refuses a PDF larger than its slot at the bucket', async () => {
    const slot = started.documents[0];
    const bigger = Buffer.concat([pdf, Buffer.alloc(64)]);
    expect((await postDocument(slot, bigger)).status).toBe(400);
    expect(await objectExists(slot.fields.key)).toBe(false);
  });

  it('appends photos while importing_pdf, and refuses an appended PDF with 400, writing nothing', async () => {
    const before = await jobRow(jobId);
    const refused = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [
        { filename: 'more.png', size: 10 },
        { filename: 'second list.pdf', size: 1000 },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      'A PDF cannot be appended to a photo upload: contents lists are accepted only when an upload starts. (second list.pdf)',
    );
    const after = await jobRow(jobId);
    expect(after).toEqual(before);

    const appended = await alice.post(`/api/upload-photos/${jobId}/append`, {
      files: [{ filename: 'more.png', size: photos[0].length }],
    });
    expect(appended.status).toBe(200);
    expect(appended.body.documents).toEqual([]);
    expect(appended.body.uploads.map((u: PhotoSlot) => u.index)).toEqual([2]);
  });

  it('waits for the contents list while only photos are confirmed', async () => {
    for (const [i, slot] of started.uploads.entries())
      expect(await postToBucket(slot, photos[i])).toMatchObject({ status: 204 });
    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0, 1] });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.staged_photos).toHaveLength(2);
    expect(confirmed.body.job).toMatchObject({ status: 'importing_pdf' });
    expect(confirmed.body.job.pdf_documents[0].state).toBe('awaiting_upload');
    expect((await jobRow(jobId))!.run_id).toBeNull();
  });

  it('answers 400 for a confirm naming nothing or an unknown document, writing nothing', async () => {
    const before = await jobRow(jobId);
    const empty = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [], documents: [] });
    expect(empty.status).toBe(400);
    const unknown = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [2], documents: [0, 1] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toBe("Unknown contents list number 1: this upload's are numbered 0 to 0.");
    expect(await jobRow(jobId)).toEqual(before);
  });

  it("answers 404 to another team's confirm and changes nothing", async () => {
    const before = await jobRow(jobId);
    const res = await mallory.post(`/api/upload-photos/${jobId}/confirm`, { documents: [0] });
    expect(res.status).toBe(404);
    expect(await jobRow(jobId)).toEqual(before);
  });

  it('starts the read once the PDF arrived and is confirmed, and only once', async () => {
    expect(await postDocument(started.documents[0], pdf)).toMatchObject({ status: 204 });
    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [0] });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.skipped_photos).toEqual([]);
    expect(confirmed.body.staged_photos).toEqual([]);
    expect(['queued', 'read', 'failed']).toContain(confirmed.body.job.pdf_documents[0].state);
    const row = await jobRow(jobId);
    expect(row).toMatchObject({ pipeline: 'pdf-import', run_id: expect.any(String) });

    // a repeated confirm keeps the recorded state and starts nothing again
    const again = await alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [0] });
    expect(again.status).toBe(200);
    expect(again.body.skipped_photos).toEqual([]);
    expect((await jobRow(jobId))!.run_id).toBe(row!.run_id);
  });
});

describe('contents lists that never arrive', () => {
  it('skips the missing PDF and, when none arrived, moves the job on to grouping with the reason', async () => {
    const room = await newRoom(alice, 'Garage');
    const started = await start(room, 1, [['never sent.pdf', 5000]]);
    const jobId = started.job.id;
    expect(await postToBucket(started.uploads[0], photos[0])).toMatchObject({ status: 204 });

    const confirmed = await alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0], documents: [0] });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.staged_photos).toHaveLength(1);
    expect(confirmed.body.skipped_photos).toEqual([
      { filename: 'never sent.pdf', index: null, reason: 'The upload did not arrive; send the file again.' },
    ]);
    expect(confirmed.body.job).toMatchObject({
      status: 'awaiting_grouping',
      preparation_error: 'None of the contents lists arrived; the photos that did are ready for grouping.',
    });
    expect(confirmed.body.job.pdf_documents[0]).toMatchObject({ state: 'skipped' });
    expect((await jobRow(jobId))!.run_id).toBeNull();

    // a repeat answers the same and changes nothing
    const before = await jobRow(jobId);
    const again = await alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [0] });
    expect(again.status).toBe(200);
    expect(again.body.skipped_photos).toEqual(confirmed.body.skipped_photos);
    expect(await jobRow(jobId)).toEqual(before);
  });

  it('records concurrent confirms of different PDFs without losing one, and starts the read once', async () => {
    const room = await newRoom(alice, 'Bedroom');
    const started = await start(
      room,
      2,
      [
        ['one.pdf', pdf.length],
        ['two.pdf', 5000],
        ['three.pdf', pdf.length],
      ],
      { photo_count_hint: 7 },
    );
    const jobId = started.job.id;
    expect(started.job.photo_count_hint).toBe(7);
    expect(started.documents.map((d) => d.document)).toEqual([0, 1, 2]);
    for (const [i, slot] of started.uploads.entries())
      expect(await postToBucket(slot, photos[i])).toMatchObject({ status: 204 });
    expect(await postDocument(started.documents[0], pdf)).toMatchObject({ status: 204 });
    expect(await postDocument(started.documents[2], pdf)).toMatchObject({ status: 204 });

    const answers = await Promise.all([
      alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [0] }),
      alice.post(`/api/upload-photos/${jobId}/confirm`, { indices: [0, 1] }),
      alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [1] }),
      alice.post(`/api/upload-photos/${jobId}/confirm`, { documents: [2] }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers[2].body.skipped_photos).toEqual([expect.objectContaining({ filename: 'two.pdf', index: null })]);
    const row = await jobRow(jobId);
    const states = (row!.pdf_documents as { state: string }[]).map((d) => d.state);
    expect(states[1]).toBe('skipped');
    for (const s of [states[0], states[2]]) expect(['queued', 'read', 'failed']).toContain(s);
    expect(row).toMatchObject({
      pipeline: 'pdf-import',
      run_id: expect.any(String),
      file_size_bytes: photos[0].length + photos[1].length,
    });
  });
});

describe('refusals at the start write nothing', () => {
  it('answers 413 for a PDF declared at 1.5 GiB', async () => {
    const room = await newRoom(alice, 'Basement');
    const res = await alice.post('/api/upload-photos', {
      room_id: room.id,
      files: [
        { filename: 'a.png', size: 10 },
        { filename: 'Huge vendor list.pdf', size: 1.5 * GIB },
      ],
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/^Huge vendor list\.pdf is larger than the 512 MiB limit for a PDF contents list/);
    expect(await jobsInRoom(room.id)).toBe(0);
    expect(await listKeys(`teams/${room.team_id}/claims/${room.claim_id}/`)).toEqual([]);
  });

  it('takes a PDF alone; an empty PDF gets no slot and is skipped', async () => {
    const room = await newRoom(alice, `Office ${randomUUID().slice(0, 4)}`);
    const started = await start(room, 0, [
      ['empty.pdf', 0],
      ['list.pdf', pdf.length],
    ]);
    expect(started.job).toMatchObject({ status: 'importing_pdf', photo_count_hint: 0 });
    expect(started.uploads).toEqual([]);
    expect(started.documents.map((d) => [d.document, d.original_filename])).toEqual([[1, 'list.pdf']]);
    expect(started.skipped_photos).toEqual([{ filename: 'empty.pdf', index: null, reason: 'The file is empty.' }]);
    expect(started.job.pdf_documents.map((d: any) => d.state)).toEqual(['skipped', 'awaiting_upload']);

    // only empty PDFs: nothing to wait for
    const onlyEmpty = await start(room, 1, [['empty.pdf', 0]]);
    expect(onlyEmpty.job.status).toBe('awaiting_grouping');
    expect(onlyEmpty.documents).toEqual([]);
  });
});
