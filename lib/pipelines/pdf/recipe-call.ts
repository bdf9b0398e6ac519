/**
 * The two AI calls of the PDF import: the recipe of a layout, asked once per
 * new layout from a few sample pages (with their renders when the document
 * has no text), and the photo boxes of one rendered page (page_image). An
 * AI failure never throws: the caller falls back (default recipe; the whole
 * page kept).
 */
import { settings } from '../../config';
import { AiGatewayError } from '../../integrations/ai-call';
import { AiGatewayClient } from '../../integrations/ai-gateway';
import { recordAiCall } from '../../jobs/ai-request-service';
import type { PdfPageLayout } from '../../pdf/layout';
import { readMarkedBoxes } from './strategies/page-image-rules';
import { type MarkedBox, PAGE_IMAGE_ANSWER_JSON_SCHEMA } from './strategies/page-image-schemas';
import type { Recipe } from './recipe';
import { recipeFromAnswer } from './learning/recipe-rules';
import { RECIPE_JSON_SCHEMA } from './learning/recipe-schemas';
import {
  pageBoxesSystemPrompt,
  pageBoxesUserText,
  recipeSystemPrompt,
  recipeUserText,
} from './learning/recipe-prompt-rules';

/** The job the calls are counted against. */
export interface CallContext {
  jobId: string;
  teamId: string;
  /** The document's file name, named in the prompt. */
  document: string;
}

const RECIPE_MAX_TOKENS = 1500;
const PAGE_BOXES_MAX_TOKENS = 3000;

const client = () => AiGatewayClient.fromSettings(settings(), { recorder: recordAiCall });

function parsed(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

export async function askForRecipe(
  context: CallContext,
  samples: { layout: PdfPageLayout; render?: Buffer }[],
): Promise<{ recipe: Recipe } | { failed: string }> {
  const renders = samples.filter((s) => s.render);
  try {
    const answer = await client().complete({
      system: recipeSystemPrompt(),
      text: recipeUserText(
        context.document,
        samples.map((s) => s.layout),
        renders.length > 0,
      ),
      images: renders.map((s) => ({ label: `Page ${s.layout.page}`, jpeg: s.render as Buffer })),
      maxTokens: RECIPE_MAX_TOKENS,
      responseFormat: RECIPE_JSON_SCHEMA,
      context: {
        jobId: context.jobId,
        teamId: context.teamId,
        purpose: 'pdf-recipe',
        detail: { pages: samples.map((s) => s.layout.page) },
      },
    });
    const recipe = recipeFromAnswer(parsed(answer.content));
    return recipe ? { recipe } : { failed: 'the answer held no recipe' };
  } catch (err) {
    if (err instanceof AiGatewayError) return { failed: err.message };
    throw err;
  }
}

/** The photos the AI marks on a rendered page; null when it could not be asked or its answer is unreadable. */
export async function markPhotoBoxes(
  context: CallContext,
  page: { page: number; width: number; height: number },
  render: Buffer,
): Promise<MarkedBox[] | null> {
  try {
    const answer = await client().complete({
      system: pageBoxesSystemPrompt(),
      text: pageBoxesUserText(context.document, page),
      images: [{ label: `Page ${page.page}`, jpeg: render }],
      maxTokens: PAGE_BOXES_MAX_TOKENS,
      responseFormat: PAGE_IMAGE_ANSWER_JSON_SCHEMA,
      context: { jobId: context.jobId, teamId: context.teamId, purpose: 'pdf-page-boxes', detail: { page: page.page } },
    });
    return readMarkedBoxes(parsed(answer.content));
  } catch (err) {
    if (err instanceof AiGatewayError) return null;
    throw err;
  }
}
