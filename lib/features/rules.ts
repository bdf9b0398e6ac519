/**
 * Toggleable components (spec: Team feature flags; Admin components).
 * Resolution order: team override, then global override, then registry default.
 * Pure: no I/O.
 */

export const COMPONENT_DEFAULTS = {
  training: false,
  claims_platform: false,
  estimation_platform: true,
  enterprise: false,
} as const;

type Component = keyof typeof COMPONENT_DEFAULTS;
export type Features = Record<Component, boolean>;
const COMPONENTS = Object.keys(COMPONENT_DEFAULTS) as Component[];

export type Overrides = Partial<Record<Component, boolean>>;

export function resolveComponents(globalOverrides: Overrides, teamOverrides: Overrides): Features {
  const out = {} as Features;
  for (const c of COMPONENTS) out[c] = teamOverrides[c] ?? globalOverrides[c] ?? COMPONENT_DEFAULTS[c];
  return out;
}
