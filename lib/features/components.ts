/**
 * Toggleable components (spec: Team feature flags; Admin components).
 * Resolution order: team override, then global override, then registry default.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';

export const COMPONENT_DEFAULTS = {
  training: false,
  claims_platform: false,
  estimation_platform: true,
  enterprise: false,
} as const;

export type Component = keyof typeof COMPONENT_DEFAULTS;
export type Features = Record<Component, boolean>;
export const COMPONENTS = Object.keys(COMPONENT_DEFAULTS) as Component[];

type Overrides = Partial<Record<Component, boolean>>;

export function resolveComponents(globalOverrides: Overrides, teamOverrides: Overrides): Features {
  const out = {} as Features;
  for (const c of COMPONENTS) out[c] = teamOverrides[c] ?? globalOverrides[c] ?? COMPONENT_DEFAULTS[c];
  return out;
}

export async function teamFeatures(teamId: string): Promise<Features> {
  const globalKey = keys.components(null);
  const teamKey = keys.components(teamId);
  const { Responses } = await db().send(
    new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [globalKey, teamKey] } } }),
  );
  const rows = Responses?.[tableName()] ?? [];
  const find = (sk: string) => (rows.find((r) => r.sk === sk)?.visible ?? {}) as Overrides;
  return resolveComponents(find(globalKey.sk), find(teamKey.sk));
}
