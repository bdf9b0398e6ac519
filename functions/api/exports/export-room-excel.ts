import { httpEndpoint } from '../../../lib/api/endpoint';
import { exportRoutes } from '../../../lib/exports/routes';
import { requestExport } from '../../../lib/exports/service';

export const handler = httpEndpoint(exportRoutes.roomExcel, ({ identity, params, query }) =>
  requestExport(identity, 'room', params.room_id, 'excel', { approvedOnly: query.approved_only }),
);
