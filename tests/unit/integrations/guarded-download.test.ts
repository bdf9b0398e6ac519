/**
 * Guarded downloads over real HTTP against two local servers: the allowed download host, and a foreign one that
 * must never be reached. The URL, host, redirect, size and timeout rules each end in DownloadFailed with its
 * reason; what may pass (5xx, 429, no answer) is retried, nothing else.
 * Covers: lib/integrations/guarded-download.ts, lib/integrations/download-rules.ts, captureDownloadHosts and
 * captureDownloadGuard of lib/integrations/capture-source.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostRules } from '../../../lib/config/host-rules';
import { captureDownloadGuard, captureDownloadHosts } from '../../../lib/integrations/capture-source';
import { checkedUrl, redirectTarget } from '../../../lib/integrations/download-rules';
import {
  type DownloadGuard,
  DownloadFailed,
  downloadBytes,
  openDownload,
} from '../../../lib/integrations/guarded-download';
import { logger } from '../../../lib/observability/logger';
import { type FakeHttpServer, listenFake } from '../../fakes/http';

const SOURCE = 'the capture source';
let allowed: FakeHttpServer;
let foreign: FakeHttpServer;
/** Requests each server received, as "METHOD /path". */
const hits: { allowed: string[]; foreign: string[] } = { allowed: [], foreign: [] };
let flakyLeft = 0;

function serveAllowed(req: IncomingMessage, res: ServerResponse) {
  hits.allowed.push(`${req.method} ${req.url}`);
  const redirect = (location: string) => {
    res.writeHead(302, { location });
    res.end();
  };
  switch (req.url) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 11 });
      return res.end('hello world');
    case '/redirect-local':
      return redirect('/ok');
    case '/redirect-foreign':
      return redirect(`${foreign.url}/stolen`);
    case '/redirect-file':
      return redirect('file:///etc/passwd');
    case '/redirect-rebound':
      // To an allowed name whose DNS answers a private address.
      return redirect('https://files.capture.example/photo.jpg');
    case '/redirect-loop':
      return redirect('/redirect-loop');
    case '/redirect-nowhere':
      res.writeHead(302);
      return res.end();
    case '/long-declared':
      res.writeHead(200, { 'content-length': 1000 });
      return res.end(Buffer.alloc(1000));
    case '/long-chunked':
      // No Content-Length: only the running count can stop it.
      res.writeHead(200);
      return res.end(Buffer.alloc(30));
    case '/stall':
      res.writeHead(200, { 'content-length': 15 });
      res.write(Buffer.alloc(5));
      return allowed.hang(res);
    case '/no-answer':
      return allowed.hang(res);
    case '/trickle': {
      // A byte every 50 ms, never stalling, never ending.
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
      return allowed.hang(res);
    }
    case '/flaky':
      if (flakyLeft-- > 0) {
        res.writeHead(503, { 'retry-after': '0' });
        return res.end('busy');
      }
      res.writeHead(200, { 'content-length': 2 });
      return res.end('ok');
    case '/busy':
      res.writeHead(503);
      return res.end('busy');
    default:
      res.writeHead(404);
      return res.end('no such file');
  }
}

beforeAll(async () => {
  allowed = await listenFake(serveAllowed);
  foreign = await listenFake((req, res) => {
    hits.foreign.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-length': 6 });
    res.end('stolen');
  });
});
afterAll(async () => {
  await allowed.close();
  await foreign.close();
});
beforeEach(() => {
  hits.allowed.length = 0;
  hits.foreign.length = 0;
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  // Nothing reaches the foreign host, whatever a test did.
  expect(hits.foreign).toEqual([]);
  jest.restoreAllMocks();
});

const guard = (over: Partial<DownloadGuard> = {}): DownloadGuard => ({
  source: SOURCE,
  hosts: hostRules([allowed.url]),
  maxBytes: 20,
  maxBytesWords: 'the 20 bytes declared',
  // Generous where time is not what a case tests: under a loaded machine a local connect can take longer than
  // 300 ms, and a retried connect would show as a second request. The timeout case sets its own short ones.
  connectTimeoutMs: 2000,
  stallTimeoutMs: 2000,
  totalTimeoutMs: 10_000,
  backoffMs: 10,
  ...over,
});

/** The reason a download failed with (DownloadFailed's message), or 'no failure'. */
async function reason(url: string, over: Partial<DownloadGuard> = {}): Promise<string> {
  try {
    await downloadBytes(url, guard(over));
    return 'no failure';
  } catch (err) {
    expect(err).toBeInstanceOf(DownloadFailed);
    return (err as Error).message;
  }
}

describe('guarded download', () => {
  it('reads an allowed URL, and follows a redirect that stays on the allowed hosts', async () => {
    const download = await openDownload(`${allowed.url}/ok`, guard());
    expect(download.contentType).toBe('image/jpeg');
    const pieces: Buffer[] = [];
    for await (const piece of download.body) pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).toString()).toBe('hello world');
    expect((await downloadBytes(`${allowed.url}/redirect-local`, guard())).toString()).toBe('hello world');
    expect(hits.allowed).toEqual(['GET /ok', 'GET /redirect-local', 'GET /ok']);
  });

  it('fetches nothing from a host not on the list, a loopback name of an allowed one, or a file:// URL', async () => {
    const origin = new URL(allowed.url);
    const other = `http://localhost:${origin.port}`;
    expect(await reason(`${foreign.url}/stolen`)).toBe(
      `Download refused: ${foreign.url} is not one of the capture source's download hosts; nothing was fetched.`,
    );
    expect(await reason(`${other}/ok`)).toBe(
      `Download refused: ${other} is not one of the capture source's download hosts; nothing was fetched.`,
    );
    expect(await reason(`https://127.0.0.1:${origin.port}/ok`)).toMatch(/is not one of the capture source's/);
    expect(await reason('file:///etc/passwd')).toBe(
      'Download refused: file:// is a file URL, not https; nothing was fetched.',
    );
    expect(await reason('/files/original/m1')).toBe(
      'Download refused: the capture source gave a download URL that is not a URL; nothing was fetched.',
    );
    // An https rule does not let plain http through to the same host.
    expect(await reason(`${allowed.url}/ok`, { hosts: hostRules([origin.host]) })).toBe(
      `Download refused: ${allowed.url} is plain http; the capture source's downloads are https only; nothing was fetched.`,
    );
    expect(hits.allowed).toEqual([]);
  });

  it('connects to no allowed name that resolves to an address off the internet, first or by redirect, once asked', async () => {
    const asked: string[] = [];
    const answers: Record<string, string[]> = {
      'files.capture.example': ['10.0.0.5'],
      'cdn.capture.example': ['93.184.215.14', '169.254.169.254'],
      'v6.capture.example': ['fd00::7'],
    };
    const resolve = async (hostname: string) => {
      asked.push(hostname);
      return (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const hosts = hostRules(['*.capture.example', allowed.url]);
    expect(await reason('https://files.capture.example/photo.jpg', { hosts, resolve })).toBe(
      'Download refused: files.capture.example resolves to 10.0.0.5, which is not a public address.',
    );
    // One bad address among good ones is enough: the cloud's metadata service never gets a request.
    expect(await reason('https://cdn.capture.example/photo.jpg', { hosts, resolve })).toBe(
      'Download refused: cdn.capture.example resolves to 169.254.169.254, which is not a public address.',
    );
    expect(await reason('https://v6.capture.example/photo.jpg', { hosts, resolve })).toBe(
      'Download refused: v6.capture.example resolves to fd00::7, which is not a public address.',
    );
    expect(await reason(`${allowed.url}/redirect-rebound`, { hosts, resolve })).toBe(
      'Download refused: files.capture.example resolves to 10.0.0.5, which is not a public address.',
    );
    // A refusal is final: each name was asked once, never retried.
    expect(asked).toEqual([
      'files.capture.example',
      'cdn.capture.example',
      'v6.capture.example',
      'files.capture.example',
    ]);
    expect(hits.allowed).toEqual(['GET /redirect-rebound']);
  });

  it('refuses an allowed address in the URL itself that is off the internet, before any connection', async () => {
    expect(await reason('https://10.0.0.5/photo.jpg', { hosts: hostRules(['10.0.0.5']) })).toBe(
      'Download refused: 10.0.0.5 is not a public address; nothing was fetched.',
    );
    expect(await reason('https://[fd00::1]/photo.jpg', { hosts: hostRules(['[fd00::1]']) })).toBe(
      'Download refused: [fd00::1] is not a public address; nothing was fetched.',
    );
  });

  it('lets a loopback test host reach this machine, and nothing else', async () => {
    const { port } = new URL(allowed.url);
    const local = `http://localhost:${port}`;
    const hosts = hostRules([local]);
    expect((await downloadBytes(`${local}/ok`, guard({ hosts }))).toString()).toBe('hello world');
    const elsewhere = async () => [{ address: '10.0.0.1', family: 4 }];
    expect(await reason(`${local}/ok`, { hosts, resolve: elsewhere })).toBe(
      'Download refused: localhost resolves to 10.0.0.1, which is not this machine.',
    );
    expect(hits.allowed).toEqual(['GET /ok']);
  });

  it('does not follow a redirect off the allowed hosts, to another scheme, in circles or to nowhere', async () => {
    expect(await reason(`${allowed.url}/redirect-foreign`)).toBe(
      `Download refused: a redirect was not followed: ${foreign.url} is not one of the capture source's download hosts.`,
    );
    expect(await reason(`${allowed.url}/redirect-file`)).toBe(
      'Download refused: a redirect was not followed: file:// is a file URL, not https.',
    );
    expect(await reason(`${allowed.url}/redirect-loop`)).toBe('Download refused: more than 5 redirects.');
    expect(hits.allowed.filter((h) => h === 'GET /redirect-loop')).toHaveLength(6);
    expect(await reason(`${allowed.url}/redirect-nowhere`)).toBe('Download refused: a redirect without a Location.');
  });

  it('refuses a declared length over the cap unread, and stops a body that runs past it', async () => {
    expect(await reason(`${allowed.url}/long-declared`)).toBe(
      'Download refused: its answer is 1000 bytes, more than the 20 bytes declared.',
    );
    expect(await reason(`${allowed.url}/long-chunked`)).toBe(
      'Download stopped: more than the 20 bytes declared arrived.',
    );
    expect(await reason(`${allowed.url}/long-chunked`, { maxBytes: 30 })).toBe('no failure');
  });

  it('times out a stalled body, a host that never answers and a download that takes too long', async () => {
    const short = { connectTimeoutMs: 300, stallTimeoutMs: 300 };
    expect(await reason(`${allowed.url}/stall`, short)).toBe(
      'Download stopped: no bytes for 0.3 s; the transfer stalled.',
    );
    expect(hits.allowed).toEqual(['GET /stall']);
    expect(await reason(`${allowed.url}/no-answer`, short)).toBe(
      `Download failed: ${allowed.url} did not answer within 0.3 s after 3 attempts.`,
    );
    const started = Date.now();
    expect(await reason(`${allowed.url}/trickle`, { maxBytes: 1000, totalTimeoutMs: 600 })).toBe(
      'Download stopped: it took longer than 0.6 s.',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('retries 5xx within its attempts, and never a refusal', async () => {
    flakyLeft = 2;
    expect((await downloadBytes(`${allowed.url}/flaky`, guard())).toString()).toBe('ok');
    expect(hits.allowed).toEqual(['GET /flaky', 'GET /flaky', 'GET /flaky']);
    expect(logger.warn).toHaveBeenCalledWith(
      'the capture source download failed; retrying',
      expect.objectContaining({ origin: allowed.url, status: 503 }),
    );
    expect(await reason(`${allowed.url}/busy`)).toBe('Download failed: HTTP 503 after 3 attempts.');
    hits.allowed.length = 0;
    expect(await reason(`${allowed.url}/gone`)).toBe('Download failed: HTTP 404.');
    expect(hits.allowed).toEqual(['GET /gone']);
  });

  it('reads a redirect target relative to where it came from; a Location that is no URL is not followed', () => {
    const from = new URL('https://media.capture.example/files/m1?sig=x');
    const hosts = hostRules(['media.capture.example']);
    expect(String(redirectTarget('/files/m1-moved', from, 0, hosts, SOURCE))).toBe(
      'https://media.capture.example/files/m1-moved',
    );
    expect(redirectTarget('http://[nonsense', from, 0, hosts, SOURCE)).toBe(
      'a redirect to something that is not a URL',
    );
    expect(String(checkedUrl('https://media.capture.example/files/m1?sig=x', hosts, SOURCE))).toBe(from.href);
  });
});

describe('capture source downloads', () => {
  const config = {
    CAPTURE_SOURCE_API_BASE_URL: 'api.capture.example',
    CAPTURE_SOURCE_DOWNLOAD_HOSTS: [] as string[],
    CAPTURE_SOURCE_DOWNLOAD_STALL_SECONDS: 30,
    CAPTURE_SOURCE_DOWNLOAD_TIMEOUT_SECONDS: 600,
  };

  it("download from the API's own host over https unless CAPTURE_SOURCE_DOWNLOAD_HOSTS names others", () => {
    expect(captureDownloadHosts(config)).toEqual(hostRules(['api.capture.example']));
    expect(captureDownloadHosts({ ...config, CAPTURE_SOURCE_API_BASE_URL: 'http://127.0.0.1:4022/' })).toEqual(
      hostRules(['https://127.0.0.1:4022']),
    );
    expect(captureDownloadHosts({ ...config, CAPTURE_SOURCE_API_BASE_URL: '' })).toEqual([]);
    expect(
      captureDownloadHosts({ ...config, CAPTURE_SOURCE_DOWNLOAD_HOSTS: ['*.cdn.example', 'http://localhost:4022'] }),
    ).toEqual(hostRules(['*.cdn.example', 'http://localhost:4022']));
  });

  it('guard a download with those hosts, the timeouts in ms and the cap given', () => {
    expect(captureDownloadGuard({ maxBytes: 1234, words: 'the 1234 bytes declared' }, config)).toEqual({
      source: SOURCE,
      hosts: hostRules(['api.capture.example']),
      maxBytes: 1234,
      maxBytesWords: 'the 1234 bytes declared',
      stallTimeoutMs: 30_000,
      totalTimeoutMs: 600_000,
    });
  });
});
