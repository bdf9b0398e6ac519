import { httpEndpoint } from '../../../lib/api/endpoint';
import { getPromptSettingsView } from '../../../lib/settings/prompts';
import { settingsRoutes } from '../../../lib/settings/routes';

export const handler = httpEndpoint(settingsRoutes.getPrompts, ({ identity }) =>
  getPromptSettingsView(identity.team.id),
);
