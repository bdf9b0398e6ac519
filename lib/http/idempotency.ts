/**
 * The Idempotency-Key header on create routes (contracts with `idempotent: true`).
 *
 * A request carrying the header runs once per (team, route, key): a retry gets
 * the first answer (status and body) replayed from the table, so nothing is
 * created, reserved or charged twice. The same key with a different request
 * (path, query or body) is refused with 422; a retry while the first request is
 * still running gets 409. Without the header nothing changes. Failed requests
 * (any error) keep no record, so they may be retried with the same key.
 *
 * Records live in the service's one table (lib/db/keys.ts: IDEMPOTENCY) through
 * Powertools' DynamoDB persistence layer and expire after a day through the
 * table's TTL attribute (expires_at, epoch seconds as Powertools writes it).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { settings } from '../config';
import { keys } from '../db/keys';
import { headerValue } from './csrf';
import { conflict, unprocessable } from './errors';
import type { RouteContract } from './route';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a key is remembered. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const MAX_KEY_LENGTH = 255;
// Visible ASCII only: keys are usually UUIDs; anything else is a client bug worth a clear 422.
const KEY_PATTERN = /^[\x21-\x7e]+$/;

type Result = APIGatewayProxyStructuredResultV2;

/** The Idempotency-Key of the request, null without one; 422 for a malformed key. */
export function idempotencyKeyOf(event: APIGatewayProxyEventV2): string | null {
  const raw = headerValue(event, IDEMPOTENCY_HEADER);
  if (raw === undefined) return null;
  const key = raw.trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    const message = `must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters`;
    throw unprocessable(`${IDEMPOTENCY_HEADER} ${message}`, [{ field: `header.${IDEMPOTENCY_HEADER}`, message }]);
  }
  return key;
}

interface KeyedRequest {
  /** Hashed into the record key: the same key from another team or on another route is another record. */
  scope: string;
  /** Hashed into the record for payload validation: the same key with another request is refused. */
  request: unknown;
}

let client: DynamoDBClient | undefined;

/**
 * Builds the runner for one route: `run(...)` executes `produce` at most once
 * per key and returns its result, or the stored result of the first execution.
 */
export function idempotentRunner(route: RouteContract) {
  client ??= new DynamoDBClient({});
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: settings().TABLE_NAME,
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: keys.idempotency('').pk,
    expiryAttr: 'expires_at',
    awsSdkV3Client: client,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'scope',
    payloadValidationJmesPath: 'request',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    hashFunction: 'sha256',
  });
  // A fixed prefix: the route is part of the hashed scope, and the function name differs per stage.
  const once = makeIdempotent(
    async (_keyed: KeyedRequest, _context: Context, produce: () => Promise<Result>): Promise<Result> => produce(),
    { persistenceStore, config, keyPrefix: 'http' },
  );

  return async (
    input: { teamId: string; key: string; request: unknown; context: Context },
    produce: () => Promise<Result>,
  ): Promise<Result> => {
    const keyed: KeyedRequest = {
      scope: JSON.stringify([input.teamId, route.name, input.key]),
      request: input.request ?? null,
    };
    try {
      return await once(keyed, input.context, produce);
    } catch (err) {
      switch ((err as { name?: string } | undefined)?.name) {
        case 'IdempotencyValidationError':
          throw unprocessable(
            `This ${IDEMPOTENCY_HEADER} was already used with a different request; use a new key for a new request`,
          );
        case 'IdempotencyAlreadyInProgressError':
        case 'IdempotencyInconsistentStateError':
          throw conflict(`A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry it shortly`);
        default:
          throw err;
      }
    }
  };
}
