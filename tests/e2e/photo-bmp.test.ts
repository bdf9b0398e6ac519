/**
 * BMP is refused, not decoded (there is no maintained BMP decoder in sharp
 * and untrusted binary formats are not parsed by hand): a .bmp file is
 * refused when the upload starts (400, nothing written), and a BMP renamed
 * to .jpg is dropped at confirm into skipped_photos with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '../support/api';
import { objectExists } from '../support/aws';
import { newTeamMember } from '../support/tokens';
import { newRoom, postToBucket, smallPng, type PhotoSlot, type TestRoom } from '../support/uploads';

const bmp = readFileSync(join(__dirname, '..', 'fixtures', 'images', 'quadrants-24.bmp'));

let alice: Client;
let room: TestRoom;

beforeAll(async () => {
  alice = await Client.signIn(newTeamMember());
  room = await newRoom(alice, 'Study');
});

it('refuses a .bmp file when the upload starts, with 400 and a clear message', async () => {
  const before = (await alice.get('/api/jobs')).body;
  const res = await alice.post('/api/upload-photos', {
    room_id: room.id,
    files: [{ filename: 'scan.bmp', size: bmp.length }],
  });
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(/scan\.bmp is not a supported photo type/);
  expect((await alice.get('/api/jobs')).body).toEqual(before);
});

it('drops a BMP uploaded under a .jpg name at confirm, saying BMP is not supported, and removes it', async () => {
  const png = await smallPng(3);
  const started = await alice.post('/api/upload-photos', {
    room_id: room.id,
    files: [
      { filename: 'scan.jpg', size: bmp.length },
      { filename: 'ok.png', size: png.length },
    ],
  });
  expect(started.status).toBe(201);
  const slots = started.body.uploads as PhotoSlot[];
  expect(await postToBucket(slots[0], bmp)).toMatchObject({ status: 204 });
  expect(await postToBucket(slots[1], png)).toMatchObject({ status: 204 });
  const confirmed = await alice.post(`/api/upload-photos/${started.body.job.id}/confirm`, {
    indices: slots.map((s) => s.index),
  });
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.skipped_photos).toEqual([
    {
      filename: 'scan.jpg',
      index: slots[0].index,
      reason: expect.stringMatching(/BMP images are not supported; save the photo as JPEG or PNG/),
    },
  ]);
  expect(confirmed.body.staged_photos.map((p: any) => p.original_filename)).toEqual(['ok.png']);
  expect(await objectExists(slots[0].fields.key)).toBe(false);
});
