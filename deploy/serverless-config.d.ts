// Types for serverless-config.js (plain CommonJS) so TypeScript code can import it.

export function loadServerlessConfig(file?: string): Record<string, any>;

/** The resources serverless.yml declares itself (every mapping of its `resources:` list, generated entries skipped). */
export function declaredResources(config: Record<string, any>): Record<string, any>;
