/**
 * The per-request output budget of a photo call and its clamps, and when an
 * answer counts as cut short (spec: Output budget and truncation).
 */
import { imageTokens, outputBudget, textTokens, wasCutShort } from '../../../../lib/pipelines/photo/budget-rules';

const config = {
  PHOTO_BUDGET_CREDIT_RATE_USD: 0.1,
  PHOTO_BUDGET_TARGET_MARGIN: 0.8,
  PHOTO_BUDGET_MIN_OUTPUT_TOKENS: 800,
  PHOTO_BUDGET_MAX_OUTPUT_TOKENS: 3500,
  PHOTO_BUDGET_TRUNCATION_RATIO: 0.95,
};

describe('output budget', () => {
  it('is (credit rate x margin - input cost) / $25 per million, input at $5 per million', () => {
    // 4000 chars of text = 1000 tokens; one 1500x750 image = 1500 tokens: 2500 input tokens = $0.0125.
    const budget = outputBudget({ texts: ['x'.repeat(4000)], images: [{ width: 1500, height: 750 }] }, config);
    expect(budget.inputTokens).toBe(2500);
    expect(budget.inputCostUsd).toBeCloseTo(0.0125, 10);
    expect(budget.maxTokens).toBe(Math.floor((0.08 - 0.0125) / 0.000025)); // 2700
  });

  it('clamps to the maximum for a small input and to the minimum for a huge one', () => {
    // With the defaults the budget tops out at $0.08 / $25 per million = 3200 tokens; a dearer credit reaches the clamp.
    expect(outputBudget({ texts: ['short'], images: [] }, config).maxTokens).toBe(3199);
    expect(
      outputBudget({ texts: ['short'], images: [] }, { ...config, PHOTO_BUDGET_CREDIT_RATE_USD: 0.2 }).maxTokens,
    ).toBe(3500);
    const five = Array.from({ length: 5 }, () => ({ width: 1240, height: 927 }));
    expect(outputBudget({ texts: ['x'.repeat(40_000)], images: five }, config).maxTokens).toBe(800);
  });

  it('counts photo tokens on the resized image', () => {
    expect(imageTokens(1568, 733)).toBe(Math.ceil((1568 * 733) / 750));
    expect(textTokens('abcde')).toBe(2);
  });

  it('an answer is cut short on finish_reason length or at the truncation ratio of its budget', () => {
    expect(wasCutShort({ finishReason: 'length', outputTokens: 10 }, 1000, config)).toBe(true);
    expect(wasCutShort({ finishReason: 'stop', outputTokens: 950 }, 1000, config)).toBe(true);
    expect(wasCutShort({ finishReason: 'stop', outputTokens: 949 }, 1000, config)).toBe(false);
  });
});
