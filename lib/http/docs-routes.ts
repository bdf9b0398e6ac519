import * as z from 'zod';
import type { ApiDescription } from './openapi';
import { defineRoute } from './route';

export const docsRoutes = {
  openapi: defineRoute({
    name: 'openapi',
    method: 'GET',
    path: '/api/openapi.json',
    auth: 'none',
    tag: 'docs',
    summary: 'This OpenAPI 3.1 document, generated from the validation schemas.',
    handler: 'api/docs/get-openapi',
  }),
  // The same document for people (lib/http/api-reference.ts): a page and the files it loads, all from this host.
  reference: defineRoute({
    name: 'apiReference',
    method: 'GET',
    path: '/api/docs',
    auth: 'none',
    tag: 'docs',
    summary:
      'The API reference: this document as a page to read, with its examples and "Try it out" against this host (Swagger UI).',
    handler: 'api/docs/get-reference',
    produces: ['text/html'],
  }),
  referenceAsset: defineRoute({
    name: 'apiReferenceAsset',
    method: 'GET',
    path: '/api/docs/assets/{name}',
    auth: 'none',
    tag: 'docs',
    summary:
      'A script or stylesheet of the API reference page, gzip-compressed when `Accept-Encoding` allows; 304 when `If-None-Match` has its ETag.',
    handler: 'api/docs/get-reference-asset',
    params: z.object({
      name: z.string().max(100).describe('The file: `swagger-ui-bundle.js`, `swagger-ui.css` or `reference.js`.'),
    }),
    produces: ['text/javascript', 'text/css'],
    errors: [304, 404],
    // The swagger-ui-dist files are read at run time; a zip holds the handler's bundle only.
    layers: ['swaggerUi'],
  }),
};

/** The service as the API document describes it; every route's tag must be listed here. */
export const serviceApi: ApiDescription = {
  title: 'Contents Inventory Service',
  version: '0.1.0',
  description: [
    'Turns walkthrough videos, voice notes, photos and vendor PDF contents lists into inventory line items for insurance claims.',
    '',
    'Sign in with the claims platform’s bearer token or its login cookie. Errors are `{"detail": "..."}` with the status code;',
    'validation errors (422) add `errors: [{field, message}]`. Writes signed in by the cookie need an allowed `Origin` or an',
    '`X-Requested-With` header (else 403), and request bodies are JSON (else 415).',
  ].join('\n'),
  contact: { name: 'Contents Inventory Service maintainers' },
  tags: {
    health: 'Liveness and pipeline readiness.',
    docs: 'This API document, as JSON and as a page to read (GET /api/docs).',
    auth: 'The signed-in user, sign-in configuration and hand-offs to the estimation platform.',
    claims: 'Insurance claims: create, list, rename, archive and delete.',
    rooms: 'Rooms of a claim, which jobs and items belong to.',
    activity: 'The team’s activity feed and undo.',
    jobs: 'Processing jobs: quotes, runs, progress events, logs, media and staged photos.',
    admin:
      'The admin dashboard: every team’s usage, jobs, media, activity and AI calls; users and impersonation; component overrides; admin-only actions on any team’s resources.',
    uploads: 'Video, audio and photo uploads straight to storage through presigned URLs.',
    imports: 'Imports into a claim (PDF contents lists), their progress and retries.',
    inventory:
      'Inventory line items: review, edit, approve, archive, merge, photos, manual adds and deletes (undoable).',
    sends:
      'Sending a claim’s items to the estimation platform and the claims platform: quotes, pricing choices, the send itself and its history.',
    integrations:
      'The capture source (an external field-capture system): the team’s connection (its organisation token is stored, never answered) and browsing its teams, assignments and media through the connection.',
    training:
      'The training sandbox: missions on a sandbox claim that costs nothing and contacts no one, quizzes, checks graded from the claim’s records, points, badges and verifiable certificates. Hidden unless the team’s training flag is on.',
    insured:
      'The homeowner self-service link: invitations (adjuster side) and the public wizard under /api/public/insured, whose token in the path is the credential.',
    exports: 'Excel, CSV and PDF exports of a job, room or claim, built in the background and downloaded from storage.',
    dashboard: 'Team metrics for the dashboard.',
    billing: 'The team’s credit balance and usage.',
    settings: 'Team settings: prompt presets and auto-approval rules.',
  },
};
