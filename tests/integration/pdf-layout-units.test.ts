/**
 * The PDF import's layout stage on a list one page longer than a layout unit,
 * against the local bucket and table: the stage reads the first unit's pages
 * itself while it has the document open, and fans out only so the second unit
 * reads the rest; the first unit's message finds its pages read and does
 * nothing; the plan stage then gets every page once, in order, with each
 * stored JPEG's byte range in the document. A unit whose pages cannot be
 * read records why, and the document fails with that reason.
 */
import { randomUUID } from 'node:crypto';
import { headObject } from '../../lib/blob/objects';
import { blobKeys } from '../../lib/blob/keys';
import { JobLog } from '../../lib/jobs/log-store';
import { planLayouts, readLayoutUnit } from '../../lib/pipelines/pdf/layout-stage';
import { LAYOUT_PAGES_PER_UNIT } from '../../lib/pipelines/pdf/limit-rules';
import { getReadPlan, getUnitLayouts } from '../../lib/pipelines/pdf/run-store';
import type { StageContext } from '../../lib/orchestrator/pipeline';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
} from '@cantoo/pdf-lib';
import { flatJpeg, PAGE_HEIGHT, PAGE_WIDTH, photoColour } from '../support/pdf-drawing';
import { cardGridPdfJob } from '../support/pdf-jobs';

const PAGES = LAYOUT_PAGES_PER_UNIT + 1;

let ctx: StageContext;
let bytes: Uint8Array;
let photo: Buffer;

const layoutKey = (unit: number) =>
  `${blobKeys.jobPrefix(ctx.job.team_id, ctx.job.claim_id, ctx.job.id)}pdf-runs/${ctx.job.run_id}/layouts/${String(unit).padStart(5, '0')}.json`;

beforeAll(async () => {
  // A line of text on every page, and one photo on the last.
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= PAGES; page++)
    doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]).drawText(`Page ${page}`, { x: 40, y: 40, size: 11, font });
  photo = await flatJpeg(photoColour(7), 320, 240);
  doc.getPage(PAGES - 1).drawImage(await doc.embedJpg(photo), { x: 40, y: 200, width: 160, height: 120 });
  bytes = await doc.save();
  const job = await cardGridPdfJob(bytes, 'layout-units');
  job.run_id = randomUUID();
  ctx = { job, log: new JobLog(job.id), heartbeat: async () => {} };
}, 120_000);

it('reads the first unit while the document is open and fans out the rest', async () => {
  const outcome = await planLayouts(ctx);
  expect(outcome).toMatchObject({ kind: 'fanout', units: 2 });
  const plan = await getReadPlan(ctx.job.id, ctx.job.run_id as string);
  expect(plan.units).toEqual([
    { index: 0, document: 0, first: 1, last: LAYOUT_PAGES_PER_UNIT, read_by_plan: true },
    { index: 1, document: 0, first: PAGES, last: PAGES },
  ]);
  expect(await headObject(layoutKey(0))).not.toBeNull();
  expect(await headObject(layoutKey(1))).toBeNull();

  // The first unit's message has nothing left to do; the second reads its page.
  const before = (await headObject(layoutKey(0)))?.size;
  await readLayoutUnit(ctx, 0);
  await readLayoutUnit(ctx, 1);
  expect((await headObject(layoutKey(0)))?.size).toBe(before);

  const { pages, failure } = await getUnitLayouts(ctx.job, ctx.job.run_id as string, [0, 1]);
  expect(failure).toBeNull();
  expect(pages.map((p) => p.page)).toEqual(Array.from({ length: PAGES }, (_, i) => i + 1));
  expect(pages[0].texts.map((text) => text.str)).toEqual(['Page 1']);
  const [placed] = pages[PAGES - 1].images;
  const range = placed.jpegRange as { offset: number; length: number };
  expect(Buffer.compare(Buffer.from(bytes).subarray(range.offset, range.offset + range.length), photo)).toBe(0);
}, 120_000);

it("fails the document when a unit's pages cannot be read, with the reason", async () => {
  // The same long list, its last page drawing an image declared 100,000 pixels square.
  const doc = await PDFDocument.load(bytes);
  const huge = doc.context.stream(photo, {
    Type: 'XObject',
    Subtype: 'Image',
    Width: 100_000,
    Height: 100_000,
    ColorSpace: 'DeviceRGB',
    BitsPerComponent: 8,
    Filter: 'DCTDecode',
  });
  const last = doc.getPage(PAGES - 1);
  const name = last.node.newXObject('Huge', doc.context.register(huge));
  last.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(100, 0, 0, 100, 300, 300),
    drawObject(name),
    popGraphicsState(),
  );
  const job = await cardGridPdfJob(await doc.save(), 'layout-unit-failure');
  job.run_id = randomUUID();
  const failing: StageContext = { job, log: new JobLog(job.id), heartbeat: async () => {} };
  await planLayouts(failing);
  await readLayoutUnit(failing, 1);
  const { pages, failure } = await getUnitLayouts(job, job.run_id, [0, 1]);
  expect(pages).toEqual([]);
  expect(failure).toContain('too large to read safely');
}, 120_000);
