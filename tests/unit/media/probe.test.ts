/**
 * ffprobe reads only the uploaded file: a crafted upload (a playlist naming
 * other files or URLs) must not make it open anything else.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfprobe } from '../../../lib/media/ffmpeg';
import { ProbeError, probeMedia } from '../../../lib/media/probe';

const hasFfmpeg =
  spawnSync(resolveFfprobe(), ['-version']).status === 0 && spawnSync('ffmpeg', ['-version']).status === 0;
const maybe = hasFfmpeg ? describe : describe.skip;

maybe('probing crafted media', () => {
  let dir: string;
  let segment: string;
  let server: Server;
  let origin: string;
  const served: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probe-crafted-'));
    // Stands in for a resource the upload must not reach: another local file or an internal URL.
    segment = join(dir, 'private.ts');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=2:size=64x48:rate=10',
      '-f',
      'mpegts',
      segment,
    ]);
    writeFileSync(join(dir, 'clip.mp4'), '');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', segment, '-c', 'copy', join(dir, 'clip.mp4')]);
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/upload.m3u8') {
        res.end(`#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2,\n${origin}/internal/private.ts\n#EXT-X-ENDLIST\n`);
      } else if (req.url === '/internal/private.ts') {
        res.end(readFileSync(segment));
      } else if (req.url === '/clip.mp4') {
        res.end(readFileSync(join(dir, 'clip.mp4')));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a local playlist that names another local file', async () => {
    const playlist = join(dir, 'upload.m3u8');
    writeFileSync(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2,\n${segment}\n#EXT-X-ENDLIST\n`);

    const err = await probeMedia(playlist).catch((e) => e);

    expect(err).toBeInstanceOf(ProbeError);
    expect(err.transient).toBe(false);
  });

  it('refuses a playlist behind a URL that names another URL, and never fetches it', async () => {
    served.length = 0;

    const err = await probeMedia(`${origin}/upload.m3u8`).catch((e) => e);

    expect(err).toBeInstanceOf(ProbeError);
    expect(served).not.toContain('/internal/private.ts');
  });

  it('still measures an ordinary upload over HTTP', async () => {
    const result = await probeMedia(`${origin}/clip.mp4`);

    expect(result.duration).toBeCloseTo(2, 0);
    expect(result.video).not.toBeNull();
  });
});
