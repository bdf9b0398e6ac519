import { httpEndpoint } from '../../../lib/api/endpoint';
import { exportRoutes } from '../../../lib/exports/routes';
import { requestExport } from '../../../lib/exports/service';

export const handler = httpEndpoint(exportRoutes.claimExcel, ({ identity, params, query }) =>
  requestExport(identity, 'claim', params.id, 'excel', { approvedOnly: query.approved_only }),
);
