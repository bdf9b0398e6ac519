// Types for provision.js (plain CommonJS) so TypeScript code can import it.

export interface ResourceNames {
  table: string;
  bucket: string;
  queuePrefix: string;
}

export interface CreatedResource {
  type: string;
  /** What CloudFormation's Ref returns: table name, bucket name or queue URL. */
  ref: string;
  /** GetAtt values, e.g. Arn. */
  attributes: Record<string, string>;
}

export function provision(options: {
  stage: string;
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
}): Promise<{ names: ResourceNames; resources: Record<string, CreatedResource> }>;

export function resourceNames(options: { stage: string; env?: Record<string, string | undefined> }): ResourceNames;
