/**
 * Request authentication for the local S3 (s3rver), enforced as S3 does it,
 * so a presigned URL or POST policy that AWS would refuse is refused locally
 * too. The patched s3rver (patches/s3rver+3.7.1.patch) calls:
 *
 * - verifyRequest(ctx) before routing: SigV4 header-signed requests
 *   (Authorization: AWS4-HMAC-SHA256) and presigned query strings are
 *   recomputed with @smithy/signature-v4 and compared; presigned URLs expire
 *   after X-Amz-Expires; anonymous requests are denied (the bucket is
 *   private), except CORS preflights and browser POST uploads, which carry
 *   their own signed policy.
 * - verifyPostPolicy({ bucket, fields }) for a browser POST upload: the
 *   policy's signature, expiry and every condition against the form fields.
 *   It returns the content-length-range for the caller to check once it
 *   knows the file's size.
 *
 * Payload hashes are taken from x-amz-content-sha256 as signed; the body is
 * not hashed, and the chunk signatures of STREAMING-AWS4-HMAC-SHA256-PAYLOAD
 * bodies are not checked.
 */

const { SignatureV4 } = require('@smithy/signature-v4');
const { Hash } = require('@smithy/hash-node');
const S3Error = require('s3rver/lib/models/error');

const ALGORITHM = 'AWS4-HMAC-SHA256';
const SERVICE = 's3';
const MAX_PRESIGNED_TTL_SECONDS = 7 * 24 * 3600;
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
// What presign() adds to the query itself; the rest of the query is signed as received.
const PRESIGN_QUERY_PARAMS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Signature',
];
// Form fields a POST policy need not (and cannot) mention.
const UNCONDITIONED_POST_FIELDS = new Set(['x-amz-signature', 'policy', 'file']);

const signatureMismatch = () =>
  new S3Error(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. ' +
      'Check your key and signing method.',
  );
const accessDenied = (message = 'Access Denied') => new S3Error('AccessDenied', message);
const policyDenied = (detail) => new S3Error('AccessDenied', `Invalid according to Policy: ${detail}`);

/**
 * @param {{ credentials: { accessKeyId: string, secretAccessKey: string }, region: string }} options
 *   the one key pair the emulator accepts and the region it serves
 */
function createS3Authenticator({ credentials, region }) {
  const signer = new SignatureV4({
    credentials,
    region,
    service: SERVICE,
    sha256: Hash.bind(null, 'sha256'),
    // S3 signs the path as sent, without escaping it a second time.
    uriEscapePath: false,
    applyChecksum: false,
  });

  /** A credential scope "<key>/<yyyymmdd>/<region>/s3/aws4_request" naming our key, region and service. */
  function checkCredential(credential, amzDate) {
    const [accessKeyId, date, scopeRegion, service, terminator] = String(credential || '').split('/');
    if (accessKeyId !== credentials.accessKeyId) {
      throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
        AWSAccessKeyId: accessKeyId,
      });
    }
    if (scopeRegion !== region || service !== SERVICE || terminator !== 'aws4_request') {
      throw new S3Error(
        'AuthorizationHeaderMalformed',
        `The authorization header is malformed; the credential scope '${credential}' is wrong; expecting '<date>/${region}/${SERVICE}/aws4_request'`,
      );
    }
    if (amzDate !== undefined && date !== String(amzDate).slice(0, 8)) throw signatureMismatch();
    return { date };
  }

  /** @param {import('koa').Context} ctx */
  async function verifyRequest(ctx) {
    // CORS preflights are never authenticated, even when sent to a presigned URL.
    if (ctx.method === 'OPTIONS') return;
    const query = parseQuery(ctx.req.url);
    const authorization = ctx.req.headers.authorization;
    if (authorization !== undefined) {
      if (/^AWS4-HMAC-SHA256 /.test(authorization)) await verifyHeaderSigned(ctx, authorization, query);
      // Signature V2 ("AWS key:signature") is verified by s3rver itself.
      return;
    }
    if (query.has('X-Amz-Algorithm')) return verifyPresigned(ctx, query);
    if (query.has('Signature')) return; // V2 query string: s3rver verifies it
    // A browser POST upload is authorised by its policy (verifyPostPolicy).
    const isPostUpload =
      ctx.method === 'POST' && /^\/[^/]+\/?$/.test(pathOf(ctx.req.url)) && ctx.is('multipart/form-data');
    if (!isPostUpload) throw accessDenied();
  }

  async function verifyHeaderSigned(ctx, authorization, query) {
    const parts = Object.fromEntries(
      authorization
        .slice(ALGORITHM.length + 1)
        .split(',')
        .map((part) => part.trim().split('='))
        .map(([name, ...value]) => [name, value.join('=')]),
    );
    if (!parts.Credential || !parts.SignedHeaders || !parts.Signature) {
      throw new S3Error(
        'AuthorizationHeaderMalformed',
        'The authorization header is malformed; the authorization header requires three components: Credential, SignedHeaders, and Signature.',
      );
    }
    const received = headersOf(ctx.req);
    const amzDate = received['x-amz-date'];
    const signingDate = parseAmzDate(amzDate);
    if (!signingDate) throw accessDenied('AWS authentication requires a valid Date or x-amz-date header');
    checkCredential(parts.Credential, amzDate);
    if (received['x-amz-content-sha256'] === undefined) {
      throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    }
    const signedHeaders = parts.SignedHeaders.split(';');
    if (!signedHeaders.includes('host')) throw signatureMismatch();
    const signed = await signer.sign(
      {
        method: ctx.method,
        protocol: 'http:',
        hostname: '',
        path: pathOf(ctx.req.url),
        query: queryObject(query),
        // x-amz-content-sha256 is always present: it supplies the payload hash even if unsigned.
        headers: pick(received, [...signedHeaders, 'x-amz-content-sha256']),
      },
      { signingDate, ...signableOptions(received, signedHeaders) },
    );
    const recomputed = /Signature=([0-9a-f]+)/.exec(signed.headers.authorization)?.[1];
    const recomputedHeaders = /SignedHeaders=([^,]+)/.exec(signed.headers.authorization)?.[1];
    if (recomputed !== parts.Signature || recomputedHeaders !== parts.SignedHeaders) throw signatureMismatch();
  }

  async function verifyPresigned(ctx, query) {
    if (query.get('X-Amz-Algorithm') !== ALGORITHM) {
      throw new S3Error('AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    }
    const missing = PRESIGN_QUERY_PARAMS.filter((name) => !query.has(name));
    if (missing.length) {
      throw new S3Error(
        'AuthorizationQueryParametersError',
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    }
    const amzDate = query.get('X-Amz-Date');
    const signingDate = parseAmzDate(amzDate);
    if (!signingDate) {
      throw new S3Error(
        'AuthorizationQueryParametersError',
        "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
      );
    }
    const expiresIn = Number(query.get('X-Amz-Expires'));
    if (!/^\d+$/.test(query.get('X-Amz-Expires')) || expiresIn > MAX_PRESIGNED_TTL_SECONDS) {
      throw new S3Error(
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be a non-negative integer less than a week (604800 seconds)',
      );
    }
    checkCredential(query.get('X-Amz-Credential'), amzDate);
    const expires = new Date(signingDate.getTime() + expiresIn * 1000);
    if (Date.now() > expires.getTime()) {
      throw new S3Error('AccessDenied', 'Request has expired', {
        'X-Amz-Expires': String(expiresIn),
        Expires: isoSeconds(expires),
        ServerTime: isoSeconds(new Date()),
      });
    }

    const received = headersOf(ctx.req);
    const signedHeaders = query.get('X-Amz-SignedHeaders').split(';');
    if (!signedHeaders.includes('host')) throw signatureMismatch();
    const unsignedQuery = new URLSearchParams(query);
    for (const name of PRESIGN_QUERY_PARAMS) unsignedQuery.delete(name);
    const headers = pick(received, signedHeaders);
    // Presigned requests carry no payload hash of their own.
    headers['x-amz-content-sha256'] ??= UNSIGNED_PAYLOAD;
    const presigned = await signer.presign(
      {
        method: ctx.method,
        protocol: 'http:',
        hostname: '',
        path: pathOf(ctx.req.url),
        query: queryObject(unsignedQuery),
        headers,
      },
      {
        signingDate,
        expiresIn,
        // Keep every received header where it was sent.
        unhoistableHeaders: new Set(Object.keys(headers)),
        ...signableOptions(headers, signedHeaders),
      },
    );
    if (
      presigned.query['X-Amz-Signature'] !== query.get('X-Amz-Signature') ||
      presigned.query['X-Amz-SignedHeaders'] !== query.get('X-Amz-SignedHeaders')
    ) {
      throw signatureMismatch();
    }
  }

  /**
   * A browser POST upload's policy: signature, expiry and conditions.
   *
   * @param {{ bucket: string, fields: Record<string, string> }} upload every form field before the file
   * @returns {Promise<{ min: number, max: number } | null>} the content-length-range, if any
   */
  async function verifyPostPolicy({ bucket, fields }) {
    const form = new Map(Object.entries(fields).map(([name, value]) => [name.toLowerCase(), String(value)]));
    const policy = form.get('policy');
    if (policy === undefined) throw accessDenied();
    if (form.get('x-amz-algorithm') !== ALGORITHM) {
      throw new S3Error('InvalidArgument', 'Form field x-amz-algorithm must be AWS4-HMAC-SHA256', {
        ArgumentName: 'x-amz-algorithm',
        ArgumentValue: form.get('x-amz-algorithm') ?? '',
      });
    }
    const amzDate = form.get('x-amz-date');
    if (!parseAmzDate(amzDate) || !form.has('x-amz-credential') || !form.has('x-amz-signature')) {
      throw new S3Error('InvalidArgument', 'POST requires the x-amz-credential, x-amz-date and x-amz-signature fields');
    }
    const { date } = checkCredential(form.get('x-amz-credential'), amzDate);
    // The policy is signed with the signing key of the credential's day.
    const signature = await signer.sign(policy, { signingDate: parseAmzDate(`${date}T000000Z`) });
    if (signature !== form.get('x-amz-signature')) throw signatureMismatch();

    const document = parsePolicy(policy);
    const expiration = new Date(document.expiration);
    if (!(expiration.getTime() > Date.now())) throw policyDenied('Policy expired.');

    const values = new Map(form);
    values.set('bucket', bucket);
    const covered = new Set();
    let range = null;
    for (const condition of document.conditions) {
      const check = normalizeCondition(condition);
      if (check.op === 'content-length-range') {
        range = { min: check.min, max: check.max };
        continue;
      }
      covered.add(check.field);
      const value = values.get(check.field) ?? '';
      const holds = check.op === 'eq' ? value === check.value : value.startsWith(check.value);
      if (!holds) throw policyDenied(`Policy Condition failed: ${JSON.stringify(condition)}`);
    }
    const extra = [...form.keys()].filter(
      (name) => !covered.has(name) && !UNCONDITIONED_POST_FIELDS.has(name) && !name.startsWith('x-ignore-'),
    );
    if (extra.length) throw policyDenied(`Extra input fields: ${extra.join(', ')}`);
    return range;
  }

  return { verifyRequest, verifyPostPolicy };
}

/** The policy document, or InvalidPolicyDocument. */
function parsePolicy(policy) {
  let document;
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    throw new S3Error('InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  if (!document || typeof document.expiration !== 'string' || !Array.isArray(document.conditions)) {
    throw new S3Error('InvalidPolicyDocument', 'Invalid Policy: Policy missing expiration or conditions.');
  }
  return document;
}

/** One policy condition as { op, field, value } or a content-length-range. */
function normalizeCondition(condition) {
  const invalid = () =>
    new S3Error('InvalidPolicyDocument', `Invalid Policy: Invalid Condition: ${JSON.stringify(condition)}`);
  if (Array.isArray(condition)) {
    const op = String(condition[0]).toLowerCase();
    if (op === 'content-length-range') {
      const [min, max] = [Number(condition[1]), Number(condition[2])];
      if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) throw invalid();
      return { op, min, max };
    }
    if ((op === 'eq' || op === 'starts-with') && typeof condition[1] === 'string' && condition[1].startsWith('$')) {
      return { op, field: condition[1].slice(1).toLowerCase(), value: String(condition[2] ?? '') };
    }
    throw invalid();
  }
  if (condition && typeof condition === 'object' && Object.keys(condition).length === 1) {
    const [[field, value]] = Object.entries(condition);
    return { op: 'eq', field: field.toLowerCase(), value: String(value) };
  }
  throw invalid();
}

/** Signs exactly the headers the client named: no more, no fewer. */
function signableOptions(headers, signedHeaders) {
  const signable = new Set(signedHeaders);
  return {
    signableHeaders: signable,
    unsignableHeaders: new Set(Object.keys(headers).filter((name) => !signable.has(name))),
  };
}

/** The request's headers as received (s3rver later copies x-amz-* query parameters into ctx.headers). */
function headersOf(req) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    headers[name] = name in headers ? `${headers[name]},${req.rawHeaders[i + 1]}` : req.rawHeaders[i + 1];
  }
  return headers;
}

function pick(headers, names) {
  return Object.fromEntries(names.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}

/** The raw (still percent-encoded) path: what the client signed. */
function pathOf(url) {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The query as received, decoded once ("+" is a literal plus in S3 query strings). */
function parseQuery(url) {
  const q = url.indexOf('?');
  const params = new URLSearchParams();
  if (q === -1) return params;
  for (const pair of url.slice(q + 1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const [name, value] = eq === -1 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    try {
      params.append(decodeURIComponent(name), decodeURIComponent(value));
    } catch {
      throw new S3Error('InvalidArgument', 'The query string is not correctly percent-encoded');
    }
  }
  return params;
}

/** URLSearchParams as the signer's query object (repeated names become arrays). */
function queryObject(params) {
  /** @type {Record<string, string | string[]>} */
  const query = {};
  for (const [name, value] of params) {
    const existing = query[name];
    query[name] = existing === undefined ? value : [].concat(existing, value);
  }
  return query;
}

/** "20240102T030405Z" → Date, or null. */
function parseAmzDate(value) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(String(value ?? ''));
  if (!m) return null;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

const isoSeconds = (date) => date.toISOString().replace(/\.\d+/, '');

module.exports = { createS3Authenticator };
