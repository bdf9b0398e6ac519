import { httpEndpoint } from '../../../lib/http/endpoint';
import { updatePromptSettings } from '../../../lib/settings/prompts';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.putPrompts, ({ identity, body }) => updatePromptSettings(identity, body));
