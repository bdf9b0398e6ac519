/**
 * Client of the capture source's API, the field-capture system whose media
 * (photos, videos, voice notes taken on site) this service imports into
 * claims. The spec names the calls but does not publish the API, so this
 * comment is the contract's one written definition
 * (tests/fakes/capture-source-server.ts speaks it too).
 *
 * Base URL: CAPTURE_SOURCE_API_BASE_URL (empty disables the integration), a
 * bare domain (https assumed) or a full base URL. Every call authenticates as
 * the organisation with its org token: `Authorization: Bearer <org_token>`.
 * JSON in and out. Lists are cursor-paginated: `?cursor=` (absent for the
 * first page) and `?limit=` (1-200, default 50); an answer's `next_cursor`
 * is null on the last page.
 *
 *   GET /v1/whoami
 *     200  {org: {id, name}, user: {id, name, email}}
 *     Who the token belongs to: the organisation (its id is the connection's
 *     external_account_id) and the user who made the token.
 *
 *   GET /v1/teams
 *     200  {data: [{id, name}], next_cursor}
 *
 *   GET /v1/teams/{team_id}/assignments
 *     200  {data: [{id, reference, title, status: 'open' | 'closed', created_at, updated_at}], next_cursor}
 *     A team's assignments (one site visit each), newest first. `reference`
 *     is the insurer's claim number the visit was for (may be empty).
 *
 *   GET /v1/assignments/{assignment_id}/tree
 *     200  {assignment: {id, reference, title}, locations: [{id, name, groups: [{id, name}]}]}
 *     Where the media was captured: locations (rooms) and, in each, groups
 *     (one object photographed from several sides).
 *
 *   GET /v1/assignments/{assignment_id}/media
 *     200  {data: [{id, type: 'photo' | 'video' | 'audio', location_id, group_id, filename,
 *                   content_type, size_bytes, captured_at, synced, submitted, submission_id,
 *                   thumbnail_url}], next_cursor}
 *     The assignment's media in capture order. `synced` is false while the
 *     device has not uploaded the original yet; `submitted` once the field
 *     worker submitted it (with its submission_id); `thumbnail_url` is a
 *     presigned URL of a small JPEG (null for audio), valid for an hour.
 *
 *   POST /v1/media/sign
 *     request  {media_ids: string[] (1-200), ttl_seconds?: number (60-3600, default 3600)}
 *     200      {data: [{id, original_url, proxy_url, expires_at}]}
 *     Short-lived download URLs: the original bytes, and for photos a JPEG
 *     proxy (null otherwise) made by the capture source. Unknown ids, and
 *     media not synced yet, are left out of `data`. They are fetched without
 *     the token, as guarded downloads (captureDownloadGuard below): https on
 *     the capture source's download hosts only, redirects included, at most
 *     the media's size_bytes.
 *
 *   Errors, any call:
 *     401 {error: 'invalid_token'}       missing, revoked or unknown org token
 *     404 {error: 'not_found'}           unknown id, or another organisation's
 *     422 {error: 'invalid_request', detail}
 *     429 (Retry-After) and 5xx          retried
 *
 * Webhook (the capture source calls us): POST with the event as the body,
 * `X-Capture-Signature: sha256=<hex HMAC-SHA256 of the raw body>` under the
 * shared secret and `X-Capture-Delivery: <delivery id>` (new per attempt):
 *   {id: <event id>, type: 'submission.created' | ..., org_id, created_at,
 *    data: {assignmentId, submissionId, mediaIds: string[]}}
 * Delivery is at least once, retried on any non-2xx answer.
 *
 * Outcomes are the discriminated result of lib/integrations/json-http.ts,
 * never an opaque throw. Every call is a read (signing included: it changes
 * nothing), so failures that may pass are retried. The token is never logged.
 */
import * as z from 'zod';
import { baseUrl, type HostRule, hostRules, type Settings, settings } from '../config';
import type { DownloadGuard } from './guarded-download';
import { NOT_SENT } from '../observability/outbound-failures';
import { errorBodySpec, type JsonHttpOptions, type JsonHttpResult, JsonHttpClient } from './json-http';

export interface CaptureSourceClientOptions extends JsonHttpOptions {
  /** The organisation's token (sent as the bearer token). */
  token: string;
}

/** Media ids one signing call takes (and the import signs at once). */
const SIGN_BATCH = 200;

const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

const whoamiAnswer = z.object({
  org: z.object({ id: z.string().min(1), name: z.string() }),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
});
const team = z.object({ id: z.string(), name: z.string() });
const assignment = z.object({
  id: z.string(),
  reference: z.string(),
  title: z.string(),
  status: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
const treeAnswer = z.object({
  assignment: z.object({ id: z.string(), reference: z.string(), title: z.string() }),
  locations: z.array(
    z.object({ id: z.string(), name: z.string(), groups: z.array(z.object({ id: z.string(), name: z.string() })) }),
  ),
});
const media = z.object({
  id: z.string(),
  type: z.enum(['photo', 'video', 'audio']),
  location_id: z.string().nullable(),
  group_id: z.string().nullable(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int().nonnegative(),
  captured_at: z.string().nullable(),
  synced: z.boolean(),
  submitted: z.boolean(),
  submission_id: z.string().nullable(),
  thumbnail_url: z.string().nullable(),
});
const signedAnswer = z.object({
  data: z.array(
    z.object({ id: z.string(), original_url: z.string(), proxy_url: z.string().nullable(), expires_at: z.string() }),
  ),
});

/** A media item's download URLs. */
export type CaptureSignedMedia = z.infer<typeof signedAnswer>['data'][number];

export type CaptureSourceResult<T> = JsonHttpResult<T>;

const CAPTURE_SOURCE = errorBodySpec('capture source', (cause) => NOT_SENT.test(cause));

const segment = encodeURIComponent;
const query = (params: Record<string, string | number | undefined>) => {
  const entries: [string, string][] = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => [k, String(v)]);
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
};

export class CaptureSourceClient extends JsonHttpClient {
  constructor(options: CaptureSourceClientOptions) {
    super(options, { ...CAPTURE_SOURCE, headers: { authorization: `Bearer ${options.token}` } });
  }

  whoami() {
    return this.request({ method: 'GET', path: '/v1/whoami', schema: whoamiAnswer });
  }

  teams(cursor?: string) {
    return this.request({
      method: 'GET',
      path: `/v1/teams${query({ cursor })}`,
      call: 'GET /v1/teams',
      schema: page(team),
    });
  }

  assignments(teamId: string, cursor?: string) {
    return this.request({
      method: 'GET',
      path: `/v1/teams/${segment(teamId)}/assignments${query({ cursor })}`,
      call: 'GET /v1/teams/{team_id}/assignments',
      schema: page(assignment),
    });
  }

  tree(assignmentId: string) {
    return this.request({
      method: 'GET',
      path: `/v1/assignments/${segment(assignmentId)}/tree`,
      call: 'GET /v1/assignments/{assignment_id}/tree',
      schema: treeAnswer,
    });
  }

  media(assignmentId: string, cursor?: string, limit?: number) {
    return this.request({
      method: 'GET',
      path: `/v1/assignments/${segment(assignmentId)}/media${query({ cursor, limit })}`,
      call: 'GET /v1/assignments/{assignment_id}/media',
      schema: page(media),
    });
  }

  /** Download URLs for at most SIGN_BATCH media. */
  sign(mediaIds: string[], ttlSeconds = 3600) {
    if (mediaIds.length > SIGN_BATCH) throw new RangeError(`at most ${SIGN_BATCH} media per signing call`);
    return this.request({
      method: 'POST',
      path: '/v1/media/sign',
      body: { media_ids: mediaIds, ttl_seconds: ttlSeconds },
      schema: signedAnswer,
    });
  }
}

type DownloadSettings = Pick<
  Settings,
  | 'CAPTURE_SOURCE_API_BASE_URL'
  | 'CAPTURE_SOURCE_DOWNLOAD_HOSTS'
  | 'CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS'
  | 'CAPTURE_SOURCE_DOWNLOAD_TIMEOUT_SECONDS'
>;

/** Where media may be downloaded from: CAPTURE_SOURCE_DOWNLOAD_HOSTS, else the API's own host over https. */
export function captureDownloadHosts(config: DownloadSettings): HostRule[] {
  if (config.CAPTURE_SOURCE_DOWNLOAD_HOSTS.length) return hostRules(config.CAPTURE_SOURCE_DOWNLOAD_HOSTS);
  const apiHost = /^https?:\/\/([^/?#]+)/i.exec(baseUrl(config.CAPTURE_SOURCE_API_BASE_URL))?.[1];
  return apiHost ? hostRules([apiHost]) : [];
}

/** How one media download is guarded: the capture source's download hosts, the settings' timeouts, `cap` bytes. */
export function captureDownloadGuard(
  cap: { maxBytes: number; words: string },
  config: DownloadSettings = settings(),
): DownloadGuard {
  return {
    source: 'the capture source',
    hosts: captureDownloadHosts(config),
    maxBytes: cap.maxBytes,
    maxBytesWords: cap.words,
    stallTimeoutMs: config.CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS * 1000,
    totalTimeoutMs: config.CAPTURE_SOURCE_DOWNLOAD_TIMEOUT_SECONDS * 1000,
  };
}
