import { defineRoute } from './route';

export const docsRoutes = {
  openapi: defineRoute({
    name: 'openapi', method: 'GET', path: '/api/openapi.json', auth: 'none', tag: 'docs',
    summary: 'This OpenAPI 3.1 document, generated from the validation schemas.', handler: 'api/docs/get-openapi',
  }),
};
