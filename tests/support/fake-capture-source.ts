/**
 * Drives the fake capture source (tests/fakes/capture-source-server.ts)
 * through its HTTP control API, from any process. One fake serves the whole
 * run (TEST_FAKE_CAPTURE_SOURCE_URL): give each test its own org (seedOrg
 * with no id makes a new one, with a token of its own) and scope reads and
 * failures by token or a match unique to it, rather than reset().
 */
import { listenFake } from '../fakes/http';
import type {
  CaptureAssignmentSeed,
  CaptureDownloadKind,
  CaptureFailureMode,
  CaptureMediaPatch,
  CaptureMediaSeed,
  CaptureOrgSeed,
  CaptureWebhookResult,
  CaptureWebhookSend,
  FakeCaptureAssignment,
  FakeCaptureMedia,
  FakeCaptureOrg,
  RecordedCaptureDownload,
  RecordedCaptureRequest,
} from '../fakes/capture-source-server';
import { controlCaller } from './fake-control';

/** A media item to seed, its bytes given as bytes (`bytes`, `proxy`) or as base64 (`bytes_base64`, `proxy_base64`). */
type MediaItem = Omit<CaptureMediaSeed, 'bytes_base64'> & {
  bytes_base64?: string;
  bytes?: Uint8Array;
  proxy?: Uint8Array;
};

/** A patch, its new bytes given either way too. */
type MediaPatch = CaptureMediaPatch & { bytes?: Uint8Array; proxy?: Uint8Array };

interface FakeCaptureSourceControl {
  origin: string;
  /** A new org (no org_id: generated, with one generated token unless `tokens`), or more for an existing one. */
  seedOrg(seed?: CaptureOrgSeed): Promise<FakeCaptureOrg>;
  /** The token answers 401 from now on. */
  revokeToken(token: string): Promise<void>;
  /** An assignment of one of the org's teams, with its tree (ids generated where not given). */
  seedAssignment(seed: CaptureAssignmentSeed): Promise<FakeCaptureAssignment>;
  /** Media of the org's assignment, in the order given (ids generated where not given). */
  seedMedia(orgId: string, assignmentId: string, items: MediaItem[]): Promise<FakeCaptureMedia[]>;
  /** Changes a media item: synced, submitted, the test behaviours (fail_downloads sets the count left), ... */
  updateMedia(id: string, patch: MediaPatch): Promise<FakeCaptureMedia>;
  /** A signed download URL of any ttl (negative: already expired) for any media; kind default 'original'. */
  signUrl(
    mediaId: string,
    options: { kind?: CaptureDownloadKind; ttl_seconds: number },
  ): Promise<{ url: string; expires_at: string }>;
  /** API requests received, oldest first: with this exact token, and/or whose "METHOD /path" contains `match`. */
  requests(filter?: { token?: string; match?: string }): Promise<RecordedCaptureRequest[]>;
  /** Downloads of signed URLs received, oldest first. */
  downloads(filter?: { media_id?: string; kind?: CaptureDownloadKind }): Promise<RecordedCaptureDownload[]>;
  /** Makes the next `count` (default 1) API requests fail; `match`: a token, or a substring of "METHOD /path". */
  failNext(mode: CaptureFailureMode, options?: { count?: number; match?: string }): Promise<void>;
  /** POSTs a signed event to `url` as the capture source does; our service's answer. */
  sendWebhook(send: CaptureWebhookSend): Promise<CaptureWebhookResult>;
  /** Forgets recorded requests, downloads and pending failures of every test (with `all`, every org too). */
  reset(all?: boolean): Promise<void>;
}

const base64 = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('base64') : undefined);

/** The bytes given as bytes turned into base64, the rest as it is. */
function encoded<T extends { bytes?: Uint8Array; proxy?: Uint8Array; bytes_base64?: string; proxy_base64?: string }>(
  item: T,
) {
  const { bytes, proxy, ...rest } = item;
  return {
    ...rest,
    ...(bytes ? { bytes_base64: base64(bytes) } : {}),
    ...(proxy ? { proxy_base64: base64(proxy) } : {}),
  };
}

export function fakeCaptureSource(url: string): FakeCaptureSourceControl {
  const origin = new URL(url).origin;
  const call = controlCaller(origin, 'fake capture source');

  const query = (params: Record<string, string | undefined>) => {
    const search = new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
    );
    return search.size ? `?${search}` : '';
  };

  return {
    origin,
    seedOrg: (seed = {}) => call('POST', '/__fake/orgs', seed),
    revokeToken: async (token) => void (await call('POST', '/__fake/revoke', { token })),
    seedAssignment: (seed) => call('POST', '/__fake/assignments', seed),
    seedMedia: (orgId, assignmentId, items) =>
      call('POST', '/__fake/media', { org_id: orgId, assignment_id: assignmentId, items: items.map(encoded) }),
    updateMedia: (id, changes) => call('PATCH', `/__fake/media/${encodeURIComponent(id)}`, encoded(changes)),
    signUrl: (mediaId, options) => call('POST', '/__fake/sign', { media_id: mediaId, ...options }),
    requests: (filter = {}) => call('GET', `/__fake/requests${query(filter)}`),
    downloads: (filter = {}) => call('GET', `/__fake/downloads${query(filter)}`),
    failNext: async (mode, options = {}) => void (await call('POST', '/__fake/fail', { mode, ...options })),
    sendWebhook: (send) => call('POST', '/__fake/webhook', send),
    reset: async (all = false) => void (await call('POST', '/__fake/reset', all ? { all: true } : {})),
  };
}

/**
 * A host off the capture source's download allow-list, on this machine's loopback, answering `photo` to any
 * request: a download guard that let a URL through would import it. `hits` lists what it was asked for.
 */
export async function foreignPhotoHost(photo: Buffer) {
  const hits: string[] = [];
  const server = await listenFake((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length });
    res.end(photo);
  });
  return { url: server.url, hits, close: () => server.close() };
}
