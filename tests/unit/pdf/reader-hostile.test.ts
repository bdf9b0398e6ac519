/**
 * The PDF reader against documents made to exhaust it
 * (tests/support/hostile-pdfs.ts): each is refused with a reason or read
 * within bounds, never decoded past its limits. The process's memory before
 * and after each case is printed with the results.
 */
import { deflateSync } from 'node:zlib';
import { openPdf } from '../../../lib/pdf/reader';
import { FLOOD_GLYPHS, hostilePdfs, type HostilePdfs } from '../../support/hostile-pdfs';
import { flatJpeg } from '../../support/pdf-drawing';
import { jbig2BombOf, jpxBombOf, structureBombs, widePageTree } from '../../support/structure-bombs';

let files: HostilePdfs;
const figures: string[] = [];
const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;

beforeAll(async () => {
  files = hostilePdfs(await flatJpeg([10, 20, 30], 16, 16));
});

afterAll(() => {
  process.stdout.write(`hostile PDFs, this process's resident memory:\n${figures.map((f) => `  ${f}\n`).join('')}`);
});

/** Reads the document's first page and its images; the outcome as the import would see it. */
async function readFirstPage(bytes: Buffer): Promise<{ kind: string | null; message?: string; jpegs?: number[] }> {
  const before = process.memoryUsage();
  const started = performance.now();
  try {
    const reader = await openPdf(bytes);
    try {
      const layout = await reader.pageLayout(1);
      const jpegs: number[] = [];
      for (const image of layout.images) jpegs.push((await reader.imageJpeg(1, image)).length);
      return { kind: null, jpegs };
    } finally {
      await reader.close();
    }
  } catch (error) {
    const { kind, message } = error as { kind?: string; message: string };
    return { kind: kind ?? (error as Error).name, message };
  } finally {
    const after = process.memoryUsage();
    const ms = Math.round(performance.now() - started);
    figures.push(`${expect.getState().currentTestName}: RSS ${mb(before.rss)} → ${mb(after.rss)}, ${ms} ms`);
  }
}

it('refuses a page whose content inflates past the page limit', async () => {
  const outcome = await readFirstPage(files.contentBomb);
  expect(outcome).toMatchObject({ kind: 'too_large', message: expect.stringContaining('too large to read safely') });
});

it('refuses an image declared larger than any photo, without decoding it', async () => {
  expect(await readFirstPage(files.hugeImage)).toMatchObject({ kind: 'too_large' });
});

it("decodes an image's samples no further than its declared size needs", async () => {
  const before = process.memoryUsage().arrayBuffers;
  const outcome = await readFirstPage(files.imageBomb);
  // 3 MB of samples taken out of a stream that inflates to 256 MiB, encoded as one small JPEG.
  expect(outcome.kind).toBeNull();
  expect(outcome.jpegs).toHaveLength(1);
  // Fully inflated, the stream alone would hold 256 MiB; the bound leaves room for whatever else this process
  // (a jest worker that ran other files) allocates meanwhile.
  expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(128 * 1024 ** 2);
});

// Each of these is a font pdf.js would load for the page's text: it decodes the whole stream (a bomb of 256 MiB
// costs it gigabytes and seconds) or runs every glyph procedure of a Type3 font.
it.each<[string, keyof HostilePdfs]>([
  ['a font program that inflates past the font limit', 'fontProgramBomb'],
  ['such a font drawn from inside a form', 'fontBombInForm'],
  ['such a font selected by a graphics state', 'fontBombInGraphicsState'],
  ['a ToUnicode map that inflates past the font limit', 'toUnicodeBomb'],
  ['an encoding CMap that inflates past the font limit', 'encodingCMapBomb'],
  ['a CIDToGIDMap that inflates past the font limit', 'cidToGidBomb'],
  ['a Type3 glyph procedure that inflates past the font limit', 'type3GlyphBomb'],
  [`a Type3 font of ${FLOOD_GLYPHS} glyph procedures (it can draw 256)`, 'type3GlyphFlood'],
])('refuses a page whose text uses %s', async (_, file) => {
  const outcome = await readFirstPage(files[file]);
  expect(outcome).toMatchObject({ kind: 'too_large', message: expect.stringContaining('fonts that expand past') });
});

it('refuses an object graph nested past any stack as damaged', async () => {
  expect(await readFirstPage(files.deeplyNested)).toMatchObject({ kind: 'corrupt' });
});

it('refuses a page tree that lists itself as damaged', async () => {
  expect(await readFirstPage(files.cyclicPageTree)).toMatchObject({ kind: 'corrupt' });
});

describe('declared sizes measured before anything is drawn', () => {
  it.each([
    ['a transfer function of 65,535 × 65,535 samples', () => structureBombs().sampledFunctionBomb],
    ['a shading whose function declares 2,000,000,000 samples', () => structureBombs().shadingFunctionBomb],
    ['a 10 × 10 image whose soft mask declares 100,000 × 100,000 pixels', () => structureBombs().smaskBomb],
  ])('refuses %s as too large', async (_name, bomb) => {
    expect(await readFirstPage(bomb())).toMatchObject({ kind: 'too_large' });
  });
});

describe('the page tree, walked once per node', () => {
  it('refuses a tree that lists one node many times (27,000,000 pages from three levels of 300) as damaged', async () => {
    expect(await readFirstPage(structureBombs().pageTreeFanOut)).toMatchObject({ kind: 'corrupt' });
  });

  it('reads a wide honest tree (2,500 pages) and refuses one past 20,000 nodes as too large', async () => {
    const reader = await openPdf(widePageTree(2_500));
    expect(reader.pageCount).toBe(2_500);
    await reader.close();
    expect(await readFirstPage(widePageTree(20_001))).toMatchObject({ kind: 'too_large' });
  });
});

describe('one object graph, bounded before it is built', () => {
  it('refuses a 421-byte cross-reference stream declaring 5,000,000 objects as damaged, building nothing for them', async () => {
    const bytes = structureBombs().xrefSizeBomb;
    const refused = await openPdf(bytes).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'corrupt' });
    expect(String((refused as Error).cause)).toContain(`declares 5000000 objects in a file of ${bytes.length} bytes`);
  });

  it('refuses an object stream that inflates to 200 MiB as too large, decoding no more than its budget', async () => {
    expect(await readFirstPage(structureBombs().objectStreamBomb)).toMatchObject({ kind: 'too_large' });
  });

  it('measures the copy of an object defined twice that the cross-reference names, as pdf.js reads it', async () => {
    // The page's content where the cross-reference points inflates to 200 MiB; a small copy follows it.
    expect(await readFirstPage(structureBombs().duplicateObjectBomb)).toMatchObject({ kind: 'too_large' });
  });

  it('refuses an encrypted file whose object defined twice is not the copy its cross-reference names, as damaged', async () => {
    // An encrypted file is loaded front to back by the library's decryption, which keeps the last copy.
    const bytes = Buffer.from(
      structureBombs()
        .duplicateObjectBomb.toString('latin1')
        .replace('/Root 1 0 R >>', '/Root 1 0 R /Encrypt 99 0 R >>'),
      'latin1',
    );
    const refused = await openPdf(bytes).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'corrupt' });
    expect(String((refused as Error).cause)).toContain('object 4 is defined twice');
  });

  it('reads a list whose cross-reference is lost from its objects, the last copy of each winning', async () => {
    const intact = structureBombs().duplicateObjectBomb;
    // startxref names no section: pdf.js rebuilds the table from the objects, and so does the reader.
    const text = intact.toString('latin1');
    const at = text.lastIndexOf('startxref') + 'startxref'.length;
    const offset = /\s*\d+/.exec(text.slice(at))?.[0] ?? '';
    const lost = Buffer.from(intact);
    lost.write(offset.replace(/\d/g, '0'), at, 'latin1');
    const reader = await openPdf(lost);
    try {
      expect((await reader.pageLayout(1)).texts.map((t) => t.str)).toEqual(['Hello']);
    } finally {
      await reader.close();
    }
  });
});

describe("an image's own data declares its size", () => {
  it.each([
    ['a JPEG 2000 codestream declaring 30,000 × 30,000 px', () => jpxBombOf(30_000, 30_000)],
    ['JBIG2 data declaring a page and a region 100,000 px square', () => jbig2BombOf(100_000, 100_000)],
  ])('refuses a 10 × 10 image with %s as too large, decoding nothing', async (_name, bomb) => {
    expect(await readFirstPage(bomb())).toMatchObject({ kind: 'too_large' });
  });

  it.each([
    ['JPEG 2000', () => jpxBombOf(200, 200)],
    ['JBIG2', () => jbig2BombOf(200, 200)],
  ])('reads a %s image whose data declares 200 × 200 px', async (_name, image) => {
    expect(await readFirstPage(image())).toMatchObject({ kind: null });
  });
});

it('measures an object whose header straddles a 16 MiB scan boundary when the cross-reference is lost', async () => {
  const head = [
    '%PDF-1.7',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> endobj',
    '',
  ].join('\n');
  // The page's content inflates past the page's 32 MiB: found, it is refused; missed, pdf.js would decode it.
  const content = deflateSync(Buffer.alloc(40 * 1024 ** 2, 0x20));
  // A comment up to three bytes before the boundary: "4 0 obj" starts in one scan chunk and ends in the next.
  const boundary = 16 * 1024 ** 2;
  const comment = `%${'x'.repeat(boundary - 3 - head.length - 2)}\n`;
  const bytes = Buffer.concat([
    Buffer.from(`${head}${comment}4 0 obj << /Length ${content.length} /Filter /FlateDecode >> stream\n`, 'latin1'),
    content,
    Buffer.from('\nendstream endobj\ntrailer << /Root 1 0 R >>\nstartxref\n0\n%%EOF\n', 'latin1'),
  ]);
  expect(bytes.indexOf('4 0 obj')).toBe(boundary - 3);
  expect(await readFirstPage(bytes)).toMatchObject({ kind: 'too_large' });
});
