import { httpEndpoint } from '../../../lib/api/endpoint';
import { showPromptSettings } from '../../../lib/settings/prompt-service';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.getPrompts, ({ identity }) => showPromptSettings(identity));
