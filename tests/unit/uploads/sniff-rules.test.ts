/** Covers: lib/uploads/sniff-rules.ts (a recording's type from its first bytes). */
import { RECORDING_SNIFF_BYTES, recordingContentType } from '../../../lib/uploads/sniff-rules';

const latin = (s: string) => Buffer.from(s, 'latin1');
const padded = (head: Buffer, size = 64) => Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length))]);

/** An ftyp box: size, 'ftyp', major brand, minor version, compatible brands. */
function ftyp(major: string, ...compatible: string[]): Buffer {
  const size = 16 + 4 * compatible.length;
  const box = Buffer.alloc(size);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  for (const [i, b] of compatible.entries()) box.write(b, 16 + 4 * i, 'latin1');
  return padded(box);
}

const ebml = (docType: string) =>
  padded(Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]), latin(docType)]));

function packets(size: number, offset: number): Buffer {
  const buf = Buffer.alloc(size * 3 + offset);
  for (let i = 0; i < 3; i += 1) buf[offset + i * size] = 0x47;
  return buf;
}

describe('recordingContentType', () => {
  it('names video containers from their magic bytes', () => {
    expect(recordingContentType(ftyp('isom', 'isom', 'iso2', 'avc1', 'mp41'), 'video')).toBe('video/mp4');
    expect(recordingContentType(ftyp('qt  ', 'qt  '), 'video')).toBe('video/quicktime');
    expect(recordingContentType(padded(Buffer.concat([Buffer.from([0, 0, 0, 8]), latin('wide')])), 'video')).toBe(
      'video/quicktime',
    );
    expect(recordingContentType(ftyp('3gp4', '3gp4', 'isom'), 'video')).toBe('video/3gpp');
    expect(recordingContentType(ebml('webm'), 'video')).toBe('video/webm');
    expect(recordingContentType(ebml('matroska'), 'video')).toBe('video/x-matroska');
    expect(recordingContentType(padded(latin('RIFF\x00\x10\x00\x00AVI LIST')), 'video')).toBe('video/x-msvideo');
    expect(recordingContentType(packets(188, 0), 'video')).toBe('video/mp2t');
    expect(recordingContentType(packets(192, 4), 'video')).toBe('video/mp2t');
    expect(recordingContentType(padded(Buffer.from([0, 0, 1, 0xba, 0x44])), 'video')).toBe('video/mpeg');
  });

  it('names audio formats, and containers that hold either as the kind asked for', () => {
    expect(recordingContentType(ftyp('M4A ', 'M4A ', 'mp42', 'isom'), 'video')).toBe('audio/mp4');
    expect(recordingContentType(ftyp('isom', 'isom', 'mp42'), 'audio')).toBe('audio/mp4');
    expect(recordingContentType(ebml('webm'), 'audio')).toBe('audio/webm');
    expect(recordingContentType(padded(latin('OggS\x00\x02')), 'audio')).toBe('audio/ogg');
    expect(recordingContentType(padded(latin('OggS\x00\x02')), 'video')).toBe('video/ogg');
    expect(recordingContentType(padded(latin('RIFF\x24\x08\x00\x00WAVEfmt ')), 'audio')).toBe('audio/wav');
    expect(recordingContentType(padded(latin('fLaC\x00\x00\x00\x22')), 'audio')).toBe('audio/flac');
    expect(recordingContentType(padded(latin('#!AMR\n')), 'audio')).toBe('audio/amr');
    expect(recordingContentType(padded(latin('ID3\x04\x00\x00')), 'audio')).toBe('audio/mpeg');
    expect(recordingContentType(padded(Buffer.from([0xff, 0xfb, 0x90, 0x64])), 'audio')).toBe('audio/mpeg');
    expect(recordingContentType(padded(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc])), 'audio')).toBe(
      'audio/aac',
    );
  });

  it('refuses what is not a recording, whatever it was declared as', () => {
    for (const [name, head] of [
      ['HTML', padded(latin('<!DOCTYPE html><html><script>alert(1)</script>'))],
      ['HTML after a BOM', padded(latin('\xef\xbb\xbf<html><body>'))],
      ['SVG', padded(latin('<svg xmlns="http://www.w3.org/2000/svg">'))],
      ['text', padded(latin('just some words, not a video at all'))],
      ['JPEG', padded(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]))],
      ['PNG', padded(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
      ['HEIC', ftyp('heic', 'mif1', 'heic')],
      ['AVIF', ftyp('avif', 'avif', 'mif1', 'miaf')],
      ['PDF', padded(latin('%PDF-1.7\n'))],
      ['ZIP', padded(latin('PK\x03\x04'))],
      ['WebP', padded(latin('RIFF\x00\x10\x00\x00WEBPVP8 '))],
      ['empty', Buffer.alloc(0)],
      ['too short', latin('\x00\x00\x00')],
    ] as const)
      expect([name, recordingContentType(head, 'video')]).toEqual([name, null]);
  });

  it('looks at enough bytes for two transport stream packets', () => {
    expect(RECORDING_SNIFF_BYTES).toBeGreaterThan(4 + 2 * 192);
  });
});

describe('recordingContentType, the edges of ISO-BMFF and its input', () => {
  it('tells image brands from video ones, and a QuickTime or 3GPP voice note as audio', () => {
    // A HEIF/AVIF photo is no recording: by its major brand, or by image brands with no video brand beside them.
    expect(recordingContentType(ftyp('heic', 'mif1', 'heic'), 'video')).toBeNull();
    expect(recordingContentType(ftyp('dash', 'mif1', 'heic'), 'video')).toBeNull();
    expect(recordingContentType(ftyp('dash', 'mif1', 'isom'), 'video')).toBe('video/mp4');
    expect(recordingContentType(ftyp('qt  ', 'qt  '), 'audio')).toBe('audio/mp4');
    expect(recordingContentType(ftyp('3gp4', '3gp4'), 'audio')).toBe('audio/3gpp');
    const moov = padded(Buffer.concat([Buffer.from([0, 0, 0, 8]), latin('moov')]));
    expect(recordingContentType(moov, 'audio')).toBe('audio/mp4');
  });

  it('reads a Uint8Array view as the bytes it shows, and brands past the end of a short head as none', () => {
    const mp4 = ftyp('isom', 'isom', 'avc1');
    const backing = new Uint8Array(5 + mp4.length);
    backing.set(mp4, 5);
    const view = backing.subarray(5);
    expect(recordingContentType(view, 'video')).toBe('video/mp4');
    // The box says 64 bytes of brands, the head holds 12: the brands it cannot read count as none.
    const cut = Buffer.alloc(14);
    cut.writeUInt32BE(64, 0);
    cut.write('ftypisom', 4, 'latin1');
    expect(recordingContentType(cut, 'video')).toBe('video/mp4');
  });
});
