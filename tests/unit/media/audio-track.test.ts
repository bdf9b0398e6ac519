/**
 * The audio track for speech-to-text, on real clips made with ffmpeg: compact
 * mono Ogg/Opus of the same length, null for a silent video, and long tracks
 * cut into pieces with their offsets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audioPieces, extractAudioTrack } from '../../../lib/media/audio-track';
import { probeMedia } from '../../../lib/media/probe';
import { type FileServer, hasFfmpeg, makeClip, makeTone, serveFiles } from '../../support/media';

const maybe = hasFfmpeg ? describe : describe.skip;

maybe('extractAudioTrack', () => {
  let dir: string;
  let out: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audio-src-'));
    makeClip(join(dir, 'voiced.mp4'), { seconds: 10, tone: true });
    makeClip(join(dir, 'silent.mp4'), { seconds: 3 });
    makeTone(join(dir, 'note.wav'), 95);
  });

  beforeEach(() => {
    out = mkdtempSync(join(tmpdir(), 'audio-out-'));
  });

  afterEach(() => rmSync(out, { recursive: true, force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the sound of a video as mono 16 kHz Opus as long as the clip', async () => {
    const track = await extractAudioTrack({ input: join(dir, 'voiced.mp4'), dir: out });

    expect(track).not.toBeNull();
    expect(track!.path).toBe(join(out, 'audio.ogg'));
    expect(track!.bytes).toBeGreaterThan(1000);
    expect(track!.durationSeconds).toBeCloseTo(10, 0);
    const probe = await probeMedia(track!.path);
    expect(probe.hasAudio).toBe(true);
    expect(probe.video).toBeNull();
  });

  it('is null for a video without a sound track', async () => {
    expect(await extractAudioTrack({ input: join(dir, 'silent.mp4'), dir: out })).toBeNull();
  });

  it('reads the sound of a video over HTTP', async () => {
    const server: FileServer = await serveFiles(dir);
    try {
      const track = await extractAudioTrack({ input: `${server.origin}/voiced.mp4`, dir: out, name: 'http.ogg' });

      expect(track!.durationSeconds).toBeCloseTo(10, 0);
    } finally {
      await server.close();
    }
  });

  it('cuts 95 s of audio into pieces of at most 40 s at offsets 0, 40 and 80', async () => {
    const track = await extractAudioTrack({ input: join(dir, 'note.wav'), dir: out });
    expect(track!.durationSeconds).toBeCloseTo(95, 0);

    const pieces = await audioPieces(track!, { maxSeconds: 40, maxBytes: 25 * 1024 * 1024 });

    expect(pieces.map((p) => p.offsetSeconds)).toEqual([0, 40, 80]);
    expect(pieces.map((p) => Math.round(p.durationSeconds))).toEqual([40, 40, 15]);
    expect(pieces.every((p) => p.bytes > 0 && p.path !== track!.path)).toBe(true);
  });

  it('keeps a track within the limits as its own single piece', async () => {
    const track = await extractAudioTrack({ input: join(dir, 'voiced.mp4'), dir: out });

    expect(await audioPieces(track!, { maxSeconds: 40, maxBytes: 25 * 1024 * 1024 })).toEqual([
      { ...track, offsetSeconds: 0 },
    ]);
  });

  it('cuts by size when the byte limit is the tighter one', async () => {
    const track = await extractAudioTrack({ input: join(dir, 'note.wav'), dir: out });

    const pieces = await audioPieces(track!, { maxSeconds: 600, maxBytes: Math.ceil(track!.bytes / 2) });

    expect(pieces.length).toBe(3);
    expect(pieces.every((p) => p.bytes <= Math.ceil(track!.bytes / 2))).toBe(true);
  });
});
