// Types for emulators.js (plain CommonJS) so TypeScript tests can import it.
import type { EventEmitter } from 'node:events';

export interface Endpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
}

export interface RunningEmulators {
  endpoints: Endpoints;
  /** AWS_ENDPOINT_URL_{DYNAMODB,S3,SQS}, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. */
  env: Record<string, string>;
  /** The s3rver instance; emits 'event' with S3-style object notifications. */
  s3rver: EventEmitter;
  /** Kills DynamoDB Local's process group and closes the servers; safe to call twice. */
  stop(): Promise<void>;
}

export function startEmulators(options?: {
  dataDir?: string;
  ports?: { dynamodb?: number; s3?: number; sqs?: number };
  quiet?: boolean;
}): Promise<RunningEmulators>;
export function assertPortFree(port: number, what: string): Promise<void>;
