/**
 * Covers: lib/uploads/rules.ts, lib/media/probe.ts.
 * The pure rules of the chunked video/audio upload and of reading ffprobe's answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isTransientProbeOutput, resolveFfprobe } from '../../../lib/media/ffmpeg';
import { parseFrameRate, parseProbeOutput, ProbeError, probeMedia } from '../../../lib/media/probe';
import {
  ALLOWED_EXTENSIONS,
  baseName,
  checkAssembly,
  chunkSizeFor,
  contentTypeFor,
  describeIndices,
  isAllowedExtension,
  maxUploadBytes,
  partCountFor,
  partSize,
  partsOutOfRange,
  S3_MIN_PART_BYTES,
  sanitizeFilename,
  tooLargeMessage,
  unsupportedTypeMessage,
} from '../../../lib/uploads/rules';
import { extensionOf } from '../../../lib/text';

const MIB = 1024 * 1024;

describe('baseName', () => {
  it("keeps the last path segment of a browser's name, trimmed", () => {
    expect(baseName('C:\\fakepath\\walkthrough.mp4')).toBe('walkthrough.mp4');
    expect(baseName(' photos/kitchen/sink.jpg ')).toBe('sink.jpg');
    expect(baseName('plain.pdf')).toBe('plain.pdf');
  });
});

describe('extensions', () => {
  it.each([
    ['video', 'walkthrough.mp4'],
    ['video', 'KITCHEN.MOV'],
    ['video', 'a.b.c.MkV'],
    ['video', 'clip.3gp'],
    ['video', 'cam.MTS'],
    ['video', 'screen.webm'],
    ['audio', 'note.M4A'],
    ['audio', 'memo.opus'],
    ['audio', 'call.amr'],
    ['audio', 'voice.webm'],
    ['audio', 'C:\\fakepath\\memo.Flac'],
  ] as const)('accepts %s %s (case-insensitive)', (kind, name) => {
    expect(isAllowedExtension(kind, name)).toBe(true);
  });

  it.each([
    ['video', 'note.mp3'],
    ['audio', 'walkthrough.mp4'],
    ['video', 'photo.jpg'],
    ['video', 'noextension'],
    ['video', '.mp4'],
    ['video', 'trailingdot.'],
    ['audio', 'archive.wav.zip'],
  ] as const)('refuses %s %s', (kind, name) => {
    expect(isAllowedExtension(kind, name)).toBe(false);
  });

  it('lists exactly the spec-agreed extensions', () => {
    expect(ALLOWED_EXTENSIONS.video).toEqual(['mp4', 'mov', 'm4v', 'avi', 'mkv', 'webm', '3gp', 'mts']);
    expect(ALLOWED_EXTENSIONS.audio).toEqual(['mp3', 'm4a', 'wav', 'aac', 'ogg', 'oga', 'opus', 'flac', 'webm', 'amr']);
  });

  it('names the refused extension and what is allowed', () => {
    expect(unsupportedTypeMessage('video', 'x.exe')).toMatch(
      /^Unsupported file type "\.exe" for video upload\. Allowed: \.mp4, \.mov/,
    );
    expect(unsupportedTypeMessage('audio', 'README')).toMatch(
      /^Unsupported file type \(no extension\) for audio upload/,
    );
  });

  it('reads the extension of the base name only', () => {
    expect(extensionOf('dir.mp4/readme')).toBe('');
    expect(extensionOf('/tmp/x/Clip.MP4')).toBe('mp4');
  });
});

describe('the Content-Type of the assembled object', () => {
  it.each([
    ['video', 'walkthrough.MP4', 'video/mp4'],
    ['video', 'clip.mov', 'video/quicktime'],
    ['video', 'clip.m4v', 'video/x-m4v'],
    ['video', 'clip.avi', 'video/x-msvideo'],
    ['video', 'clip.mkv', 'video/x-matroska'],
    ['video', 'clip.3gp', 'video/3gpp'],
    ['video', 'cam.MTS', 'video/mp2t'],
    ['audio', 'memo.mp3', 'audio/mpeg'],
    ['audio', 'memo.m4a', 'audio/mp4'],
    ['audio', 'memo.wav', 'audio/wav'],
    ['audio', 'memo.aac', 'audio/aac'],
    ['audio', 'memo.ogg', 'audio/ogg'],
    ['audio', 'memo.oga', 'audio/ogg'],
    ['audio', 'memo.opus', 'audio/opus'],
    ['audio', 'memo.flac', 'audio/flac'],
    ['audio', 'call.amr', 'audio/amr'],
  ] as const)('%s %s is stored as %s', (kind, name, type) => {
    expect(contentTypeFor(kind, name)).toBe(type);
  });

  it('stores a WebM file as the kind it was uploaded as', () => {
    expect(contentTypeFor('video', 'screen.webm')).toBe('video/webm');
    expect(contentTypeFor('audio', 'voice.WEBM')).toBe('audio/webm');
  });

  it('stores anything else as neutral binary', () => {
    expect(contentTypeFor('video', 'clip.exe')).toBe('application/octet-stream');
    expect(contentTypeFor('audio', 'noextension')).toBe('application/octet-stream');
  });
});

describe('sanitizeFilename', () => {
  it.each([
    ['Kitchen walkthrough (1).MP4', 'Kitchen_walkthrough_1.mp4'],
    ['../../etc/passwd.mp4', 'passwd.mp4'],
    ['C:\\fakepath\\vidéo.mov', 'video.mov'],
    ['....mp4', 'upload.mp4'],
    ['a..b.mp4', 'a.b.mp4'],
    ['日本語.m4a', 'upload.m4a'],
  ])('%s → %s', (input, expected) => {
    expect(sanitizeFilename(input)).toBe(expected);
  });

  it('never yields a path segment or traversal', () => {
    for (const name of ['../x.mp4', '/abs/y.mov', 'a/../../b.mkv', '..\\..\\c.webm', '%2e%2e%2fd.mp4']) {
      const safe = sanitizeFilename(name);
      expect(safe).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      expect(safe).not.toContain('..');
    }
  });

  it('keeps a name without an extension, and names a blank one upload', () => {
    expect(sanitizeFilename('README')).toBe('README');
    expect(sanitizeFilename('   ')).toBe('upload');
    expect(sanitizeFilename('dir/')).toBe('upload');
  });

  it('caps the length and keeps the extension', () => {
    const safe = sanitizeFilename(`${'x'.repeat(500)}.mp4`);
    expect(safe.length).toBeLessThanOrEqual(104);
    expect(safe.endsWith('.mp4')).toBe(true);
  });
});

describe('sizes and parts', () => {
  const config = { RECOMMENDED_CHUNK_BYTES: 16 * MIB, MAX_CHUNK_BYTES: 32 * MIB };

  it('caps uploads at MAX_UPLOAD_SIZE_MB mebibytes', () => {
    expect(maxUploadBytes({ MAX_UPLOAD_SIZE_MB: 2000 })).toBe(2000 * MIB);
  });

  it('names the size and the cap when a file is too large, in MB to one decimal', () => {
    expect(tooLargeMessage(2500 * MIB + MIB / 2, { MAX_UPLOAD_SIZE_MB: 2000 })).toBe(
      'File too large: 2500.5 MB exceeds the 2000 MB limit for video and audio uploads.',
    );
    expect(tooLargeMessage(2001 * MIB, { MAX_UPLOAD_SIZE_MB: 2000 })).toBe(
      'File too large: 2001 MB exceeds the 2000 MB limit for video and audio uploads.',
    );
  });

  it('hands out the recommended chunk size, clamped to [5 MiB, MAX_CHUNK_BYTES]', () => {
    expect(chunkSizeFor(100 * MIB, config)).toBe(16 * MIB);
    expect(chunkSizeFor(100 * MIB, { RECOMMENDED_CHUNK_BYTES: 1 * MIB, MAX_CHUNK_BYTES: 32 * MIB })).toBe(
      S3_MIN_PART_BYTES,
    );
    expect(chunkSizeFor(100 * MIB, { RECOMMENDED_CHUNK_BYTES: 64 * MIB, MAX_CHUNK_BYTES: 32 * MIB })).toBe(32 * MIB);
    // S3's 5 MiB minimum wins over a smaller configured cap.
    expect(chunkSizeFor(100 * MIB, { RECOMMENDED_CHUNK_BYTES: 16 * MIB, MAX_CHUNK_BYTES: 1 * MIB })).toBe(
      S3_MIN_PART_BYTES,
    );
  });

  it('raises the chunk size to stay within 10,000 parts, and gives up past the cap', () => {
    const big = 200_000 * MIB;
    const chunk = chunkSizeFor(big, config)!;
    expect(chunk).toBeLessThanOrEqual(32 * MIB);
    expect(Math.ceil(big / chunk)).toBeLessThanOrEqual(10_000);
    expect(chunkSizeFor(400_000 * MIB, config)).toBeNull();
  });

  it('sizes every part at chunk_size and the last at the remainder', () => {
    const total = 2 * 16 * MIB + 123;
    expect(partCountFor(total, 16 * MIB)).toBe(3);
    expect([0, 1, 2].map((i) => partSize(i, total, 16 * MIB))).toEqual([16 * MIB, 16 * MIB, 123]);
    expect(partSize(0, 10, 16 * MIB)).toBe(10);
    expect(partCountFor(32 * MIB, 16 * MIB)).toBe(2);
    expect(partSize(1, 32 * MIB, 16 * MIB)).toBe(16 * MIB);
    expect(() => partSize(3, total, 16 * MIB)).toThrow(RangeError);
    expect(() => partSize(-1, total, 16 * MIB)).toThrow(RangeError);
  });
});

describe('checkAssembly', () => {
  const chunk = 16 * MIB;
  const total = 3 * chunk + 1000; // parts 0..3
  const upload = { total_size: total, chunk_size: chunk, part_count: 4 };
  const full = () => [0, 1, 2, 3].map((index) => ({ index, size: partSize(index, total, chunk) }));

  it('accepts the gap-free run of exact sizes', () => {
    expect(checkAssembly(full(), upload)).toEqual({ ok: true });
  });

  it('names the missing indices', () => {
    const check = checkAssembly(
      full().filter((p) => p.index !== 1),
      upload,
    );
    expect(check).toMatchObject({ ok: false, reason: 'missing' });
    expect(!check.ok && check.message).toBe('Upload incomplete: missing part 1 of 0-3 (3 of 4 received).');
    const many = checkAssembly([{ index: 3, size: 1000 }], upload);
    expect(!many.ok && many.message).toMatch(/missing parts 0-2 of 0-3/);
    expect(!checkAssembly([], upload).ok).toBe(true);
  });

  it('refuses parts beyond the run', () => {
    expect(checkAssembly([...full(), { index: 4, size: 5 }], upload)).toEqual({
      ok: false,
      reason: 'extra',
      message: 'Unexpected part 4: this upload has parts 0-3.',
    });
    const several = checkAssembly(
      [...full(), { index: 7, size: 5 }, { index: 5, size: 5 }, { index: 4, size: 5 }],
      upload,
    );
    expect(!several.ok && several.message).toBe('Unexpected parts 4-5, 7: this upload has parts 0-3.');
  });

  it('reports bytes too many', () => {
    const long = full().map((p) => (p.index === 3 ? { ...p, size: 1002 } : p));
    expect(checkAssembly(long, upload)).toEqual({
      ok: false,
      reason: 'size',
      message: `Assembled size ${total + 2} bytes differs from total_size ${total} (2 bytes too many): part 3 is 1002 bytes, expected 1000.`,
    });
  });

  it('reports the size difference and the part at fault', () => {
    const short = full().map((p) => (p.index === 3 ? { ...p, size: 999 } : p));
    const check = checkAssembly(short, upload);
    expect(check).toMatchObject({ ok: false, reason: 'size' });
    expect(!check.ok && check.message).toBe(
      `Assembled size ${total - 1} bytes differs from total_size ${total} (1 byte short): part 3 is 999 bytes, expected 1000.`,
    );
  });

  it('refuses wrong part sizes even when the total happens to match', () => {
    const skewed = full().map((p) =>
      p.index === 0 ? { ...p, size: p.size - 10 } : p.index === 3 ? { ...p, size: p.size + 10 } : p,
    );
    const check = checkAssembly(skewed, upload);
    expect(!check.ok && check.message).toMatch(/^Part sizes do not match the upload: part 0 is/);
  });

  it('compresses index lists', () => {
    expect(describeIndices([5, 0, 2, 3, 4, 9])).toBe('0, 2-5, 9');
  });
});

describe('ffprobe answers', () => {
  it('reads duration, size, frame rate and audio', () => {
    const out = JSON.stringify({
      streams: [
        { codec_type: 'video', width: 320, height: 240, r_frame_rate: '30000/1001' },
        { codec_type: 'audio', r_frame_rate: '0/0' },
      ],
      format: { duration: '25.021333' },
    });
    expect(parseProbeOutput(out)).toEqual({
      duration: 25.021,
      video: { width: 320, height: 240, fps: 29.97 },
      hasAudio: true,
    });
  });

  it('copes with audio only and a missing duration', () => {
    expect(parseProbeOutput(JSON.stringify({ streams: [{ codec_type: 'audio' }], format: {} }))).toEqual({
      duration: null,
      video: null,
      hasAudio: true,
    });
    expect(() => parseProbeOutput('not json')).toThrow('ffprobe printed no readable answer');
  });

  it('parses frame rates', () => {
    expect(parseFrameRate('10/1')).toBe(10);
    expect(parseFrameRate('0/0')).toBeNull();
    expect(parseFrameRate('25')).toBe(25);
    expect(parseFrameRate(undefined)).toBeNull();
  });

  it('resolves ffprobe from FFPROBE_PATH, then next to FFMPEG_PATH, then PATH', () => {
    expect(resolveFfprobe({ FFPROBE_PATH: '/opt/bin/ffprobe' })).toBe('/opt/bin/ffprobe');
    const dir = mkdtempSync(join(tmpdir(), 'ffbin-'));
    writeFileSync(join(dir, 'ffmpeg'), '');
    writeFileSync(join(dir, 'ffprobe'), '');
    expect(resolveFfprobe({ FFMPEG_PATH: join(dir, 'ffmpeg') })).toBe(join(dir, 'ffprobe'));
    expect(resolveFfprobe({ FFMPEG_PATH: '/nonexistent/ffmpeg' })).toBe('ffprobe');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('ffprobe failures', () => {
  it('tells reaching the file apart from reading it', () => {
    expect(isTransientProbeOutput('<media>: Server returned 403 Forbidden (access denied)')).toBe(true);
    expect(isTransientProbeOutput('Connection to tcp://127.0.0.1:4569 failed: Connection refused')).toBe(true);
    expect(
      isTransientProbeOutput(
        '[matroska,webm @ 0x1] EBML header parsing failed\n<media>: Invalid data found when processing input',
      ),
    ).toBe(false);
    expect(isTransientProbeOutput('[mov,mp4,m4a,3gp,3g2,mj2 @ 0x1] moov atom not found')).toBe(false);
  });

  const hasFfprobe = spawnSync(resolveFfprobe(), ['-version']).status === 0;
  (hasFfprobe ? it : it.skip)('runs ffprobe without a shell and keeps the input out of the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-'));
    const file = join(dir, 'junk; rm -rf x.mp4');
    writeFileSync(file, randomBytes(4096));
    const err = await probeMedia(file).catch((e) => e);
    expect(err).toBeInstanceOf(ProbeError);
    expect(err.transient).toBe(false);
    expect(err.message).not.toContain(file);
    const missing = await probeMedia(file, { ffprobe: join(dir, 'no-such-ffprobe') }).catch((e) => e);
    expect(missing).toMatchObject({ message: 'ffprobe is not installed', transient: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the requested parts past the last one, by their place in the request', () => {
    expect(partsOutOfRange([0, 1, 2], 3)).toEqual([]);
    expect(partsOutOfRange([4, 0, 3], 3)).toEqual([
      { field: 'body.parts.0', message: '4 is out of range: this upload has parts 0-2' },
      { field: 'body.parts.2', message: '3 is out of range: this upload has parts 0-2' },
    ]);
  });
});
