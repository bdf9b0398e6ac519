import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { listCaptureMedia } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.media, ({ identity, params, query }) =>
  listCaptureMedia(identity, params.id, params.aid, query.cursor),
);
