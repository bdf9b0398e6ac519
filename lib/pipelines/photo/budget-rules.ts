/**
 * The output token budget of one photo request, and when an answer counts as
 * cut short (spec: Photo pipeline > Output budget and truncation).
 *
 * Each photo request earns one credit, so what it may spend on output is what
 * is left of the credit's target margin after its input:
 *   input_cost    = input tokens x $5 per million
 *   output_budget = (credit_rate x target_margin - input_cost) / ($25 per million)
 * clamped to [min, max]. Photo tokens are counted on the resized image.
 */
import type { Settings } from '../../config';
import {
  INPUT_USD_PER_MILLION_TOKENS as INPUT_USD_PER_MILLION,
  OUTPUT_USD_PER_MILLION_TOKENS as OUTPUT_USD_PER_MILLION,
} from '../../integrations/ai-usage';

/** Text tokens, estimated at four characters per token. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of one image as sent (width x height / 750, the vision models' per-pixel rate at these sizes). */
export function imageTokens(width: number, height: number): number {
  return Math.ceil((width * height) / 750);
}

export type BudgetSettings = Pick<
  Settings,
  | 'PHOTO_BUDGET_CREDIT_RATE_USD'
  | 'PHOTO_BUDGET_TARGET_MARGIN'
  | 'PHOTO_BUDGET_MIN_OUTPUT_TOKENS'
  | 'PHOTO_BUDGET_MAX_OUTPUT_TOKENS'
  | 'PHOTO_BUDGET_TRUNCATION_RATIO'
>;

export interface BudgetInput {
  /** System prompt, user text and the image labels, as sent. */
  texts: string[];
  /** Resized image sizes. */
  images: { width: number; height: number }[];
}

export interface OutputBudget {
  inputTokens: number;
  inputCostUsd: number;
  /** max_tokens of the request. */
  maxTokens: number;
}

export function outputBudget(input: BudgetInput, config: BudgetSettings): OutputBudget {
  const inputTokens =
    input.texts.reduce((sum, t) => sum + textTokens(t), 0) +
    input.images.reduce((sum, i) => sum + imageTokens(i.width, i.height), 0);
  const inputCostUsd = (inputTokens * INPUT_USD_PER_MILLION) / 1_000_000;
  const raw =
    (config.PHOTO_BUDGET_CREDIT_RATE_USD * config.PHOTO_BUDGET_TARGET_MARGIN - inputCostUsd) /
    (OUTPUT_USD_PER_MILLION / 1_000_000);
  const maxTokens = Math.floor(
    Math.min(config.PHOTO_BUDGET_MAX_OUTPUT_TOKENS, Math.max(config.PHOTO_BUDGET_MIN_OUTPUT_TOKENS, raw)),
  );
  return { inputTokens, inputCostUsd, maxTokens };
}

/** An answer was cut short when the model hit its limit, or used at least the truncation ratio of its budget. */
export function wasCutShort(
  answer: { finishReason: string | null; outputTokens: number },
  maxTokens: number,
  config: Pick<BudgetSettings, 'PHOTO_BUDGET_TRUNCATION_RATIO'>,
): boolean {
  if (answer.finishReason === 'length') return true;
  return answer.outputTokens >= config.PHOTO_BUDGET_TRUNCATION_RATIO * maxTokens;
}
