import { httpEndpoint } from '../../../lib/api/endpoint';
import { updatePromptSettings } from '../../../lib/settings/prompt-service';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.putPrompts, ({ identity, body }) =>
  updatePromptSettings(identity, body),
);
