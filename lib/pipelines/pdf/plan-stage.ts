/**
 * The plan of the PDF import's `extract` stage, once per run: for each document read by the
 * layout units, the inventory page range (the dominant photo size), the
 * layout's fingerprint and its recipe (a stored template, else one AI call
 * from a few sample pages, filed for the next document of that layout), the
 * recipe applied by the pure executors, and the extraction units that take
 * the photos out. The photos' numbers are taken from the job's counter here,
 * once, past the loose photos (photo_count_hint).
 */
import { settings } from '../../config';
import type { Job } from '../../jobs/job-record-rules';
import type { PdfPageLayout } from '../../pdf/layout';
import { PipelineFailure } from '../../orchestrator/terminal';
import type { StageContext, StageOutcome } from '../../orchestrator/pipeline';
import { raisePhotoNextIndex, takePhotoIndices } from '../../photos/photo-job-store';
import { MAX_PHOTO_INDEX } from '../../photos/rules';
import type { PdfPhotoFinding } from './finding';
import { documentFingerprint } from './template/fingerprint-rules';
import { documentName, openDocument } from './layout-stage';
import { PdfUnreadable } from '../../pdf/unreadable';
import { imagesToTake, inRuns, MAX_REGIONS_PER_PAGE, PHOTOS_PER_UNIT, RENDERED_PAGES_PER_UNIT } from './limit-rules';
import { inventoryPageRange } from './page/page-range-rules';
import { DEFAULT_RECIPE, type Recipe } from './recipe';
import { askForRecipe } from './recipe-call';
import { samplePages } from './learning/recipe-prompt-rules';
import { applyRecipe } from './strategies/strategy-rules';
import {
  type DocumentReading,
  type ExtractionTask,
  type ExtractionUnit,
  getReadPlan,
  getUnitLayouts,
  putExtractionPlan,
  type ReadPlanDocument,
} from './run-store';
import { findTemplate, saveTemplate } from './template/template-store';
import { textLines } from './page/text-line-rules';

/** Extraction units run at once. */
const EXTRACTION_CONCURRENCY = 8;
/** Pages whose pictures the AI is shown when it is asked for a recipe of a document without text. */
const SAMPLE_RENDER_LONG_EDGE = 1200;
/** Sample pages per recipe call. */
const RECIPE_SAMPLE_PAGES = 3;

/** The recipe of a document's layout: stored, asked for (and filed), or the fallback. */
async function recipeFor(
  ctx: StageContext,
  doc: ReadPlanDocument,
  inventory: PdfPageLayout[],
  hasTextLayer: boolean,
): Promise<{ recipe: Recipe; source: DocumentReading['recipe_source'] }> {
  const { job, log } = ctx;
  const first = inventory[0];
  const fingerprint = documentFingerprint({
    pages: inventory.map((page) => textLines(page.texts).map((line) => line.text)),
    pageWidth: first.width,
    pageHeight: first.height,
    producer: doc.producer,
  });
  const stored = await findTemplate(fingerprint);
  if (stored) {
    await log.info(`Known layout (matched by ${stored.matched}): ${stored.recipe.strategy}`);
    return { recipe: stored.recipe, source: stored.matched === 'hash' ? 'template' : 'template-signature' };
  }
  const samples = samplePages({ first: first.page, last: inventory[inventory.length - 1].page }, RECIPE_SAMPLE_PAGES);
  const byPage = new Map(inventory.map((page) => [page.page, page]));
  const reader = hasTextLayer ? null : await openDocument(job, doc.document, { checkRendering: false });
  try {
    const inputs = [];
    for (const page of samples) {
      const layout = byPage.get(page);
      if (!layout) continue;
      inputs.push({ layout, ...(reader ? { render: await reader.renderPage(page, SAMPLE_RENDER_LONG_EDGE) } : {}) });
    }
    const asked = await askForRecipe(
      { jobId: job.id, teamId: job.team_id, document: documentName(job, doc.document) },
      inputs,
    );
    if ('recipe' in asked) {
      if (fingerprint.cacheable) await saveTemplate(fingerprint, asked.recipe);
      await log.info(
        `New layout: recipe ${asked.recipe.strategy}${fingerprint.cacheable ? ', filed for next time' : ''}`,
      );
      return { recipe: asked.recipe, source: 'ai' };
    }
    await log.warn(`No recipe could be had (${asked.failed}); reading with the default layout rules`);
    return {
      recipe: { ...DEFAULT_RECIPE, strategy: hasTextLayer ? 'card_grid' : 'page_image' },
      source: 'fallback',
    };
  } finally {
    await reader?.close();
  }
}

/** One document's reading: range, recipe, findings, and its extraction tasks numbered from `base`. */
async function planDocument(
  ctx: StageContext,
  doc: ReadPlanDocument,
  pages: PdfPageLayout[],
): Promise<{ reading: DocumentReading; findings: PdfPhotoFinding[]; pagesToMark: PdfPageLayout[] }> {
  const range = inventoryPageRange(pages.map((page) => ({ page: page.page, images: page.images })));
  const inventory = pages.filter((page) => page.page >= range.first && page.page <= range.last);
  const hasTextLayer = pages.some((page) => page.texts.length > 0);
  const { recipe, source } = await recipeFor(ctx, doc, inventory, hasTextLayer);
  const read = applyRecipe(recipe, inventory);
  const { take, limit } = imagesToTake(read.findings.length);
  const pagesToMark = read.pagesToMark.slice(0, Math.floor(imagesToTake(read.pagesToMark.length).take));
  return {
    reading: {
      document: doc.document,
      recipe,
      recipe_source: source,
      strategy_used: read.strategy,
      first_page: range.first,
      last_page: range.last,
      has_text_layer: hasTextLayer,
      planned: take + pagesToMark.length,
      limit,
    },
    findings: read.findings.slice(0, take),
    pagesToMark,
  };
}

/** Numbers for `count` photos past the loose photos and anything numbered so far; the first of them. */
async function takeNumbers(job: Job, count: number): Promise<number> {
  await raisePhotoNextIndex(job.id, job.photo_count_hint ?? 0);
  const after = await takePhotoIndices(job.id, count, ['importing_pdf'], MAX_PHOTO_INDEX);
  if (!after) throw new PipelineFailure('The job has no photo numbers left for the contents lists.');
  return after.photo_next_index - count;
}

function placementOf(pages: PdfPageLayout[], finding: PdfPhotoFinding) {
  if (finding.source.kind !== 'embedded') throw new Error('only an embedded photo has a placement');
  const { imageId } = finding.source;
  const placement = pages.find((p) => p.page === finding.page)?.images.find((image) => image.id === imageId);
  if (!placement) throw new Error(`image ${imageId} is not on page ${finding.page}`);
  return placement;
}

export async function planExtraction(ctx: StageContext): Promise<StageOutcome> {
  const { job, log } = ctx;
  const runId = job.run_id as string;
  const readPlan = await getReadPlan(job.id, runId);
  const planned: {
    doc: ReadPlanDocument;
    pages: PdfPageLayout[];
    reading: DocumentReading;
    findings: PdfPhotoFinding[];
    pagesToMark: PdfPageLayout[];
  }[] = [];
  const failures: { document: number; failure: string }[] = [];
  for (const doc of readPlan.documents) {
    if (doc.failure) continue;
    const units = readPlan.units.filter((u) => u.document === doc.document).map((u) => u.index);
    const { pages, failure } = await getUnitLayouts(job, runId, units);
    if (failure) {
      failures.push({ document: doc.document, failure });
      await log.warn(`Document ${doc.document + 1}: not read (${failure})`);
      continue;
    }
    let result: Awaited<ReturnType<typeof planDocument>>;
    try {
      result = await planDocument(ctx, doc, pages);
    } catch (err) {
      // A sample page that cannot be rendered (damaged, or past the sandbox's ceiling) fails its document.
      if (!(err instanceof PdfUnreadable)) throw err;
      failures.push({ document: doc.document, failure: err.message });
      await log.warn(`Document ${doc.document + 1}: not read (${err.message})`);
      continue;
    }
    planned.push({ doc, pages, ...result });
    await log.info(
      `Document ${doc.document + 1}: pages ${result.reading.first_page}–${result.reading.last_page} hold the inventory; ` +
        `${result.reading.strategy_used}: ${result.findings.length} photo(s)${result.pagesToMark.length ? `, ${result.pagesToMark.length} page(s) to mark` : ''}`,
    );
    await ctx.heartbeat();
  }

  const count = planned.reduce((n, p) => n + p.findings.length + p.pagesToMark.length * MAX_REGIONS_PER_PAGE, 0);
  let next = count > 0 ? await takeNumbers(job, count) : 0;
  const units: ExtractionUnit[] = [];
  for (const p of planned) {
    const embedded: ExtractionTask[] = p.findings.map((finding) => ({
      kind: 'embedded',
      index: next++,
      finding,
      placement: placementOf(p.pages, finding),
    }));
    const marked: ExtractionTask[] = p.pagesToMark.map((page) => {
      const task: ExtractionTask = {
        kind: 'page',
        indexBase: next,
        page: page.page,
        width: page.width,
        height: page.height,
      };
      next += MAX_REGIONS_PER_PAGE;
      return task;
    });
    for (const tasks of [...inRuns(embedded, PHOTOS_PER_UNIT), ...inRuns(marked, RENDERED_PAGES_PER_UNIT)])
      units.push({ index: units.length, document: p.doc.document, tasks });
  }
  await putExtractionPlan(job, { run_id: runId, readings: planned.map((p) => p.reading), failures, units });
  return units.length > 0
    ? {
        kind: 'fanout',
        units: units.length,
        concurrency: Math.min(EXTRACTION_CONCURRENCY, settings().OPENROUTER_CONCURRENCY * 2),
      }
    : { kind: 'next' };
}
