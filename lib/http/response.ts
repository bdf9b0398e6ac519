/** What a handler may return besides a plain JSON-able value. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export class HttpResponse {
  /** A Buffer body is sent as it is (base64 to API Gateway), with the content type its headers name. */
  constructor(
    readonly statusCode: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}

  static redirect(location: string, status = 302): HttpResponse {
    return new HttpResponse(status, undefined, { location, 'cache-control': 'no-store' });
  }

  static noContent(): HttpResponse {
    return new HttpResponse(204);
  }
}

export function toResult(value: unknown, successStatus = 200): APIGatewayProxyStructuredResultV2 {
  if (value instanceof HttpResponse && Buffer.isBuffer(value.body)) {
    return {
      statusCode: value.statusCode,
      headers: value.headers,
      body: value.body.toString('base64'),
      isBase64Encoded: true,
    };
  }
  if (value instanceof HttpResponse) {
    const hasBody = value.body !== undefined;
    return {
      statusCode: value.statusCode,
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...value.headers },
      body: hasBody ? (typeof value.body === 'string' ? value.body : JSON.stringify(value.body)) : '',
    };
  }
  return {
    statusCode: successStatus,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value ?? null),
  };
}

export function jsonError(
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
