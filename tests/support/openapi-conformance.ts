/**
 * Every answer the service tests get through tests/support/api.ts is checked against the OpenAPI document the
 * service serves (GET /api/openapi.json, what the SPA engineers read): the operation is found by method and path
 * template, and the status must be one the operation lists, with a body that matches its schema for that status and
 * media type. A test file that saw a mismatch fails after its tests with the list (tests/support/conformance-setup.ts).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

interface MediaTypeObject {
  schema?: unknown;
}

interface ResponseObject {
  description?: string;
  content?: Record<string, MediaTypeObject>;
}

interface OperationObject {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: unknown;
}

/** One answer as the client saw it. */
export interface Answer {
  method: string;
  /** The request path, query string allowed. */
  path: string;
  status: number;
  contentType: string | null;
  /** The body as text. */
  text: string;
  /** Bytes of the request's body (absent: none, or not known). */
  requestBytes?: number;
}

/** API Gateway's limit on a request body: past it the gateway answers 413 itself, before any function runs. */
const GATEWAY_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export interface Mismatch {
  /** operationId (METHOD template), or the request when no operation matches. */
  operation: string;
  status: number;
  problems: string[];
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
/** A few ajv errors say what is wrong; all of them bury it. */
const ERRORS_SHOWN = 5;
const DOCUMENT_ID = 'openapi.json';

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  /** Path segments without a parameter: the gateway prefers /api/jobs/active over /api/jobs/{id}. */
  literals: number;
  operation: OperationObject;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function templatePattern(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) => {
      const param = /^\{([^}]+?)(\+)?\}$/.exec(segment);
      if (!param) return escapeRegExp(segment);
      return param[2] ? '.+' : '[^/]+';
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/** A JSON pointer segment as a URI fragment holds it. */
const pointerSegment = (key: string) => encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1'));

const mediaEssence = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(body)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

/** Checks answers against one OpenAPI 3.1 document; schemas are compiled on first use. */
export class ConformanceChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly routes: Route[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    addFormats(this.ajv);
    // The whole document, so a schema's '#/components/...' references resolve against it.
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item)) {
        if (!OPERATION_METHODS.has(method)) continue;
        this.routes.push({
          method: method.toUpperCase(),
          template,
          pattern: templatePattern(template),
          literals: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
          operation,
        });
      }
    }
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  /** The operation a request reaches: its method, and the most specific template its path matches. */
  operationFor(method: string, path: string): { template: string; operation: OperationObject } | undefined {
    // As the request went out: fetch resolves '.' and '..' segments before sending.
    const bare = new URL(path.split(/[?#]/)[0], 'http://service.invalid').pathname;
    const route = this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(bare));
    return route && { template: route.template, operation: route.operation };
  }

  /** What is wrong with one answer; null when it conforms. */
  check(answer: Answer): Mismatch | null {
    const method = answer.method.toUpperCase();
    const found = this.operationFor(method, answer.path);
    if (!found) {
      // A path no route has is refused by the gateway itself (404, or 400 for one it cannot parse): no operation
      // answers it, so the document cannot describe it. Anything else there is a route the document is missing.
      if (answer.status >= 400 && answer.status < 500) return null;
      return {
        operation: `${method} ${answer.path.split('?')[0]}`,
        status: answer.status,
        problems: ['no operation in the document has this method and path'],
      };
    }
    const { template, operation } = found;
    const label = `${operation.operationId ?? '(no operationId)'} (${method} ${template})`;
    const mismatch = (...problems: string[]): Mismatch => ({ operation: label, status: answer.status, problems });
    const responses = operation.responses ?? {};
    const statusKey = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find(
      (key) => key in responses,
    );
    if (!statusKey)
      return mismatch(`status ${answer.status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    if (answer.status >= 300 && answer.status < 400) return null;
    const content = responses[statusKey].content;
    if (!content) return null;
    const mediaType = mediaEssence(answer.contentType);
    const documented = Object.keys(content);
    const key =
      documented.find((type) => type.toLowerCase() === mediaType) ??
      (isJson(mediaType) ? documented.find((type) => type.toLowerCase() === 'application/json') : undefined);
    if (!key)
      return mismatch(
        `media type ${mediaType || '(none)'} is not documented for status ${statusKey} (documented: ${documented.join(', ')})`,
      );
    if (content[key].schema === undefined) return null;
    let body: unknown = answer.text;
    if (isJson(key.toLowerCase())) {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return mismatch(`the body is not JSON: ${answer.text.slice(0, 80)}`);
      }
    }
    const validate = this.validatorOf(template, method, statusKey, key);
    if (validate(body)) return null;
    const errors = validate.errors ?? [];
    const problems = errors.slice(0, ERRORS_SHOWN).map(describeError);
    if (errors.length > ERRORS_SHOWN) problems.push(`… and ${errors.length - ERRORS_SHOWN} more`);
    return mismatch(...problems);
  }

  private validatorOf(template: string, method: string, status: string, mediaType: string): ValidateFunction {
    const pointer = ['paths', template, method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema']
      .map(pointerSegment)
      .join('/');
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

/** A readable list of a test file's mismatches, one paragraph per operation and status, each request once. */
export function mismatchReport(found: readonly (Mismatch & { request: string })[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const m of found) {
    const key = `${m.operation} ${m.status} ${m.problems.join('|')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`- ${m.operation} answered ${m.status} to ${m.request}:`, ...m.problems.map((p) => `    ${p}`));
  }
  return `${seen.size} answer(s) do not match the API document (GET /api/openapi.json):\n${lines.join('\n')}`;
}

// One test file's state: jest gives each test file its own module registry.
let checking = false;
/** A test of this file armed a fault point (tests/support/fault-points.ts). */
let crashesArmed = false;
let checker: Promise<ConformanceChecker> | undefined;
const found: (Mismatch & { request: string })[] = [];

/**
 * A test armed a fault point: an invocation that ends there ends as a crash
 * would, and the HTTP layer answers it as it answers any crash (500,
 * "Internal server error"), which no operation documents. Only that answer is
 * let through, and only in a file that armed one.
 */
export function expectCrashAnswers(): void {
  crashesArmed = true;
}

function isCrashAnswer(answer: Answer): boolean {
  if (answer.status !== 500) return false;
  try {
    const body = JSON.parse(answer.text) as { detail?: unknown };
    return Object.keys(body).length === 1 && body.detail === 'Internal server error';
  } catch {
    return false;
  }
}

/** Turns the check on for this test file (the service project's setup file does). */
export function checkAnswersAgainstDocument(): void {
  checking = true;
}

async function loadChecker(): Promise<ConformanceChecker> {
  const url = process.env.TEST_SERVICE_URL;
  if (!url) throw new Error('TEST_SERVICE_URL is not set');
  const res = await fetch(`${url}/api/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
  return new ConformanceChecker((await res.json()) as OpenApiDocument);
}

/** Checks one answer the tests got from the service, when the check is on. */
export async function recordAnswer(answer: Answer): Promise<void> {
  // A CORS preflight is answered by the gateway's CORS settings, not by an operation.
  if (!checking || answer.method.toUpperCase() === 'OPTIONS') return;
  if (crashesArmed && isCrashAnswer(answer)) return;
  if (answer.status === 413 && (answer.requestBytes ?? 0) > GATEWAY_BODY_LIMIT_BYTES) return;
  const request = `${answer.method.toUpperCase()} ${answer.path}`;
  let mismatch: Mismatch | null;
  try {
    checker ??= loadChecker();
    mismatch = (await checker).check(answer);
  } catch (err) {
    checker = undefined;
    mismatch = { operation: 'the API document', status: answer.status, problems: [`not checked: ${String(err)}`] };
  }
  if (mismatch) found.push({ ...mismatch, request });
}

/** The test file's mismatches as a readable list; null when every answer conformed. */
export function conformanceReport(): string | null {
  return found.length ? mismatchReport(found) : null;
}
