/**
 * Exports over real HTTP: Excel, CSV and the PDF report of a job, a room and a
 * whole claim. Items come from the real photo pipeline (fake AI gateway), one
 * of them named like a formula (the CSV quotes it, the workbook keeps it exact
 * in a text cell). Each export is requested (202), polled until
 * ready, downloaded through its presigned link and read back with a real
 * parser: exceljs for the workbook, csv-parse for the CSV, poppler's
 * pdftotext and pdfinfo for the report. Another team gets 404 everywhere.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import sharp from 'sharp';
import { Client, eventually } from '../support/api';
import { setFields } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { newTeamMember } from '../support/tokens';
import { newRoom, photoJob, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);

const HEADERS = [
  'Item #',
  'Room',
  'Name',
  'Quantity',
  'Brand',
  'Model',
  'Serial',
  'SKU',
  'Condition',
  'Age',
  'Estimated price',
  'Damage',
  'Notes',
  'Source label',
  'Approved',
  'Reviewed',
  'Confidence',
];

function photo(seed: number): Promise<Buffer> {
  const width = 640;
  const height = 480;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * seed * 31 + (i >> 9) * 17) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A processed photo job in the room whose model answers are `items` (one photo, one group). */
async function jobWithItems(
  client: Client,
  roomId: string,
  seed: number,
  items: Record<string, unknown>[],
): Promise<string> {
  const filename = `export-${randomUUID().slice(0, 8)}.jpg`;
  await gateway.script(filename, [{ items }]);
  const { jobId } = await photoJob(client, roomId, [await photo(seed)], [filename]);
  await eventually(async () => {
    const staged = await client.get(`/api/jobs/${jobId}/staged-photos`);
    return staged.body.every((p: any) => p.normalized);
  }, 60_000);
  const started = await client.post(`/api/jobs/${jobId}/process`);
  expect(started.status).toBe(200);
  await eventually(
    async () => ['complete', 'error'].includes((await client.get(`/api/jobs/${jobId}`)).body.status),
    90_000,
    300,
  );
  expect((await client.get(`/api/jobs/${jobId}`)).body.status).toBe('complete');
  return jobId;
}

/** Requests an export, polls it to ready and downloads the file. */
async function exported(client: Client, path: string): Promise<{ bytes: Buffer; status: any; disposition: string }> {
  const res = await client.get(path);
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ export_id: expect.any(String), status: 'pending', poll_url: expect.any(String) });
  const status = await eventually(
    async () => {
      const poll = await client.get(res.body.poll_url);
      expect(poll.status).toBe(200);
      if (poll.body.status === 'failed') throw new Error(`export failed: ${poll.body.error}`);
      return poll.body.status === 'ready' ? poll.body : null;
    },
    90_000,
    300,
  );
  const download = await fetch(status.download_url);
  expect(download.status).toBe(200);
  return {
    bytes: Buffer.from(await download.arrayBuffer()),
    status,
    disposition: download.headers.get('content-disposition') ?? '',
  };
}

let alice: Client;
let mallory: Client;
let kitchen: TestRoom;
let den: { id: string };
let kitchenJob: string;
let denJob: string;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'exports-test-'));
  alice = await Client.signIn(newTeamMember());
  mallory = await Client.signIn(newTeamMember());
  // Confident items (0.95) are approved by the team's rules; the 0.7 ones are left for a person.
  const rules = await alice.put('/api/settings/automation', { auto_approve: { enabled: true, min_confidence: 0.9 } });
  expect(rules.status).toBe(200);
  kitchen = await newRoom(alice, 'Kitchen');
  expect((await alice.patch(`/api/claims/${kitchen.claim_id}`, { insured_name: 'Pat Owner' })).status).toBe(200);
  const denRes = await alice.post(`/api/claims/${kitchen.claim_id}/rooms`, { name: 'Den: upstairs?' });
  expect(denRes.status).toBe(201);
  den = denRes.body;
  kitchenJob = await jobWithItems(alice, kitchen.id, 1, [
    modelItem('Toaster', 0.95, { brand: 'Breville', estimated_price: 80, quantity: 2 }),
    modelItem('=HYPERLINK("http://evil.example","click")', 0.7, { notes: '@SUM(1)', estimated_price: 5 }),
  ]);
  // The toaster was made from a contents list's photos, which printed its label.
  const toaster = ((await alice.get(`/api/inventory/${kitchenJob}`)).body as any[]).find((i) => i.name === 'Toaster');
  await setFields(`ITEM#${toaster.id}`, 'ITEM', { source_label: 'Item 0018' });
  denJob = await jobWithItems(alice, den.id, 2, [
    modelItem('Armchair', 0.95, { estimated_price: 300 }),
    modelItem('Reading lamp', 0.7, { estimated_price: 40 }),
  ]);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('CSV', () => {
  it('exports a job: header, one row per item by number, formulas neutralised, numbers as numbers', async () => {
    const { bytes, status, disposition } = await exported(alice, `/api/inventory/${kitchenJob}/export/csv`);
    expect(status).toMatchObject({ format: 'csv', scope: 'job', item_count: 2, error: null });
    expect(status.filename).toMatch(/_Kitchen_items_\d{4}-\d{2}-\d{2}\.csv$/);
    expect(disposition).toBe(`attachment; filename="${status.filename}"`);
    const rows: string[][] = parse(bytes, { bom: true });
    expect(rows[0]).toEqual(HEADERS);
    expect(rows.slice(1).map((r) => r[2])).toEqual(['Toaster', `'=HYPERLINK("http://evil.example","click")`]);
    const toaster = Object.fromEntries(HEADERS.map((h, i) => [h, rows[1][i]]));
    expect(toaster).toMatchObject({
      'Item #': '1',
      Room: 'Kitchen',
      Quantity: '2',
      Brand: 'Breville',
      'Estimated price': '80',
      'Source label': 'Item 0018',
      Approved: 'Yes',
      Reviewed: 'No',
    });
    expect(rows[2][HEADERS.indexOf('Notes')]).toBe("'@SUM(1)");
  });

  it('exports a whole claim across rooms, and approved items only when asked', async () => {
    const all: string[][] = parse((await exported(alice, `/api/claims/${kitchen.claim_id}/export/csv`)).bytes, {
      bom: true,
    });
    expect(all.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([
      ['1', 'Kitchen', 'Toaster'],
      ['2', 'Kitchen', `'=HYPERLINK("http://evil.example","click")`],
      ['3', 'Den: upstairs?', 'Armchair'],
      ['4', 'Den: upstairs?', 'Reading lamp'],
    ]);
    const approved: string[][] = parse(
      (await exported(alice, `/api/claims/${kitchen.claim_id}/export/csv?approved_only=true`)).bytes,
      { bom: true },
    );
    expect(approved.slice(1).map((r) => r[2])).toEqual(['Toaster', 'Armchair']);
  });

  it('exports a room across its jobs', async () => {
    const rows: string[][] = parse((await exported(alice, `/api/rooms/${den.id}/export/csv`)).bytes, { bom: true });
    expect(rows.slice(1).map((r) => r[2])).toEqual(['Armchair', 'Reading lamp']);
  });

  it('leaves archived items out', async () => {
    const items = (await alice.get(`/api/inventory/${denJob}`)).body as any[];
    const lamp = items.find((i) => i.name === 'Reading lamp');
    const archived = await alice.post(`/api/inventory/item/${lamp.id}/archive`);
    expect(archived.status).toBe(200);
    const rows: string[][] = parse((await exported(alice, `/api/rooms/${den.id}/export/csv`)).bytes, { bom: true });
    expect(rows.slice(1).map((r) => r[2])).toEqual(['Armchair']);
    expect((await alice.post(`/api/inventory/item/${lamp.id}/unarchive`)).status).toBe(200);
  });
});

describe('Excel', () => {
  it('exports a claim: Summary, a sheet per room, Photos with embedded thumbnails, names linked to photos', async () => {
    const { bytes, status } = await exported(alice, `/api/claims/${kitchen.claim_id}/export/excel`);
    expect(status.filename).toMatch(/_items_\d{4}-\d{2}-\d{2}\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Summary', 'Kitchen', 'Den upstairs', 'Photos']);

    const summary = workbook.getWorksheet('Summary')!;
    const values = new Map<string, unknown>();
    summary.eachRow((row) => values.set(String(row.getCell(1).value), row.getCell(2).value));
    expect(values.get('Claim number')).toEqual(expect.stringMatching(/^T-/));
    expect(values.get('Insured')).toBe('Pat Owner');
    expect(values.get('Rooms')).toBe(2);
    expect(values.get('Item lines')).toBe(4);
    expect(values.get('Total estimated value')).toBe(2 * 80 + 5 + 300 + 40);

    const sheet = workbook.getWorksheet('Kitchen')!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(HEADERS);
    const name = sheet.getRow(3).getCell(3).value as { text: string; hyperlink: string };
    // Exactly as named, in a text cell: Excel shows it as typed and never evaluates it.
    expect(name.text).toBe(`=HYPERLINK("http://evil.example","click")`);
    expect(sheet.getRow(3).getCell(3).numFmt).toBe('@');
    expect(sheet.getRow(3).getCell(13).value).toBe('@SUM(1)');
    expect(name.hyperlink).toMatch(/^'Photos'!A\d+$/);
    expect(sheet.getRow(2).getCell(11).value).toBe(80);
    expect(sheet.getRow(2).getCell(HEADERS.indexOf('Source label') + 1).value).toBe('Item 0018');

    const photos = workbook.getWorksheet('Photos')!;
    expect(photos.getImages()).toHaveLength(4);
    expect((workbook.model as unknown as { media: unknown[] }).media.length).toBe(4);
    const linkedRow = Number(name.hyperlink.split('!A')[1]);
    expect(photos.getRow(linkedRow).getCell(3).value).toBe(name.text);
  });

  it('exports a job and a room with their own room sheet', async () => {
    const job = new ExcelJS.Workbook();
    await job.xlsx.load((await exported(alice, `/api/inventory/${kitchenJob}/export/excel`)).bytes as any);
    expect(job.worksheets.map((w) => w.name)).toEqual(['Summary', 'Kitchen', 'Photos']);
    const room = new ExcelJS.Workbook();
    await room.xlsx.load((await exported(alice, `/api/rooms/${den.id}/export/excel?approved_only=true`)).bytes as any);
    expect(room.worksheets.map((w) => w.name)).toEqual(['Summary', 'Den upstairs', 'Photos']);
    expect(room.getWorksheet('Den upstairs')!.rowCount).toBe(2);
  });
});

describe('PDF report', () => {
  it('opens in poppler with the claim and every item name as text', async () => {
    const { bytes, status } = await exported(alice, `/api/claims/${kitchen.claim_id}/report.pdf`);
    expect(status.filename).toMatch(/_report_\d{4}-\d{2}-\d{2}\.pdf$/);
    const file = join(work, 'report.pdf');
    writeFileSync(file, bytes);
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString();
    for (const name of ['Toaster', 'Item 0018', 'Armchair', 'Reading lamp', 'Pat Owner', 'Kitchen', 'Den: upstairs?'])
      expect(text).toContain(name);
    expect(text).toContain('$505.00');
    expect(execFileSync('pdfinfo', [file]).toString()).toMatch(/Pages:\s+1\n/);
  });

  it('prints names in any script with the fonts the worker reads from its packages, an emoji as a placeholder', async () => {
    const items = (await alice.get(`/api/inventory/${denJob}`)).body as any[];
    const armchair = items.find((i) => i.name === 'Armchair');
    const names = { item: 'Кресло Πολυθρόνα 椅子 의자 😀', room: 'Гостиная 客厅 غرفة' };
    expect((await alice.put(`/api/inventory/item/${armchair.id}`, { name: names.item })).status).toBe(200);
    expect((await alice.put(`/api/rooms/${den.id}`, { name: names.room })).status).toBe(200);
    try {
      const file = join(work, 'report-scripts.pdf');
      writeFileSync(file, (await exported(alice, `/api/claims/${kitchen.claim_id}/report.pdf`)).bytes);
      // pdftotext marks right-to-left words with direction marks.
      const text = execFileSync('pdftotext', [file, '-'])
        .toString()
        .replace(/[\u202a-\u202e]/g, '');
      expect(text).toContain('Кресло Πολυθρόνα 椅子 의자 \uFFFD');
      expect(text).toContain(names.room);
      expect(text).not.toContain('?');
    } finally {
      expect((await alice.put(`/api/inventory/item/${armchair.id}`, { name: 'Armchair' })).status).toBe(200);
      expect((await alice.put(`/api/rooms/${den.id}`, { name: 'Den: upstairs?' })).status).toBe(200);
    }
  });
});

describe('requests', () => {
  it('reuses a pending export for the same request', async () => {
    const [a, b] = await Promise.all([
      alice.get(`/api/rooms/${kitchen.id}/export/excel`),
      alice.get(`/api/rooms/${kitchen.id}/export/excel`),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    if (a.body.export_id !== b.body.export_id) {
      // Only when one had already been built before the other was recorded (a small export builds in well under a second).
      const [first, second] = await Promise.all([alice.get(a.body.poll_url), alice.get(b.body.poll_url)]);
      const [earlier, later] = first.body.created_at <= second.body.created_at ? [first, second] : [second, first];
      expect(earlier.body.status).toBe('ready');
      expect(earlier.body.updated_at <= later.body.created_at).toBe(true);
    }
    const other = await alice.get(`/api/rooms/${kitchen.id}/export/excel?approved_only=true`);
    expect(other.body.export_id).not.toBe(a.body.export_id);
  });

  it("answers 404 to another team on every export route and on the owner's export", async () => {
    const own = await alice.get(`/api/inventory/${kitchenJob}/export/csv`);
    for (const path of [
      `/api/inventory/${kitchenJob}/export/excel`,
      `/api/inventory/${kitchenJob}/export/csv`,
      `/api/rooms/${kitchen.id}/export/excel`,
      `/api/rooms/${kitchen.id}/export/csv`,
      `/api/claims/${kitchen.claim_id}/export/excel`,
      `/api/claims/${kitchen.claim_id}/export/csv`,
      `/api/claims/${kitchen.claim_id}/report.pdf`,
      own.body.poll_url,
    ]) {
      const res = await mallory.get(path);
      expect([path, res.status, res.body]).toEqual([path, 404, { detail: expect.any(String) }]);
    }
    expect((await mallory.get(`/api/exports/${randomUUID()}`)).status).toBe(404);
  });

  it('answers 422 for a malformed id or filter', async () => {
    for (const path of [
      '/api/inventory/not-a-uuid/export/excel',
      '/api/rooms/not-a-uuid/export/csv',
      '/api/claims/not-a-uuid/report.pdf',
      '/api/exports/not-a-uuid',
      `/api/claims/${kitchen.claim_id}/export/csv?approved_only=maybe`,
    ])
      expect([path, (await alice.get(path)).status]).toEqual([path, 422]);
  });
});
