import { httpEndpoint } from '../../../lib/api/endpoint';
import { exportRoutes } from '../../../lib/exports/routes';
import { showExport } from '../../../lib/exports/service';

export const handler = httpEndpoint(exportRoutes.status, ({ identity, params }) =>
  showExport(identity, params.export_id),
);
