import { httpEndpoint } from '../../../lib/api/endpoint';
import { exportRoutes } from '../../../lib/exports/routes';
import { requestExport } from '../../../lib/exports/service';

export const handler = httpEndpoint(exportRoutes.jobExcel, ({ identity, params, query }) =>
  requestExport(identity, 'job', params.job_id, 'excel', { approvedOnly: query.approved_only }),
);
