import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { listCaptureAssignments } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.assignments, ({ identity, params, query }) =>
  listCaptureAssignments(identity, params.id, params.tid, query.cursor),
);
