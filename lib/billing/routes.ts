import * as z from 'zod';
import { defineRoute } from '../http/route';

const billingSummaryResponse = z.object({
  total_spend_usd: z.number().int().describe('Whole credits the team has been billed (the name is historical).'),
  rates: z.object({
    video: z.number().describe('Credits per video block'),
    photo: z.number().describe('Credits per photo AI request'),
    audio: z.number().describe('Credits per audio block'),
  }),
  block_seconds: z.number().int().describe('Length of a billing block in seconds'),
  billing_enabled: z.boolean().describe('Prepaid mode is on'),
  credits_balance: z
    .number()
    .nullable()
    .describe('Balance at the billing service; null with billing off or when it is unreachable'),
  buy_credits_url: z.string().nullable(),
});

export const billingRoutes = {
  summary: defineRoute({
    name: 'getBillingSummary',
    method: 'GET',
    path: '/api/billing/summary',
    auth: 'user',
    tag: 'billing',
    summary:
      "The team's total spend in whole credits, the flat rates and, with prepaid billing on, the credit balance and where to buy credits.",
    handler: 'api/billing/get-summary',
    response: billingSummaryResponse,
  }),
};
