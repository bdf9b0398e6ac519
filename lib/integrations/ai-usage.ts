/**
 * What an AI gateway call costs: the fallback prices, and the token usage and
 * dollar cost an answer reports (the gateway's own cost when it gives one).
 */

/** Prices used when the gateway does not report a cost; the photo output budget uses the same. */
export const INPUT_USD_PER_MILLION_TOKENS = 5;
export const OUTPUT_USD_PER_MILLION_TOKENS = 25;

/** Usage summed over the answered attempts of one call. */
export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Dollars for a token count at the fallback prices. */
export function tokenCostUsd(inputTokens: number, outputTokens: number): number {
  return (inputTokens * INPUT_USD_PER_MILLION_TOKENS + outputTokens * OUTPUT_USD_PER_MILLION_TOKENS) / 1_000_000;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** Usage of one answer; the gateway's own cost when it reports one. */
export function usageOf(body: unknown): AiUsage | null {
  if (!isRecord(body) || !isRecord(body.usage)) return null;
  const inputTokens = count(body.usage.prompt_tokens);
  const outputTokens = count(body.usage.completion_tokens);
  const cost = body.usage.cost;
  const costUsd =
    typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : tokenCostUsd(inputTokens, outputTokens);
  return { inputTokens, outputTokens, costUsd };
}
