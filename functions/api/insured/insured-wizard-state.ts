import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { showInsuredWizard } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.wizard, ({ params, event }) =>
  showInsuredWizard(params.token, { ip: clientIp(event) }),
);
