/**
 * Covers: lib/claims/view.ts, the api-requests schema (lib/admin/schemas.ts), the statuses of the public homeowner
 * routes (lib/insured/routes.ts) and the capture-source webhook (lib/imports/capture/routes.ts): what they answer matches
 * the API document as GET /api/openapi.json serves it.
 */
import { apiRequestsExamples } from '../../../lib/admin/examples';
import { routeTable } from '../../../lib/api/route-table';
import type { Claim } from '../../../lib/claims/claim-record-rules';
import { claimView } from '../../../lib/claims/view';
import { serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';
import { aiRequestRecord } from '../../../lib/jobs/ai-request-store';
import { ConformanceChecker, type OpenApiDocument } from '../../support/openapi-conformance';

const checker = new ConformanceChecker(openApiDocument(routeTable, serviceApi) as unknown as OpenApiDocument);
const answer = (method: string, path: string, status: number, body: unknown) => ({
  method,
  path,
  status,
  contentType: 'application/json',
  text: JSON.stringify(body),
});

const CLAIM_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

/** A claim row as the store reads it: the claim's fields and the item-numbering bookkeeping kept on the same row. */
const storedClaim = {
  id: CLAIM_ID,
  team_id: 'team-1',
  created_by_user_id: 'user-1',
  claim_number: 'CLM-1',
  insured_name: null,
  loss_type: 'Fire',
  coverage_type: 'RCV',
  claim_type: null,
  zip_code: null,
  adjuster_name: null,
  is_archived: false,
  archived_at: null,
  submitted_at: null,
  is_training: false,
  estimation_claim_key: null,
  estimation_claim_id: null,
  estimation_submitted_at: null,
  estimation_items_unlocked: false,
  spend_credits: 3.4,
  created_at: '2026-03-14T09:00:00.000Z',
  updated_at: '2026-03-14T09:00:00.000Z',
  item_number_max: 12,
  numbering_seq: 4,
  numbering_written_at: 1773478800000,
  numbering_lease: { holder: 'run-1', expires_at: 1773478860000, pending_plan: null },
} as Claim;

describe('claimView', () => {
  it('answers the documented claim, without the numbering bookkeeping of its row', () => {
    const view = claimView(storedClaim);
    expect(view).not.toHaveProperty('item_number_max');
    expect(view).not.toHaveProperty('numbering_lease');
    expect(view.spend_usd).toBe(3);
    expect(checker.check(answer('GET', `/api/claims/${CLAIM_ID}`, 200, view))).toBeNull();
    expect(checker.check(answer('GET', '/api/claims', 200, [view]))).toBeNull();
    expect(
      checker.check(answer('POST', `/api/claims/${CLAIM_ID}/estimation-platform-item-lock`, 200, view)),
    ).toBeNull();
  });
});

describe('GET /api/admin/api-requests', () => {
  it('documents every field of a request record', () => {
    const { job_id, team_id, ...record } = aiRequestRecord({
      context: { jobId: 'job-1', teamId: 'team-1', purpose: 'photo-group', detail: { group_index: 0, pass: 1 } },
      model: 'google/gemini-2.5-flash',
      startedAt: new Date('2026-03-14T09:12:31.870Z'),
      latencyMs: 2210,
      outcome: 'failed',
      failureKind: 'http',
      httpStatus: 400,
      errorMessage: 'Provider returned error',
      attempts: 4,
      usage: { inputTokens: 3120, outputTokens: 0, costUsd: 0 },
      finishReason: null,
      maxTokens: 8192,
      temperature: 0.2,
      request: {
        system: 'Group the photos.',
        text: 'Group these 1 photos.',
        images: [{ label: 'garage-01.jpg', jpeg: Buffer.from('jpeg') }],
        responseFormat: { name: 'groups', schema: { type: 'object' } },
      },
      content: null,
    } as Parameters<typeof aiRequestRecord>[0]);
    void job_id;
    void team_id;
    const page = apiRequestsExamples.response.oneJob.value as { jobs: { requests: unknown[] }[] };
    const body = { ...page, jobs: [{ ...page.jobs[0], requests: [record] }] };
    expect(checker.check(answer('GET', '/api/admin/api-requests', 200, body))).toBeNull();
  });
});

describe('error statuses', () => {
  it.each([
    ['GET', '/api/public/insured/tok'],
    ['POST', '/api/public/insured/tok/identify'],
    ['POST', '/api/public/insured/tok/rooms'],
  ])('%s %s may answer 429 (the link’s rate limit)', (method, path) => {
    expect(checker.check(answer(method, path, 429, { detail: 'Too many requests on this link' }))).toBeNull();
  });

  it('a reference asset may answer 304 without a body', () => {
    const notModified = {
      method: 'GET',
      path: '/api/docs/assets/swagger-ui.css',
      status: 304,
      contentType: null,
      text: '',
    };
    expect(checker.check(notModified)).toBeNull();
  });

  it('the capture-source webhook may answer 422 for an event that is not an object', () => {
    const body = { detail: 'The event lacks its id, type or org_id.' };
    expect(checker.check(answer('POST', '/api/integrations/capture-source/webhook', 422, body))).toBeNull();
  });
});
