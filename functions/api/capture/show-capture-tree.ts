import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { showCaptureTree } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.tree, ({ identity, params }) =>
  showCaptureTree(identity, params.id, params.aid),
);
