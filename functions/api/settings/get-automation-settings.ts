import { httpEndpoint } from '../../../lib/api/endpoint';
import { getAutomationSettings } from '../../../lib/settings/automation';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.getAutomation, ({ identity }) =>
  getAutomationSettings(identity.team.id),
);
