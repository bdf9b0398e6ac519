import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { showCaptureTree } from '../../../lib/capture/service';

export const handler = httpEndpoint(captureRoutes.tree, ({ identity, params }) =>
  showCaptureTree(identity, params.id, params.aid),
);
