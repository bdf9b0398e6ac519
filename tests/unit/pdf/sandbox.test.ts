/**
 * The PDF sandbox (lib/pdf/sandbox.ts) with its real child, built from
 * functions/sandbox/pdf-reader.ts: a list reads the same through it as in
 * this process, the reader's refusals cross with their kind, and a document
 * that passes the child's memory or time ceiling fails as too large while
 * this process stays as it was and the child is gone. A child that closed
 * its document cleanly reads the next one; one that breached, or grew past
 * its share of the ceiling, does not.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PdfReader } from '../../../lib/pdf/reader';
import { openPdf } from '../../../lib/pdf/reader';
import { openSandboxedPdf } from '../../../lib/pdf/sandbox';
import { PdfUnreadable } from '../../../lib/pdf/unreadable';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { damage, damaged } from '../../support/damaged-pdfs';
import { badPdfs, cardGridList } from '../../support/pdf-fixtures';
import { testSandboxLimits } from '../../support/pdf-sandbox';
import { smaskBombOf, structureBombs } from '../../support/structure-bombs';

jest.setTimeout(120_000);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The child's pid, read from the reader the sandbox made (a test's look inside). */
const childPid = (reader: PdfReader) => (reader as unknown as { child: { pid: number } }).child.pid;

it('reads a list exactly as the reader does in this process, stored JPEGs and renders included', async () => {
  const list = await cardGridList({ pages: 2, photosPerPage: 2 });
  const direct = await openPdf(list.bytes);
  const sandboxed = await openSandboxedPdf(list.bytes, {}, testSandboxLimits());
  try {
    expect([sandboxed.pageCount, sandboxed.producer]).toEqual([direct.pageCount, direct.producer]);
    for (let page = 1; page <= direct.pageCount; page++) {
      const layout = await sandboxed.pageLayout(page);
      expect(layout).toEqual(await direct.pageLayout(page));
      const image = layout.images[0];
      const jpeg = await sandboxed.imageJpeg(page, image);
      expect(Buffer.isBuffer(jpeg)).toBe(true);
      expect(jpeg.equals(await direct.imageJpeg(page, image))).toBe(true);
    }
    const render = await sandboxed.renderPage(1, 400);
    expect(render.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    await expect(sandboxed.pageLayout(99)).rejects.toBeInstanceOf(RangeError);
  } finally {
    await sandboxed.close();
    await direct.close();
  }
  // Closed, the child waits for the next document, and the next open takes it.
  expect(alive(childPid(sandboxed))).toBe(true);
  const next = await openSandboxedPdf(list.bytes, {}, testSandboxLimits());
  await next.close();
  expect(childPid(next)).toBe(childPid(sandboxed));
});

/** Every page's layout and stored JPEGs through the sandbox, checked against the reader in this process. */
async function expectReadAsDirect(bytes: Uint8Array, sandboxed: PdfReader) {
  const direct = await openPdf(bytes);
  try {
    expect([sandboxed.pageCount, sandboxed.producer]).toEqual([direct.pageCount, direct.producer]);
    for (let page = 1; page <= direct.pageCount; page++) {
      const layout = await sandboxed.pageLayout(page);
      expect(layout).toEqual(await direct.pageLayout(page));
      for (const image of layout.images) {
        expect((await sandboxed.imageJpeg(page, image)).equals(await direct.imageJpeg(page, image))).toBe(true);
      }
    }
  } finally {
    await direct.close();
  }
}

describe('a warm child, kept for the next document', () => {
  it('reads documents one after another in the same child, each as the reader does in this process', async () => {
    const lists = [
      await cardGridList({ pages: 2, photosPerPage: 2 }),
      await cardGridList({ pages: 3, photosPerPage: 1, photoPx: [200, 150] }),
      await cardGridList({ pages: 1, photosPerPage: 3 }),
    ];
    const pids: number[] = [];
    for (const list of lists) {
      const reader = await openSandboxedPdf(list.bytes, {}, testSandboxLimits());
      try {
        await expectReadAsDirect(list.bytes, reader);
      } finally {
        await reader.close();
      }
      pids.push(childPid(reader));
      // A closed document's calls fail in this process; they never reach the child that reads the next one.
      await expect(reader.pageLayout(1)).rejects.toThrow(/closed/);
    }
    expect(new Set(pids).size).toBe(1);
  });

  it('kills a reused child that passes its ceiling, and the next open reads in a new child', async () => {
    const limits = testSandboxLimits({ memoryMb: 300 });
    const list = await cardGridList({ pages: 2, photosPerPage: 2 });
    const first = await openSandboxedPdf(list.bytes, {}, limits);
    await first.close();
    const warm = childPid(first);
    expect(alive(warm)).toBe(true);

    // The bomb takes the warm child, which passes 300 MB drawing its image: it is killed, the bomb refused.
    const refused = await readEverything(structureBombs().deflatedJbig2Bomb, limits);
    expect(refused).toMatchObject({
      kind: 'too_large',
      message: expect.stringContaining('more than 300 MB of memory'),
    });
    expect(alive(warm)).toBe(false);

    const after = await openSandboxedPdf(list.bytes, {}, limits);
    try {
      expect(childPid(after)).not.toBe(warm);
      await expectReadAsDirect(list.bytes, after);
    } finally {
      await after.close();
    }
  });

  it("keeps a child whose open was refused: the refusal is the document's, the child is well", async () => {
    const list = await cardGridList({ pages: 1, photosPerPage: 1 });
    const first = await openSandboxedPdf(list.bytes, {}, testSandboxLimits());
    await first.close();
    const refused = await openSandboxedPdf((await badPdfs()).truncated.bytes, {}, testSandboxLimits()).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ kind: 'corrupt' });
    const next = await openSandboxedPdf(list.bytes, {}, testSandboxLimits());
    try {
      expect(childPid(next)).toBe(childPid(first));
      await expectReadAsDirect(list.bytes, next);
    } finally {
      await next.close();
    }
  });

  it('kills a child over half its ceiling at close rather than keep it', async () => {
    // A child that has read a list holds some 120 MB: over half of 200 MB, well within all of it.
    const limits = testSandboxLimits({ memoryMb: 200 });
    const list = await cardGridList({ pages: 2, photosPerPage: 2 });
    const first = await openSandboxedPdf(list.bytes, {}, limits);
    await expectReadAsDirect(list.bytes, first);
    await first.close();
    expect(first.peakMb).toBeGreaterThan(100);
    expect(alive(childPid(first))).toBe(false);
    const next = await openSandboxedPdf(list.bytes, {}, limits);
    await next.close();
    expect(childPid(next)).not.toBe(childPid(first));
  });

  it('does not keep the worker alive while it waits: a process that read a document ends, and its child with it', async () => {
    const root = path.join(__dirname, '..', '..', '..');
    const script = `
      const { openSandboxedPdf } = require('./lib/pdf/sandbox.ts');
      const { cardGridList } = require('./tests/support/pdf-fixtures.ts');
      (async () => {
        const list = await cardGridList({ pages: 1, photosPerPage: 1 });
        const reader = await openSandboxedPdf(list.bytes, {}, { memoryMb: 1024, seconds: 60, entry: ${JSON.stringify(testSandboxLimits().entry)} });
        await reader.pageLayout(1);
        await reader.close();
        process.stdout.write(String(reader.child.pid));
      })();
    `;
    const started = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      cwd: root,
      timeout: 60_000,
    });
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`a process that read one document in the sandbox ended after ${seconds.toFixed(1)} s\n`);
    const pid = Number(stdout);
    expect(pid).toBeGreaterThan(0);
    // The waiting child ends when its parent goes (its channel closes).
    for (let tries = 0; tries < 50 && alive(pid); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
  });
});

it('reads a document from a file the child reads itself, as from its bytes', async () => {
  const list = await cardGridList({ pages: 2, photosPerPage: 2 });
  const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-test-'));
  const file = path.join(dir, 'list.pdf');
  writeFileSync(file, list.bytes);
  const fromFile = await openSandboxedPdf({ file }, {}, testSandboxLimits());
  // Read at the open: the file may go at once.
  rmSync(dir, { recursive: true });
  try {
    await expectReadAsDirect(list.bytes, fromFile);
  } finally {
    await fromFile.close();
  }
});

it.each(['truncated', 'encrypted', 'zeroPages', 'jpegNamedPdf'] as const)(
  "refuses a %s file with the reader's own kind",
  async (name) => {
    const bad = (await badPdfs())[name];
    const refused = await openSandboxedPdf(bad.bytes, {}, testSandboxLimits()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PdfUnreadable);
    expect((refused as PdfUnreadable).kind).toBe(bad.kind);
  },
);

/**
 * Reads every page's layout and images: the JBIG2 data behind a FlateDecode filter passes the reader's own
 * checks and is decoded by pdf.js at its declared 100,000 px square only when its image is drawn.
 */
async function readEverything(bytes: Buffer, limits: ReturnType<typeof testSandboxLimits>): Promise<unknown> {
  let reader: PdfReader | null = null;
  try {
    reader = await openSandboxedPdf(bytes, {}, limits);
    for (let page = 1; page <= reader.pageCount; page++) {
      for (const image of (await reader.pageLayout(page)).images) await reader.imageJpeg(page, image);
    }
    return 'read';
  } catch (error) {
    return error;
  } finally {
    await reader?.close();
  }
}

it('kills a child that passes its memory ceiling: too large, named by the ceiling, this process unchanged', async () => {
  const bomb = structureBombs().deflatedJbig2Bomb;
  const before = process.memoryUsage().rss;
  const refused = await readEverything(bomb, testSandboxLimits({ memoryMb: 300 }));
  expect(refused).toBeInstanceOf(PdfUnreadable);
  expect(refused).toMatchObject({ kind: 'too_large', message: expect.stringContaining('more than 300 MB of memory') });
  expect((process.memoryUsage().rss - before) / 1024 ** 2).toBeLessThan(100);
});

it('kills a child that passes its time on a step: too large, named by the time', async () => {
  const bomb = structureBombs().deflatedJbig2Bomb;
  const refused = await readEverything(bomb, testSandboxLimits({ memoryMb: 4096, seconds: 1 }));
  expect(refused).toMatchObject({ kind: 'too_large', message: expect.stringContaining('longer than 1 s') });
});

it('reads a damaged list or refuses it as unreadable through the sandbox, no rejection left unhandled in the child', async () => {
  const base = Buffer.from((await cardGridList({ pages: 2, photosPerPage: 2 })).bytes);
  await fc.assert(
    fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
      let reader: PdfReader | null = null;
      try {
        reader = await openSandboxedPdf(damaged(base, damages), {}, testSandboxLimits());
        for (let page = 1; page <= reader.pageCount; page++) {
          const layout = await reader.pageLayout(page);
          for (const image of layout.images) await reader.imageJpeg(page, image);
        }
      } catch (error) {
        if (!(error instanceof PdfUnreadable)) throw error;
      } finally {
        await reader?.close();
      }
      // What the child wrote on its error stream (a test's look inside): a stray rejection would be there.
      const stderr = reader ? (reader as unknown as { stderrTail: string }).stderrTail : '';
      expect(stderr).not.toMatch(/unhandled rejection|uncaught exception/);
    }),
    { numRuns: 25 },
  );
}, 120_000);

it('refuses to start without its entry, as a fault of the deployment rather than of the document', async () => {
  const list = await cardGridList({ pages: 1, photosPerPage: 1 });
  const refused = await openSandboxedPdf(list.bytes, {}, testSandboxLimits({ entry: '/nowhere/pdf-reader.js' })).catch(
    (e: unknown) => e,
  );
  expect(refused).not.toBeInstanceOf(PdfUnreadable);
  expect((refused as Error).message).toMatch(/entry is missing/);
});

describe('documents built to exhaust a reader, each read the way the import reads it, in the sandbox', () => {
  const figures: string[] = [];
  afterAll(() => {
    process.stdout.write(
      `hostile PDFs through the sandbox (ceiling 1024 MB):\n${figures.map((f) => `  ${f}\n`).join('')}`,
    );
  });

  /** Open, the first page's layout, then its render: the outcome, the child's peak and this process's growth. */
  async function readInSandbox(name: string, bytes: Buffer) {
    const before = process.memoryUsage().rss;
    const started = performance.now();
    let reader: Awaited<ReturnType<typeof openSandboxedPdf>> | null = null;
    let outcome: string;
    try {
      reader = await openSandboxedPdf(bytes, {}, testSandboxLimits());
      await reader.pageLayout(1);
      await reader.renderPage(1, 1000);
      outcome = 'read';
    } catch (error) {
      outcome =
        error instanceof PdfUnreadable ? `${error.kind}: ${error.message}` : `error: ${(error as Error).message}`;
    } finally {
      await reader?.close();
    }
    const seconds = (performance.now() - started) / 1000;
    const grewMb = (process.memoryUsage().rss - before) / 1024 ** 2;
    const peak = reader ? `child peak ${Math.round(reader.peakMb)} MB` : 'refused at open';
    figures.push(
      `${name}: ${outcome.slice(0, 70)} (${seconds.toFixed(1)} s, ${peak}, this process +${Math.round(grewMb)} MB)`,
    );
    return { outcome, seconds, grewMb };
  }

  const bombs = structureBombs();
  const MEMORY = 'too_large: This PDF needs more than 1024 MB of memory';
  it.each([
    // Past the ceiling: the child is killed and the document fails for its memory.
    ['a JBIG2 region declared 100,000 px square behind a FlateDecode filter', bombs.deflatedJbig2Bomb, MEMORY],
    // Refused by the reader's own limits before anything is decoded or drawn.
    ['a cross-reference stream declaring 5,000,000 objects in 421 bytes', bombs.xrefSizeBomb, 'corrupt'],
    ['an object stream inflating to 200 MiB', bombs.objectStreamBomb, 'too_large: This PDF holds'],
    [
      'an object defined twice, a 200 MiB content where the cross-reference points',
      bombs.duplicateObjectBomb,
      'too_large: This PDF holds',
    ],
    ['a JBIG2 region declared 100,000 px square', bombs.jbig2Bomb, 'too_large: This PDF holds'],
    ['a JPEG 2000 codestream declaring 30,000 px square', bombs.jpxBomb, 'too_large: This PDF holds'],
    ['a sampled function of 65,535 × 65,535 samples', bombs.sampledFunctionBomb, 'too_large: This PDF holds'],
    [
      'a soft mask of 15,000 px square inflating to 200 MiB',
      smaskBombOf(15_000, 200 * 1024 ** 2),
      'too_large: This PDF holds',
    ],
    ['a page whose content inflates to 200 MiB', bombs.renderOnlyContentBomb, 'too_large: This PDF holds'],
    ['a tiling pattern whose cell inflates to 200 MiB', bombs.tilingPatternBomb, 'too_large: This PDF holds'],
    // Refused before anything is listed for it: a page tree that names one node again and again.
    ['a page tree listing one page 27,000,000 times', bombs.pageTreeFanOut, 'corrupt'],
    // Within the ceiling: read, with annotations not drawn.
    ['an annotation whose appearance inflates to 200 MiB', bombs.annotationAppearanceBomb, 'read'],
  ])('%s', async (name, bytes, expected) => {
    const { outcome, grewMb } = await readInSandbox(name, bytes);
    expect(outcome.startsWith(expected)).toBe(true);
    expect(grewMb).toBeLessThan(100);
  });
});
