import { httpEndpoint } from '../../../lib/api/endpoint';
import { startCaptureImport } from '../../../lib/imports/capture/import-service';
import { captureRoutes } from '../../../lib/imports/capture/routes';

export const handler = httpEndpoint(captureRoutes.import, ({ identity, params, body }) =>
  startCaptureImport(identity, params.id, body),
);
