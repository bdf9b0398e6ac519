import sharp from 'sharp';
import { openPdf } from '../lib/pdf/reader';
import { cardGridList } from '../tests/support/pdf-fixtures';

async function main() {
  const fixture = await cardGridList({ pages: 300, photosPerPage: 6, header: 'Acme - Claim 88 - Insured: Jane', footerLines: ['Acme 12 Main', 'Questions'] });
  const bytes = Buffer.from(fixture.bytes);
  let t = performance.now();
  const lap = (what: string) => { const n = performance.now(); console.log(what, (n - t).toFixed(0), 'ms'); t = n; };
  const r1 = await openPdf(bytes); lap('open (full)');
  const layouts = [];
  for (let p = 1; p <= 50; p++) layouts.push(await r1.pageLayout(p)); lap('layout 50 pages');
  await r1.close();
  const r = await openPdf(bytes, { checkRendering: false }); lap('open (no rendering)');
  const jpegs: Buffer[] = [];
  for (const l of layouts) for (const im of l.images) jpegs.push(await r.imageJpeg(l.page, im));
  lap(`imageJpeg x${jpegs.length}`);
  for (const j of jpegs) await sharp(j).metadata(); lap('sharp metadata');
  console.log('avg jpeg bytes', Math.round(jpegs.reduce((n, j) => n + j.length, 0) / jpegs.length));
}
main();
