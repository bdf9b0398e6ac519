import { httpEndpoint } from '../../../lib/api/endpoint';
import { showAutomationSettings } from '../../../lib/settings/automation-service';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.getAutomation, ({ identity }) => showAutomationSettings(identity));
