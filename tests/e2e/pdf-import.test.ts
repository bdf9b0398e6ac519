/**
 * Contents lists read into a photo job's grouping pile, end to end over HTTP
 * on the local service: the browser starts an upload with photos and a PDF,
 * POSTs them to the bucket and confirms them; the read runs on the workers
 * (layout units, one recipe call per new layout, extraction units, grouping)
 * and the job moves on to awaiting_grouping. The fake AI gateway answers the
 * recipe and page-marking calls; the fake mail service receives the failure
 * reports. Each test's documents carry a footer line of their own, so
 * layouts learned by other tests (templates are global) never match theirs.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'csv-parse/sync';
import { Client, eventually } from '../support/api';
import { doc, table } from '../support/aws';
import { fakeGateway, modelItem } from '../support/fake-gateway';
import { fakeMail } from '../support/fake-mail';
import {
  badPdfs,
  cardGridList,
  coverAndAppendixList,
  headerRunsList,
  layoutTag,
  scannedList,
  CARD_GRID_RECIPE,
} from '../support/pdf-fixtures';
import { damagedImageList } from '../support/damaged-images';
import { hostilePdfs } from '../support/hostile-pdfs';
import { residentMb } from '../support/process-rss';
import { structureBombs } from '../support/structure-bombs';
import { restrictedList } from '../support/restricted-pdfs';
import { vectorList } from '../support/vector-pdfs';
import { flatJpeg, photoIndexOf } from '../support/pdf-drawing';
import type { PdfBox } from '../../lib/pdf/layout';
import type { PdfFixture } from '../support/pdf-drawing';
import { newTeamMember } from '../support/tokens';
import { newRoom, postDocument, postToBucket, smallPng, type TestRoom } from '../support/uploads';

const gateway = fakeGateway(process.env.TEST_FAKE_GATEWAY_URL as string);
const mail = fakeMail(process.env.TEST_FAKE_MAIL_URL as string);

let alice: Client;
let mallory: Client;
let room: TestRoom;

beforeAll(async () => {
  alice = await Client.signIn(newTeamMember());
  mallory = await Client.signIn(newTeamMember());
  room = await newRoom(alice, 'Living room');
});

/** Header and footer lines of a layout of this test's own (its tag keeps it apart from every other test's). */
const header = (tag: string, insured = 'Jane Doe', claim = '88-12345') =>
  `Acme Restoration ${tag} - Contents inventory - Claim ${claim} - Insured: ${insured}`;
const footer = (tag: string, last = `Prepared by the ${tag} contents team`) => [
  `Acme Restoration ${tag} - 12 Main Street - Springfield`,
  `Questions about this report ${tag}: call the office`,
  last,
];

interface Upload {
  job: any;
  filename: string;
}

/** Starts an upload of `photoCount` photos and one PDF, POSTs everything and confirms it. */
async function uploadWithPdf(
  pdf: Uint8Array,
  photoCount = 0,
  name = `list-${randomUUID().slice(0, 8)}.pdf`,
): Promise<Upload> {
  const pngs = await Promise.all(Array.from({ length: photoCount }, (_, i) => smallPng(i + 7)));
  const files = [
    ...pngs.map((p, i) => ({ filename: `loose-${i}.png`, size: p.length })),
    { filename: name, size: pdf.length, content_type: 'application/pdf' },
  ];
  const started = await alice.post('/api/upload-photos', { room_id: room.id, files });
  expect(started.status).toBe(201);
  expect(started.body.job.status).toBe('importing_pdf');
  for (const [i, slot] of started.body.uploads.entries()) expect((await postToBucket(slot, pngs[i])).status).toBe(204);
  expect((await postDocument(started.body.documents[0], Buffer.from(pdf))).status).toBe(204);
  const confirmed = await alice.post(`/api/upload-photos/${started.body.job.id}/confirm`, {
    ...(photoCount ? { indices: started.body.uploads.map((u: { index: number }) => u.index) } : {}),
    documents: [0],
  });
  expect(confirmed.status).toBe(200);
  return { job: started.body.job, filename: name };
}

const handedOn = (jobId: string) =>
  eventually(
    async () => {
      const res = await alice.get(`/api/jobs/${jobId}`);
      return res.body.status === 'awaiting_grouping' ? res.body : null;
    },
    90_000,
    300,
  );

async function stagedPhotos(jobId: string): Promise<any[]> {
  const res = await alice.get(`/api/jobs/${jobId}/staged-photos`);
  expect(res.status).toBe(200);
  return res.body.photos ?? res.body;
}

/** What a recipe call's prompt (and only it) says of the document. */
const recipeMatch = (filename: string) => `Sample pages of the contents list "${filename}"`;

const recipeCalls = async (filename: string) =>
  (await gateway.requests(`Sample pages of the contents list "${filename}"`)).filter((r) =>
    JSON.stringify(r.response_format).includes('contents_list_recipe'),
  );

/** Each staged photo (in document order) with the label, caption, quantity and date its list printed for it. */
function expectPrinted(staged: any[], fixture: PdfFixture): void {
  const inOrder = [...staged].sort((a, b) => a.index - b.index);
  expect(inOrder).toHaveLength(fixture.expected.photos.length);
  for (const [i, photo] of fixture.expected.photos.entries()) {
    const group = fixture.expected.groups.find((g) => g.photos.includes(photo.index));
    expect({
      label: inOrder[i].source_label,
      description: inOrder[i].source_description,
      quantity: inOrder[i].quantity,
      capturedAt: inOrder[i].captured_at?.slice(0, 19) ?? null,
    }).toEqual({
      label: group?.label,
      description: group?.description,
      quantity: group?.quantity,
      capturedAt: group?.capturedAt,
    });
  }
}

/** A photo box as the AI marks it on a rendered page: fractions of the 612 × 792 pt page. */
const markedPhoto = (box: PdfBox, label: string, description: string | null) => ({
  x: box.x / 612,
  y: box.y / 792,
  width: box.width / 612,
  height: box.height / 792,
  label,
  description,
});

describe('a card-grid contents list with loose photos', () => {
  const tag = layoutTag();
  let fixture: Awaited<ReturnType<typeof cardGridList>>;
  let upload: Upload;
  let job: any;
  let photos: any[];

  beforeAll(async () => {
    fixture = await cardGridList({ pages: 3, header: header(tag), footerLines: footer(tag) });
    const name = `acme-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    upload = await uploadWithPdf(fixture.bytes, 2, name);
    job = await handedOn(upload.job.id);
    photos = await stagedPhotos(job.id);
  }, 120_000);

  it('reads the list into the grouping pile, then awaits grouping with what it found', async () => {
    expect(job.preparation_error).toBeNull();
    expect(job.pdf_documents).toEqual([
      expect.objectContaining({ document: 0, original_filename: upload.filename, state: 'read', pages: 3, photos: 17 }),
    ]);
    const fromPdf = photos.filter((p) => p.filename.startsWith('pdf_'));
    expect(fromPdf).toHaveLength(fixture.expected.photos.length);
    expect(photos.filter((p) => p.filename.startsWith('orig_'))).toHaveLength(2);
    expect(fromPdf.every((p) => p.original_filename.startsWith(`${upload.filename}, page `))).toBe(true);
  });

  it('asks the AI for the recipe once, with sample pages of the layout', async () => {
    const calls = await recipeCalls(upload.filename);
    expect(calls).toHaveLength(1);
    expect(calls[0].text).toContain(`Acme Restoration ${tag}`);
  });

  it('groups photos by label past the loose photos, splitting a label over MAX_PHOTOS_PER_ITEM evenly', async () => {
    const fromPdf = photos.filter((p) => p.filename.startsWith('pdf_'));
    const loose = photos.filter((p) => p.filename.startsWith('orig_'));
    expect(Math.min(...fromPdf.map((p) => p.group_index))).toBeGreaterThan(
      Math.max(...loose.map((p) => p.group_index)),
    );
    const byKey = new Map<string, number[]>();
    for (const p of fromPdf) byKey.set(p.source_item_key, [...(byKey.get(p.source_item_key) ?? []), p.group_index]);
    expect(byKey.size).toBe(fixture.expected.groups.length);
    const chairs = fromPdf.filter((p) => p.source_description?.startsWith('6 x Oak dining chairs'));
    expect(chairs).toHaveLength(7);
    const blocks = new Map<number, number>();
    for (const c of chairs) blocks.set(c.group_index, (blocks.get(c.group_index) ?? 0) + 1);
    expect([...blocks.values()].sort()).toEqual([3, 4]);
    expect(new Set(chairs.map((c) => c.source_item_key)).size).toBe(1);
  });

  it('keeps captions, quantities and printed dates, and the caption carried to the next page', async () => {
    const fromPdf = photos.filter((p) => p.filename.startsWith('pdf_')).sort((a, b) => a.index - b.index);
    for (const group of fixture.expected.groups) {
      const members = group.photos.map((n) => fromPdf[n]);
      for (const m of members) {
        expect(m.source_label).toBe(group.label);
        expect(m.source_description).toBe(group.description);
        expect(m.quantity).toBe(group.quantity);
        expect(m.captured_at?.slice(0, 19)).toBe(group.capturedAt);
      }
    }
    const lamp = fromPdf[fixture.expected.groups.find((g) => g.label === 'Floor lamp')?.photos[0] as number];
    expect(lamp.source_description).toMatch(/^Arc floor lamp with marble base/);
  });

  it('serves each photo with the bytes the PDF holds, and another team gets 404', async () => {
    const fromPdf = photos.filter((p) => p.filename.startsWith('pdf_')).sort((a, b) => a.index - b.index);
    const first = await fetch(`${process.env.TEST_SERVICE_URL}${fromPdf[0].url}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(fixture.expected.photos[0].jpeg)).toBe(true);
    expect((await mallory.get(`/api/jobs/${job.id}/staged-photos`)).status).toBe(404);
    expect((await mallory.get(`/api/jobs/${job.id}`)).status).toBe(404);
  });
});

describe('the recipe cache', () => {
  const tag = layoutTag();

  it('reads a second file of a known layout without asking, a near-identical one by signature, a new one by asking', async () => {
    const first = await cardGridList({ pages: 2, header: header(tag), footerLines: footer(tag) });
    const firstName = `known-${tag}-a.pdf`;
    await gateway.script(recipeMatch(firstName), [{ items: [], content: CARD_GRID_RECIPE }]);
    const firstJob = await handedOn((await uploadWithPdf(first.bytes, 0, firstName)).job.id);
    expect(firstJob.pdf_documents[0]).toMatchObject({ state: 'read', photos: first.expected.photos.length });
    expect(await recipeCalls(firstName)).toHaveLength(1);

    // The same layout for another insured and claim: the header differs, the rest of the layout matches.
    const second = await cardGridList({
      pages: 2,
      footerLines: footer(tag),
      header: header(tag, 'John Roe', '31-777'),
    });
    const secondName = `known-${tag}-b.pdf`;
    const secondJob = await handedOn((await uploadWithPdf(second.bytes, 0, secondName)).job.id);
    expect(await recipeCalls(secondName)).toHaveLength(0);
    expect(secondJob.pdf_documents[0]).toMatchObject({ state: 'read', photos: second.expected.photos.length });

    // One footer line changed: a hash miss that the stored signature still matches.
    const near = await cardGridList({
      pages: 2,
      header: header(tag),
      footerLines: footer(tag, `Prepared by the ${tag} office in Springfield`),
    });
    const nearName = `known-${tag}-c.pdf`;
    await handedOn((await uploadWithPdf(near.bytes, 0, nearName)).job.id);
    expect(await recipeCalls(nearName)).toHaveLength(0);

    // What the global template keeps of these layouts names no insured and no claim.
    const { Items = [] } = await doc.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'PDFTEMPLATES#612x792' },
      }),
    );
    expect(Items.length).toBeGreaterThan(0);
    const stored = JSON.stringify(Items);
    for (const text of ['Jane Doe', 'John Roe', '88-12345', '31-777', tag]) expect(stored).not.toContain(text);

    // Another vendor's layout is asked for.
    const other = await headerRunsList();
    const otherName = `other-${tag}.pdf`;
    await gateway.script(recipeMatch(otherName), [
      { items: [], content: { ...CARD_GRID_RECIPE, strategy: 'header_runs', label_pattern: '^Item \\d+ - ' } },
    ]);
    const otherJob = await handedOn((await uploadWithPdf(other.bytes, 0, otherName)).job.id);
    expect(await recipeCalls(otherName)).toHaveLength(1);
    // Photos before the first heading are dropped; every other photo belongs to its heading.
    const runs = other.expected.groups.filter((g) => g.label !== null);
    expect(otherJob.pdf_documents[0].photos).toBe(runs.reduce((n, g) => n + g.photos.length, 0));
    const staged = (await stagedPhotos(otherJob.id)).sort((a, b) => a.index - b.index);
    expect(new Set(staged.map((p) => p.source_item_key)).size).toBe(runs.length);
    // Each heading ("Item 1 - Refrigerator") holds the label and the description: the pattern splits them.
    const printed = runs.flatMap((g) => g.photos.map(() => /^(Item \d+) - (.+)$/.exec(g.label as string)?.slice(1)));
    expect(staged.map((p) => [p.source_label, p.source_description])).toEqual(printed);
  }, 240_000);
});

describe("the vendor's printed labels", () => {
  it('reach the staged photos, the items made from them and the export, portrait photos included', async () => {
    const tag = layoutTag();
    const fixture = await cardGridList({ pages: 2, portraitEvery: 3, header: header(tag), footerLines: footer(tag) });
    const name = `labels-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(fixture.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', photos: fixture.expected.photos.length });
    expectPrinted(await stagedPhotos(job.id), fixture);

    // Each group's AI call (its photos are labelled with the list's name) finds one item.
    await gateway.script(name, [{ items: [modelItem('Listed item', 0.9)] }]);
    expect((await alice.post(`/api/jobs/${job.id}/process`)).status).toBe(200);
    const done = await eventually(
      async () => {
        const res = await alice.get(`/api/jobs/${job.id}`);
        return ['complete', 'error'].includes(res.body.status) ? res.body : null;
      },
      120_000,
      300,
    );
    expect(done.status).toBe('complete');
    const items = (await alice.get(`/api/inventory/${job.id}`)).body as any[];
    // One item per label (two for a label over the per-item photo limit), each showing its label.
    const blocks = (n: number) => Math.ceil(n / 5);
    const expected = fixture.expected.groups.flatMap((g) => Array(blocks(g.photos.length)).fill(g.label)).sort();
    expect(items.map((i) => i.source_label).sort()).toEqual(expected);
    for (const group of fixture.expected.groups.filter((g) => g.photos.length <= 5)) {
      const item = items.find((i) => i.source_label === group.label);
      expect(item.notes).toBe(`From the source PDF: ${group.description}`);
    }

    const requested = await alice.get(`/api/inventory/${job.id}/export/csv`);
    expect(requested.status).toBe(202);
    const ready = await eventually(
      async () => {
        const poll = await alice.get(requested.body.poll_url);
        return poll.body.status === 'ready' ? poll.body : null;
      },
      90_000,
      300,
    );
    const rows: string[][] = parse(Buffer.from(await (await fetch(ready.download_url)).arrayBuffer()), { bom: true });
    const column = rows[0].indexOf('Source label');
    expect(column).toBeGreaterThan(0);
    const byNumber = new Map(items.map((i) => [String(i.item_number), i.source_label]));
    expect(rows.slice(1).map((r) => r[column])).toEqual(rows.slice(1).map((r) => byNumber.get(r[0])));
  }, 300_000);
});

describe('other layouts', () => {
  it('trims a cover page and an appendix around the inventory pages, and reads its portrait photos like the others', async () => {
    const fixture = await coverAndAppendixList({ portraitEvery: 2 });
    const name = `cover-${randomUUID().slice(0, 8)}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(fixture.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', pages: 6, photos: fixture.expected.photos.length });
    const pages = new Set(
      (await stagedPhotos(job.id)).map((p) => Number(/page (\d+)$/.exec(p.original_filename)?.[1])),
    );
    expect([...pages].sort()).toEqual([2, 3, 4]);
    expectPrinted(await stagedPhotos(job.id), fixture);
  }, 120_000);

  it('stages every item photo and never the logo a writer embedded anew on every page', async () => {
    const tag = layoutTag();
    const fixture = await cardGridList({
      pages: 3,
      header: header(tag),
      footerLines: footer(tag),
      // Over min_image_px, its own object on each page: only its bytes tell it repeats.
      logo: { embedding: 'every-page', px: [160, 80] },
    });
    const name = `logo-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(fixture.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', photos: fixture.expected.photos.length });
    const staged = await stagedPhotos(job.id);
    expect(staged).toHaveLength(fixture.expected.photos.length);
    expect(staged.every((p) => p.width === 320 && p.height === 240)).toBe(true);
  }, 120_000);

  it('renders a list whose pictures are vector drawings, and keeps the photos the AI marks on its pages', async () => {
    const tag = layoutTag();
    const list = await vectorList({ header: header(tag) });
    const name = `vector-${tag}.pdf`;
    // The recipe reads a card grid; with no embedded image to take out, the pages are rendered and marked.
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    for (const page of [1, 2]) {
      const photos = list.pictures.filter((p) => p.page === page).map((p) => markedPhoto(p.box, p.label, p.caption));
      await gateway.script(`Page ${page} of the contents list "${name}"`, [{ items: [], content: { photos } }]);
    }
    const job = await handedOn((await uploadWithPdf(list.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', pages: 2, photos: list.pictures.length });
    const staged = (await stagedPhotos(job.id)).sort((a, b) => a.index - b.index);
    expect(staged.map((p) => p.source_description)).toEqual(list.pictures.map((p) => p.caption));
    for (const [i, photo] of staged.entries()) {
      const served = await fetch(`${process.env.TEST_SERVICE_URL}${photo.url}`);
      expect(await photoIndexOf(Buffer.from(await served.arrayBuffer()))).toBe(list.pictures[i].index);
    }
    // Photos were found on the pages (none kept whole): not a poor read.
    expect(await mail.messages(name)).toEqual([]);
  }, 120_000);

  it('reads a scanned list page by page: boxes the AI marks are cut out, a page it cannot read is kept whole', async () => {
    const fixture = await scannedList();
    const name = `scan-${randomUUID().slice(0, 8)}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: { ...CARD_GRID_RECIPE, strategy: 'page_image' } }]);
    const boxes = (page: number) =>
      fixture.expected.photos.filter((p) => p.page === page).map((p) => markedPhoto(p.box, p.label, null));
    await gateway.script(`Page 1 of the contents list "${name}"`, [{ items: [], content: { photos: boxes(1) } }]);
    await gateway.script(`Page 2 of the contents list "${name}"`, [{ items: [], content: { photos: [] } }]);
    await gateway.script(`Page 3 of the contents list "${name}"`, [{ items: [], fail: 'garbage' }]);
    const job = await handedOn((await uploadWithPdf(fixture.bytes, 0, name)).job.id);
    const staged = (await stagedPhotos(job.id)).sort((a, b) => a.index - b.index);
    // Page 1: its four photos; page 2: dropped (no photo marked); page 3: kept whole (no answer).
    expect(staged.map((p) => /page (\d+)$/.exec(p.original_filename)?.[1])).toEqual(['1', '1', '1', '1', '3']);
    expect(staged.slice(0, 4).map((p) => p.source_item_key !== null)).toEqual([true, true, true, true]);
  }, 120_000);
});

describe('documents with owner restrictions', () => {
  it('reads a list encrypted with owner restrictions only; refuses one that needs a password', async () => {
    const tag = layoutTag();
    const list = await restrictedList({ encryption: 'aes-128', header: header(tag) });
    const name = `restricted-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(list.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', pages: 2, photos: list.photos.length });
    const staged = (await stagedPhotos(job.id)).sort((a, b) => a.index - b.index);
    expect(staged.map((p) => p.source_item_key !== null)).toEqual(list.photos.map(() => true));
    for (const [i, photo] of staged.entries()) {
      const served = await fetch(`${process.env.TEST_SERVICE_URL}${photo.url}`);
      expect(Buffer.from(await served.arrayBuffer()).equals(list.photos[i].jpeg)).toBe(true);
    }

    const locked = await restrictedList({ encryption: 'aes-128', userPassword: 'secret', header: header(tag) });
    const lockedName = `locked-${tag}.pdf`;
    const refused = await handedOn((await uploadWithPdf(locked.bytes, 0, lockedName)).job.id);
    expect(refused.pdf_documents[0]).toMatchObject({ state: 'failed', photos: 0 });
    expect(refused.pdf_documents[0].message).toMatch(/^This PDF is password-protected or encrypted/);
  }, 120_000);
});

describe('documents that cannot be read', () => {
  it('finishes documents made to exhaust the reader as failed, each with its reason, and reports them', async () => {
    const hostile = hostilePdfs(await flatJpeg([10, 20, 30], 16, 16));
    const cases = [
      { bytes: hostile.contentBomb, reason: 'too large to read safely' },
      { bytes: hostile.hugeImage, reason: 'too large to read safely' },
      { bytes: hostile.fontProgramBomb, reason: 'too large to read safely' },
      { bytes: hostile.deeplyNested, reason: 'damaged or incomplete' },
    ];
    await Promise.all(
      cases.map(async ({ bytes, reason }) => {
        const name = `hostile-${randomUUID().slice(0, 8)}.pdf`;
        const job = await handedOn((await uploadWithPdf(bytes, 0, name)).job.id);
        expect(job.pdf_documents[0]).toMatchObject({ state: 'failed', photos: 0 });
        expect(job.pdf_documents[0].message).toContain(reason);
        const report = await eventually(async () => (await mail.messages(name))[0] ?? null, 20_000);
        expect(report.subject).toBe(`Contents list import needs a look: ${name}`);
      }),
    );
  }, 120_000);

  it('reads documents built to exhaust a worker in a sandbox: each ends as it should, the service process stays within the ceiling, and a list after them reads', async () => {
    const bombs = structureBombs();
    const pid = Number(process.env.TEST_SERVICE_PID);
    const before = residentMb(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentMb(pid));
    }, 100);
    let ended: { reason: string | null; document: any }[] = [];
    try {
      const tooLarge = 'too large to read safely';
      const damaged = 'damaged or incomplete';
      const cases = [
        // Past every check the reader makes, decoded by pdf.js: the child is killed at its memory ceiling.
        { bytes: bombs.deflatedJbig2Bomb, reason: 'more than 1024 MB of memory' },
        // Refused before anything is built or decoded for them.
        { bytes: bombs.xrefSizeBomb, reason: damaged },
        { bytes: bombs.pageTreeFanOut, reason: damaged },
        { bytes: bombs.objectStreamBomb, reason: tooLarge },
        // Refused by the page's drawing budget before any render: its content, a pattern's cell, and the
        // copy of an object defined twice that the cross-reference names.
        { bytes: bombs.renderOnlyContentBomb, reason: tooLarge },
        { bytes: bombs.tilingPatternBomb, reason: tooLarge },
        { bytes: bombs.duplicateObjectBomb, reason: tooLarge },
        // Sizes declared inside an image's data or a function's: refused before any decoding.
        { bytes: bombs.jpxBomb, reason: tooLarge },
        { bytes: bombs.jbig2Bomb, reason: tooLarge },
        { bytes: bombs.smaskBomb, reason: tooLarge },
        { bytes: bombs.sampledFunctionBomb, reason: tooLarge },
        // Read within the ceiling: annotations are not drawn.
        { bytes: bombs.annotationAppearanceBomb, reason: null },
        // Owner restrictions only, its key length given by its crypt filter alone: read.
        { bytes: (await restrictedList({ encryption: 'aes-128', keyLengthInCryptFilter: true })).bytes, reason: null },
      ];
      const jobs = await Promise.all(
        cases.map(async ({ bytes }) =>
          handedOn((await uploadWithPdf(bytes, 0, `bomb-${randomUUID().slice(0, 8)}.pdf`)).job.id),
        ),
      );
      ended = cases.map(({ reason }, i) => ({ reason, document: jobs[i].pdf_documents[0] }));
    } finally {
      clearInterval(sampler);
    }
    process.stdout.write(
      `hostile PDFs through the import: service process ${Math.round(before)} MB, peak ${Math.round(peak)} MB\n`,
    );
    // What the documents made the parsers allocate was the sandboxes', not the service process's.
    expect(peak - before).toBeLessThan(1024);
    for (const { reason, document } of ended) {
      if (reason) expect(document).toMatchObject({ state: 'failed', message: expect.stringContaining(reason) });
      else expect(document.state).toBe('read');
    }
    // The worker is alive and reads a normal list right after.
    const tag = layoutTag();
    const list = await cardGridList({ pages: 1, header: header(tag), footerLines: footer(tag) });
    const name = `after-bombs-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(list.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', pages: 1 });
  }, 300_000);

  it('leaves out a photo whose image is damaged, keeps the others and says so on the job and in the report', async () => {
    const tag = layoutTag();
    const list = await damagedImageList({ header: header(tag), footerLines: footer(tag) });
    const name = `damaged-${tag}.pdf`;
    await gateway.script(recipeMatch(name), [{ items: [], content: CARD_GRID_RECIPE }]);
    const job = await handedOn((await uploadWithPdf(list.bytes, 0, name)).job.id);
    expect(job.pdf_documents[0]).toMatchObject({ state: 'read', photos: list.found - 2 });
    expect(job.pdf_documents[0].message).toBe('2 photos could not be read and were left out (pages 1, 2).');
    const staged = (await stagedPhotos(job.id)).sort((a, b) => a.index - b.index);
    expect(staged).toHaveLength(list.intact.length);
    for (const [i, photo] of staged.entries()) {
      const served = await fetch(`${process.env.TEST_SERVICE_URL}${photo.url}`);
      expect(Buffer.from(await served.arrayBuffer()).equals(list.intact[i])).toBe(true);
    }
    const report = await eventually(async () => (await mail.messages(name))[0] ?? null, 20_000);
    expect(report.subject).toBe(`Contents list import needs a look: ${name}`);
    expect(report.text).toContain('2 photos could not be read and were left out (pages 1, 2).');
  }, 120_000);

  it('hands the job on with the reason per document, and mails support a report with the PDF', async () => {
    const bad = await badPdfs();
    for (const file of [bad.truncated, bad.encrypted, bad.zeroPages, bad.jpegNamedPdf]) {
      const name = `bad-${randomUUID().slice(0, 8)}-${file.filename}`;
      const job = await handedOn((await uploadWithPdf(file.bytes, 1, name)).job.id);
      expect(job.pdf_documents[0]).toMatchObject({ state: 'failed', photos: 0 });
      expect(job.pdf_documents[0].message).toEqual(expect.any(String));
      // The loose photo is still there, ready for grouping.
      expect(await stagedPhotos(job.id)).toHaveLength(1);
      const report = await eventually(async () => (await mail.messages(name))[0] ?? null, 20_000);
      expect(report.subject).toBe(`Contents list import needs a look: ${name}`);
      expect(report.attachments).toEqual([expect.objectContaining({ filename: name, size: file.bytes.length })]);
    }
  }, 240_000);
});
