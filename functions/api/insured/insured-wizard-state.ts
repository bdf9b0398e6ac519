import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { showInsuredWizard } from '../../../lib/insured/service';

export const handler = publicEndpoint(insuredRoutes.wizard, ({ params, event }) =>
  showInsuredWizard(params.token, { ip: clientIp(event) }),
);
