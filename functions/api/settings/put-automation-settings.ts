import { httpEndpoint } from '../../../lib/api/endpoint';
import { updateAutomationSettings } from '../../../lib/settings/automation-service';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.putAutomation, ({ identity, body }) =>
  updateAutomationSettings(identity, body),
);
