/**
 * lib/media/images.ts against real image files: most inputs are encoded here with sharp,
 * the HEIC, BMP (refused) and ImageMagick CMYK inputs are committed under tests/fixtures/images/
 * (see make-fixtures.js there). Every picture is the same "quadrants" layout so orientation
 * is checked by colour: top-left red, top-right green, bottom-left blue, bottom-right white.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp, { type Sharp } from 'sharp';
import {
  MAX_INPUT_PIXELS,
  normalizeCapturedAt,
  normalizePhoto,
  resizeForModel,
  SNIFF_HEAD_BYTES,
  sniffImage,
  thumbnail,
  UnreadableImageError,
  type NormalizedPhoto,
} from '../../../lib/media/images';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'images');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

type RGB = [number, number, number];
const RED: RGB = [255, 0, 0];
const GREEN: RGB = [0, 255, 0];
const BLUE: RGB = [0, 0, 255];
const WHITE: RGB = [255, 255, 255];

/** 64x48 quadrants (or any size); alphaBottomRight makes that quadrant transparent black. */
function quadrants(width = 64, height = 48, opts: { alphaBottomRight?: boolean; colours?: [RGB, RGB, RGB, RGB] } = {}) {
  const [tl, tr, bl, br] = opts.colours ?? [RED, GREEN, BLUE, WHITE];
  const channels = opts.alphaBottomRight ? 4 : 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y < height / 2;
      const left = x < width / 2;
      const transparent = opts.alphaBottomRight && !top && !left;
      const c = transparent ? [0, 0, 0] : top && left ? tl : top ? tr : left ? bl : br;
      const i = (y * width + x) * channels;
      raw.set(c, i);
      if (channels === 4) raw[i + 3] = transparent ? 0 : 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels } });
}

async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return Array.from(data.subarray(i, i + info.channels));
}

function expectColour(actual: number[], expected: RGB, tolerance = 40): void {
  const close = expected.every((v, i) => Math.abs(actual[i] - v) <= tolerance);
  if (!close) throw new Error(`colour ${JSON.stringify(actual)} is not close to ${JSON.stringify(expected)}`);
}

/** Checks the colours near the four corners (inset 4 px, away from chroma bleed). */
async function expectCorners(
  image: Buffer,
  corners: { tl: RGB; tr: RGB; bl: RGB; br: RGB },
  tolerance = 40,
): Promise<void> {
  const { width, height } = await sharp(image).metadata();
  expectColour(await pixel(image, 4, 4), corners.tl, tolerance);
  expectColour(await pixel(image, width - 5, 4), corners.tr, tolerance);
  expectColour(await pixel(image, 4, height - 5), corners.bl, tolerance);
  expectColour(await pixel(image, width - 5, height - 5), corners.br, tolerance);
}

const UPRIGHT = { tl: RED, tr: GREEN, bl: BLUE, br: WHITE };

/** The output contract: baseline JPEG, 8-bit sRGB, 3 channels, no alpha, no metadata. */
async function expectNormalized(result: NormalizedPhoto): Promise<void> {
  expect(sniffImage(result.jpeg)).toBe('jpeg');
  const meta = await sharp(result.jpeg).metadata();
  expect(meta).toMatchObject({
    format: 'jpeg',
    channels: 3,
    space: 'srgb',
    depth: 'uchar',
    hasAlpha: false,
    hasProfile: false,
    isProgressive: false,
    width: result.width,
    height: result.height,
  });
  expect(meta.exif).toBeUndefined();
  expect(meta.icc).toBeUndefined();
  expect(meta.orientation ?? 1).toBe(1);
}

async function expectUnreadable(
  input: Buffer,
  message?: RegExp,
  options?: Parameters<typeof normalizePhoto>[1],
): Promise<void> {
  const error = await normalizePhoto(input, options).then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(UnreadableImageError);
  expect((error as Error).message.length).toBeLessThan(200);
  if (message) expect((error as Error).message).toMatch(message);
}

/** Deterministic pseudo-random bytes (xorshift) that start with no known magic. */
function noise(length: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let s = seed >>> 0;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = s & 0xff;
  }
  out[0] = 0x13; // never a magic byte
  return out;
}

function ftyp(major: string, compatible: string[]): Buffer {
  const size = 16 + compatible.length * 4;
  const head = Buffer.alloc(size + 16);
  head.writeUInt32BE(size, 0);
  head.write('ftyp', 4, 'latin1');
  head.write(major, 8, 'latin1');
  compatible.forEach((b, i) => {
    head.write(b, 16 + i * 4, 'latin1');
  });
  head.write('\0\0\0\x08free', size, 'latin1');
  return head;
}

/** Rewrites the SOF0/SOF2 dimensions of a JPEG (no checksum to fix) to fake a huge image. */
function withJpegSize(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  let p = 2;
  while (p < out.length) {
    const marker = out[p + 1];
    const length = out.readUInt16BE(p + 2);
    if (marker === 0xc0 || marker === 0xc2) {
      out.writeUInt16BE(height, p + 5);
      out.writeUInt16BE(width, p + 7);
      return out;
    }
    p += 2 + length;
  }
  throw new Error('no SOF marker');
}

let jpegQuadrants: Buffer;
let largePhoto: Buffer; // 640x480 noisy JPEG, big enough that truncation hits pixel data

beforeAll(async () => {
  jpegQuadrants = await quadrants().jpeg({ quality: 95 }).toBuffer();
  largePhoto = await sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
});

describe('sniffImage', () => {
  const cases: Array<[string, () => Promise<Buffer>, string]> = [
    ['jpeg', () => quadrants().jpeg().toBuffer(), 'jpeg'],
    ['png', () => quadrants().png().toBuffer(), 'png'],
    ['webp', () => quadrants().webp().toBuffer(), 'webp'],
    ['lossless webp', () => quadrants().webp({ lossless: true }).toBuffer(), 'webp'],
    ['gif', () => quadrants().gif().toBuffer(), 'gif'],
    ['tiff', () => quadrants().tiff().toBuffer(), 'tiff'],
    ['a big-endian tiff header', async () => Buffer.from('4d4d002a00000008', 'hex'), 'tiff'],
    ['avif (HEIF family)', () => quadrants().avif().toBuffer(), 'heic'],
    ['heic fixture', async () => fixture('quadrants-dated.heic'), 'heic'],
    ['heic with irot fixture', async () => fixture('portrait-irot.heic'), 'heic'],
    ['Display P3 heic fixture', async () => fixture('quadrants-p3.heic'), 'heic'],
    ['24-bit bmp fixture (recognised, so it can be refused by name)', async () => fixture('quadrants-24.bmp'), 'bmp'],
    ['ImageMagick cmyk jpeg fixture', async () => fixture('quadrants-cmyk.jpg'), 'jpeg'],
  ];

  it.each(cases)(
    'recognises %s from the whole file and from its first SNIFF_HEAD_BYTES',
    async (_name, make, expected) => {
      const file = await make();
      expect(sniffImage(file)).toBe(expected);
      expect(sniffImage(file.subarray(0, SNIFF_HEAD_BYTES))).toBe(expected);
    },
  );

  it('needs only a small head', () => {
    expect(SNIFF_HEAD_BYTES).toBeLessThanOrEqual(64);
    expect(SNIFF_HEAD_BYTES).toBeGreaterThanOrEqual(32);
  });

  it.each([
    ['HEIF with major brand mif1', ftyp('mif1', ['heic', 'miaf']), 'heic'],
    ['HEIF sequence msf1', ftyp('msf1', ['hevc']), 'heic'],
    ['avif major brand', ftyp('avif', ['mif1', 'miaf']), 'heic'],
    ['unknown major brand with heic compatible brand', ftyp('abcd', ['mif1', 'heic']), 'heic'],
  ])('recognises %s', (_name, head, expected) => {
    expect(sniffImage(head)).toBe(expected);
  });

  it.each([
    ['empty input', Buffer.alloc(0)],
    ['3 bytes of a jpeg', Buffer.from([0xff, 0xd8, 0xff])],
    ['7 bytes of a png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a])],
    ['GIF8 only', Buffer.from('GIF8')],
    ['a RIFF that is not WebP (wav)', Buffer.from('RIFF\x24\x08\x00\x00WAVEfmt \x10\x00\x00\x00', 'latin1')],
    ['a PDF header', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1')],
    ['an mp4 header (isom)', ftyp('isom', ['isom', 'iso2', 'avc1', 'mp41'])],
    ['an mp4 header (mp42)', ftyp('mp42', ['mp42', 'isom'])],
    ['an iPhone mov header', ftyp('qt  ', ['qt  '])],
    ['an m4a header', ftyp('M4A ', ['M4A ', 'mp42', 'isom'])],
    ['a video that also lists mif1', ftyp('mp42', ['mp42', 'mif1'])],
    ['a truncated ftyp box', ftyp('heic', ['mif1']).subarray(0, 10)],
    ['plain text', Buffer.from('Living room: sofa, two lamps, a rug and a TV stand.\n')],
    ['an SVG', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')],
    ['JSON', Buffer.from('{"captured_ats":["2024-05-01T10:20:30Z"]}')],
    ['a zip', Buffer.from('504b0304140000000800', 'hex')],
    ['text starting with BM', Buffer.from('BM is not a bitmap, it is just text that happens to start so')],
    ['random bytes', noise(64)],
  ])('says null for %s', (_name, head) => {
    expect(sniffImage(head)).toBeNull();
  });

  it('accepts a Uint8Array', async () => {
    const png = await quadrants().png().toBuffer();
    expect(sniffImage(new Uint8Array(png.buffer, png.byteOffset, 16))).toBe('png');
  });
});

describe('normalizePhoto', () => {
  it.each([
    [1, 64, 48, UPRIGHT],
    [3, 64, 48, { tl: WHITE, tr: BLUE, bl: GREEN, br: RED }],
    [6, 48, 64, { tl: BLUE, tr: RED, bl: WHITE, br: GREEN }],
    [8, 48, 64, { tl: GREEN, tr: WHITE, bl: RED, br: BLUE }],
  ] as const)('applies EXIF Orientation %i so the result is upright', async (orientation, width, height, corners) => {
    const input = await sharp(jpegQuadrants).withMetadata({ orientation }).jpeg({ quality: 95 }).toBuffer();
    expect((await sharp(input).metadata()).orientation).toBe(orientation);

    const result = await normalizePhoto(input);

    expect(result).toMatchObject({ width, height, sourceType: 'jpeg', capturedAt: null });
    await expectNormalized(result);
    await expectCorners(result.jpeg, corners);
  });

  it('flattens PNG alpha onto white (not black)', async () => {
    const input = await quadrants(64, 48, { alphaBottomRight: true }).png().toBuffer();
    expect((await sharp(input).metadata()).hasAlpha).toBe(true);

    const result = await normalizePhoto(input);

    expect(result).toMatchObject({ width: 64, height: 48, sourceType: 'png' });
    await expectNormalized(result);
    await expectCorners(result.jpeg, UPRIGHT);
  });

  it('flattens half-transparent pixels onto white', async () => {
    const input = await sharp({
      create: { width: 16, height: 16, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } },
    })
      .png()
      .toBuffer();
    const result = await normalizePhoto(input);
    await expectNormalized(result);
    expectColour(await pixel(result.jpeg, 8, 8), [255, 128, 128], 12);
  });

  it('converts a CMYK JPEG written by sharp to sRGB', async () => {
    // Colours inside the press CMYK gamut, so the sRGB -> CMYK -> sRGB round trip holds.
    const colours: [RGB, RGB, RGB, RGB] = [
      [190, 70, 60],
      [90, 150, 80],
      [60, 90, 150],
      [235, 235, 235],
    ];
    const input = await quadrants(64, 48, { colours }).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
    const meta = await sharp(input).metadata();
    expect(meta).toMatchObject({ space: 'cmyk', channels: 4 });

    const result = await normalizePhoto(input);

    await expectNormalized(result);
    const [tl, tr, bl, br] = colours;
    await expectCorners(result.jpeg, { tl, tr, bl, br }, 30);
  });

  it('converts an Adobe CMYK JPEG written by ImageMagick (fixture) to sRGB', async () => {
    const input = fixture('quadrants-cmyk.jpg');
    expect((await sharp(input).metadata()).space).toBe('cmyk');

    const result = await normalizePhoto(input);

    await expectNormalized(result);
    // ImageMagick converted naively (green -> C100 Y100) and libvips reads that through a
    // press CMYK profile, so the colours are press colours: check hues, not exact values.
    // (A wrong Adobe inversion would make white black and red cyan.)
    const dominant = async (x: number, y: number) => {
      const [r, g, b] = await pixel(result.jpeg, x, y);
      return r > 200 && g > 200 && b > 200
        ? 'white'
        : r > g + 80 && r > b + 80
          ? 'red'
          : g > r + 80 && g > b + 50
            ? 'green'
            : b > r + 80 && b > g + 80
              ? 'blue'
              : 'other';
    };
    expect([await dominant(4, 4), await dominant(59, 4), await dominant(4, 43), await dominant(59, 43)]).toEqual([
      'red',
      'green',
      'blue',
      'white',
    ]);
  });

  it('converts a Display P3 JPEG to sRGB through its ICC profile', async () => {
    const input = await quadrants().withIccProfile('p3').jpeg({ quality: 95 }).toBuffer();
    // The stored values are P3 values: sRGB red is about (234, 51, 35) in P3.
    const stored = await sharp(input, { ignoreIcc: true }).raw().toBuffer();
    expectColour(Array.from(stored.subarray((4 * 64 + 4) * 3, (4 * 64 + 4) * 3 + 3)), [234, 51, 35], 8);

    const result = await normalizePhoto(input);

    await expectNormalized(result);
    await expectCorners(result.jpeg, UPRIGHT, 15);
  });

  it('reduces a 16-bit PNG to 8 bits with the right colours', async () => {
    const input = await quadrants().toColourspace('rgb16').png().toBuffer();
    expect((await sharp(input).metadata()).depth).toBe('ushort');

    const result = await normalizePhoto(input);

    await expectNormalized(result);
    await expectCorners(result.jpeg, UPRIGHT);
  });

  it('reduces a 16-bit grayscale PNG', async () => {
    const input = await sharp({
      create: { width: 20, height: 10, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .toColourspace('grey16')
      .png()
      .toBuffer();
    expect(await sharp(input).metadata()).toMatchObject({ depth: 'ushort', channels: 1 });

    const result = await normalizePhoto(input);

    await expectNormalized(result);
    expectColour(await pixel(result.jpeg, 10, 5), [128, 128, 128], 6);
  });

  it.each([
    ['jpeg', (s: Sharp) => s.jpeg()],
    ['png', (s: Sharp) => s.png()],
  ])('turns a grayscale %s into 3-channel sRGB', async (type, encode) => {
    const input = await encode(quadrants().toColourspace('b-w')).toBuffer();
    expect((await sharp(input).metadata()).channels).toBe(1);

    const result = await normalizePhoto(input);

    expect(result.sourceType).toBe(type);
    await expectNormalized(result);
    const [r, g, b] = await pixel(result.jpeg, 4, 4);
    expect(Math.abs(r - g)).toBeLessThanOrEqual(2);
    expect(Math.abs(g - b)).toBeLessThanOrEqual(2);
  });

  it.each([
    ['webp', (s: Sharp) => s.webp({ quality: 95 })],
    ['gif', (s: Sharp) => s.gif()],
    ['tiff', (s: Sharp) => s.tiff()],
    ['heic', (s: Sharp) => s.avif({ quality: 90 })], // AVIF: decoded by sharp itself
  ])('decodes %s', async (type, encode) => {
    const input = await encode(quadrants()).toBuffer();

    const result = await normalizePhoto(input);

    expect(result).toMatchObject({ width: 64, height: 48, sourceType: type });
    await expectNormalized(result);
    await expectCorners(result.jpeg, UPRIGHT);
  });

  it('takes the first frame of an animated GIF', async () => {
    const frames = Buffer.concat([
      await quadrants().raw().toBuffer(),
      Buffer.alloc(64 * 48 * 3, 0),
      Buffer.alloc(64 * 48 * 3, 0x80),
    ]);
    const input = await sharp(frames, { raw: { width: 64, height: 144, channels: 3, pageHeight: 48 } })
      .gif()
      .toBuffer();
    expect((await sharp(input).metadata()).pages).toBe(3);

    const result = await normalizePhoto(input);

    expect(result).toMatchObject({ width: 64, height: 48, sourceType: 'gif' });
    await expectCorners(result.jpeg, UPRIGHT);
  });

  it('applies the EXIF orientation of a PNG too', async () => {
    const input = await quadrants().png().withMetadata({ orientation: 6 }).toBuffer();
    const result = await normalizePhoto(input);
    expect(result).toMatchObject({ width: 48, height: 64 });
    await expectCorners(result.jpeg, { tl: BLUE, tr: RED, bl: WHITE, br: GREEN });
  });

  it('refuses BMP with a clear reason instead of decoding it', async () => {
    await expectUnreadable(fixture('quadrants-24.bmp'), /BMP images are not supported; save the photo as JPEG or PNG/);
  });

  describe('HEIC (heic-decode)', () => {
    it('decodes a real HEIC and reads its EXIF DateTimeOriginal', async () => {
      const result = await normalizePhoto(fixture('quadrants-dated.heic'));

      expect(result).toEqual(
        expect.objectContaining({ width: 64, height: 48, sourceType: 'heic', capturedAt: '2024-05-01T10:20:30' }),
      );
      await expectNormalized(result);
      await expectCorners(result.jpeg, UPRIGHT);
    });

    it('applies the irot box and does not apply the EXIF Orientation again', async () => {
      const input = fixture('portrait-irot.heic');
      const result = await normalizePhoto(input);

      expect(result).toMatchObject({ width: 48, height: 64, sourceType: 'heic', capturedAt: '2024-05-01T10:20:30' });
      await expectNormalized(result);
      await expectCorners(result.jpeg, { tl: BLUE, tr: RED, bl: WHITE, br: GREEN });
    });

    it('converts a Display P3 HEIC to sRGB through its ICC profile', async () => {
      const input = fixture('quadrants-p3.heic');
      expect((await sharp(input).metadata()).hasProfile).toBe(true);

      const result = await normalizePhoto(input);

      expect(result).toMatchObject({ width: 64, height: 48, sourceType: 'heic', capturedAt: null });
      await expectNormalized(result);
      await expectCorners(result.jpeg, UPRIGHT, 15);
    });

    it('decodes HEVC HEIF whose major brand heic-decode does not list', async () => {
      const input = Buffer.from(fixture('quadrants-dated.heic'));
      input.write('heim', 8, 'latin1');
      const result = await normalizePhoto(input);
      expect(result).toMatchObject({ width: 64, height: 48, sourceType: 'heic' });
    });

    it('refuses a truncated HEIC', async () => {
      const heic = fixture('quadrants-dated.heic');
      await expectUnreadable(heic.subarray(0, Math.floor(heic.length / 2)));
      await expectUnreadable(heic.subarray(0, 40));
    });

    it('refuses a HEIC header followed by garbage', async () => {
      await expectUnreadable(Buffer.concat([fixture('quadrants-dated.heic').subarray(0, 36), noise(4000)]));
    });
  });

  describe('capturedAt', () => {
    it('reads DateTimeOriginal from the JPEG fixture', async () => {
      const input = fixture('quadrants-dated.jpg');
      const result = await normalizePhoto(input);
      expect(result.capturedAt).toBe('2024-05-01T10:20:30');
      // and strips the EXIF from the output
      await expectNormalized(result);
    });

    it('falls back to DateTimeDigitized, then DateTime', async () => {
      const digitized = await sharp(jpegQuadrants)
        .withExif({ IFD0: { DateTime: '2024:05:02 08:00:00' }, IFD2: { DateTimeDigitized: '2023:01:02 03:04:05' } })
        .jpeg()
        .toBuffer();
      expect((await normalizePhoto(digitized)).capturedAt).toBe('2023-01-02T03:04:05');

      const modified = await sharp(jpegQuadrants)
        .withExif({ IFD0: { DateTime: '2024:05:02 08:00:00' } })
        .jpeg()
        .toBuffer();
      expect((await normalizePhoto(modified)).capturedAt).toBe('2024-05-02T08:00:00');
    });

    it('skips an unset (zero) DateTimeOriginal', async () => {
      const input = await sharp(jpegQuadrants)
        .withExif({ IFD0: { DateTime: '2022:12:31 23:59:59' }, IFD2: { DateTimeOriginal: '0000:00:00 00:00:00' } })
        .jpeg()
        .toBuffer();
      expect((await normalizePhoto(input)).capturedAt).toBe('2022-12-31T23:59:59');
    });

    it('is null without EXIF or with a garbage date', async () => {
      expect((await normalizePhoto(jpegQuadrants)).capturedAt).toBeNull();
      const garbage = await sharp(jpegQuadrants)
        .withExif({ IFD2: { DateTimeOriginal: 'yesterday' } })
        .jpeg()
        .toBuffer();
      expect((await normalizePhoto(garbage)).capturedAt).toBeNull();
    });

    it('reads EXIF from PNG and WebP', async () => {
      const exif = { IFD2: { DateTimeOriginal: '2021:07:08 09:10:11' } };
      for (const input of [
        await quadrants().png().withExif(exif).toBuffer(),
        await quadrants().webp().withExif(exif).toBuffer(),
      ]) {
        expect((await normalizePhoto(input)).capturedAt).toBe('2021-07-08T09:10:11');
      }
    });
  });

  describe('options', () => {
    it('downscales to maxLongEdge and never upscales', async () => {
      const big = await normalizePhoto(largePhoto, { maxLongEdge: 100 });
      expect(big).toMatchObject({ width: 100, height: 75 });
      const small = await normalizePhoto(jpegQuadrants, { maxLongEdge: 5000 });
      expect(small).toMatchObject({ width: 64, height: 48 });
    });

    it('uses the quality option', async () => {
      const low = await normalizePhoto(largePhoto, { quality: 30 });
      const high = await normalizePhoto(largePhoto);
      expect(low.jpeg.length).toBeLessThan(high.jpeg.length);
    });

    it('rejects invalid options with RangeError', async () => {
      await expect(normalizePhoto(jpegQuadrants, { quality: 0 })).rejects.toThrow(RangeError);
      await expect(normalizePhoto(jpegQuadrants, { quality: 101 })).rejects.toThrow(RangeError);
      await expect(normalizePhoto(jpegQuadrants, { maxLongEdge: -1 })).rejects.toThrow(RangeError);
    });
  });

  describe('unreadable input', () => {
    it('refuses a JPEG truncated to 100 bytes', async () => {
      await expectUnreadable(largePhoto.subarray(0, 100));
    });

    it('refuses a JPEG whose pixel data is cut off', async () => {
      await expectUnreadable(largePhoto.subarray(0, Math.floor(largePhoto.length / 2)));
    });

    it('refuses a truncated PNG', async () => {
      const png = await sharp(largePhoto).png().toBuffer();
      await expectUnreadable(png.subarray(0, Math.floor(png.length / 2)));
    });

    it.each([
      ['random bytes', noise(5000)],
      ['random bytes behind a JPEG SOI', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), noise(5000)])],
      ['random bytes behind a PNG signature', Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), noise(5000)])],
      ['a BMP header with no pixels', fixture('quadrants-24.bmp').subarray(0, 200)],
      ['empty input', Buffer.alloc(0)],
      ['text', Buffer.from('not an image at all')],
      ['a PDF', Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n')],
      [
        'an SVG (never handed to a decoder)',
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
        ),
      ],
      ['an mp4 header', Buffer.concat([ftyp('isom', ['isom', 'mp41']), noise(1000)])],
    ])('refuses %s with UnreadableImageError', async (_name, input) => {
      await expectUnreadable(input);
    });
  });

  describe('decompression-bomb guard', () => {
    it('exports a pixel limit', () => {
      expect(MAX_INPUT_PIXELS).toBe(100_000_000);
    });

    it('refuses a JPEG whose header declares more than MAX_INPUT_PIXELS, before decoding', async () => {
      const bomb = withJpegSize(jpegQuadrants, 20_000, 20_000);
      expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(20_000);
      await expectUnreadable(bomb, /too large: 20000x20000 exceeds 100000000 pixels/);
    });

    it('accepts an image just under a custom limit and refuses it above', async () => {
      await expect(normalizePhoto(jpegQuadrants, { maxInputPixels: 64 * 48 })).resolves.toMatchObject({ width: 64 });
      await expectUnreadable(jpegQuadrants, /too large/, { maxInputPixels: 64 * 48 - 1 });
    });

    it('guards HEIC before heic-decode runs', async () => {
      await expectUnreadable(fixture('quadrants-dated.heic'), /too large: 64x48/, { maxInputPixels: 1000 });
    });
  });
});

describe('resizeForModel', () => {
  const limits = { maxPixels: 1_150_000, maxLongEdge: 1568 };
  const solid = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 90, g: 120, b: 150 } } })
      .jpeg()
      .toBuffer();

  it('applies the pixel limit to a 12 MP photo (4000x3000 -> within 1.15 MP)', async () => {
    const result = await resizeForModel(await solid(4000, 3000), limits);
    expect(result.width * result.height).toBeLessThanOrEqual(limits.maxPixels);
    expect(Math.max(result.width, result.height)).toBeLessThanOrEqual(limits.maxLongEdge);
    expect(result).toMatchObject({ width: 1238, height: 928 });
    expect(await sharp(result.jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 1238, height: 928 });
  });

  it('applies the long-edge limit to a panorama', async () => {
    const result = await resizeForModel(await solid(6000, 1000), limits);
    expect(result).toMatchObject({ width: 1568, height: 261 });
  });

  it('fits within both limits whichever binds', async () => {
    for (const [w, h] of [
      [3024, 4032],
      [1568, 1568],
      [2000, 100],
      [1200, 1000],
    ]) {
      const result = await resizeForModel(await solid(w, h), limits);
      expect(result.width * result.height).toBeLessThanOrEqual(limits.maxPixels);
      expect(Math.max(result.width, result.height)).toBeLessThanOrEqual(limits.maxLongEdge);
      const scale = result.width / w;
      expect(Math.abs(result.height - h * scale)).toBeLessThan(1);
    }
  });

  it('never upscales: a small upright JPEG comes back untouched', async () => {
    const input = await solid(640, 480);
    const result = await resizeForModel(input, limits);
    expect(result).toMatchObject({ width: 640, height: 480 });
    expect(result.jpeg).toBe(input);
  });

  it('re-encodes a small JPEG that still carries an EXIF orientation, upright', async () => {
    const input = await sharp(jpegQuadrants).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const result = await resizeForModel(input, limits);
    expect(result).toMatchObject({ width: 48, height: 64 });
    await expectCorners(result.jpeg, { tl: BLUE, tr: RED, bl: WHITE, br: GREEN });
  });

  it('rejects missing or invalid limits', async () => {
    const input = await solid(10, 10);
    await expect(resizeForModel(input, { maxPixels: 0, maxLongEdge: 100 })).rejects.toThrow(RangeError);
    await expect(resizeForModel(input, { maxPixels: 100, maxLongEdge: 1.5 })).rejects.toThrow(RangeError);
  });

  it('throws UnreadableImageError for bytes that are not an image', async () => {
    await expect(resizeForModel(noise(100), limits)).rejects.toThrow(UnreadableImageError);
  });
});

describe('thumbnail', () => {
  const solid = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 10, g: 200, b: 30 } } })
      .jpeg()
      .toBuffer();

  it.each([
    [4000, 3000, 640, 480],
    [3000, 4000, 480, 640],
    [300, 200, 300, 200],
  ])('%ix%i -> %ix%i', async (w, h, tw, th) => {
    const result = await thumbnail(await solid(w, h));
    expect(result).toMatchObject({ width: tw, height: th });
    expect(await sharp(result.jpeg).metadata()).toMatchObject({ format: 'jpeg', width: tw, height: th });
  });

  it('takes another long edge', async () => {
    expect(await thumbnail(await solid(1000, 500), 200)).toMatchObject({ width: 200, height: 100 });
  });
});

describe('normalizeCapturedAt', () => {
  it.each([
    ['2024-05-01T10:20:30Z', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20:30.123Z', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20:30+02:00', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20:30-0700', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20:30', '2024-05-01T10:20:30'],
    ['2024-05-01 10:20:30', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20', '2024-05-01T10:20:00'],
    ['2024:05:01 10:20:30', '2024-05-01T10:20:30'],
    ['2024:05:01 10:20:30.45+01:00', '2024-05-01T10:20:30'],
    ['2024-05-01', '2024-05-01T00:00:00'],
    ['  2024-05-01T10:20:30Z ', '2024-05-01T10:20:30'],
    ['2024-02-29T12:00:00', '2024-02-29T12:00:00'],
    ['1714558830000', '2024-05-01T10:20:30'],
    ['1714558830', '2024-05-01T10:20:30'],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeCapturedAt(input)).toBe(expected);
  });

  it('accepts epoch milliseconds as a number and Date objects (UTC)', () => {
    expect(normalizeCapturedAt(1714558830000)).toBe('2024-05-01T10:20:30');
    expect(normalizeCapturedAt(new Date('2024-05-01T10:20:30.999Z'))).toBe('2024-05-01T10:20:30');
  });

  it.each([
    null,
    undefined,
    '',
    '   ',
    '0000:00:00 00:00:00',
    '2023-02-29T10:00:00',
    '2024-13-01T10:00:00',
    '2024-04-31T10:00:00',
    '2024-05-01T24:00:00',
    '2024-05-01T10:60:00',
    '1899-12-31T23:59:59',
    '2101-01-01T00:00:00',
    'yesterday',
    '05/01/2024 10:20:30',
    '2024',
    '12345',
    'NaN',
    Number.NaN,
    Number.POSITIVE_INFINITY,
    new Date('not a date'),
  ])('%p -> null', (input) => {
    expect(normalizeCapturedAt(input as string | number | Date | null | undefined)).toBeNull();
  });
});

describe('timing (reported, not asserted)', () => {
  it('normalizes a 12 MP (4000x3000) JPEG', async () => {
    const photo = await sharp({
      create: {
        width: 4000,
        height: 3000,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .blur(1.2)
      .jpeg({ quality: 92 })
      .toBuffer();
    const rotated = await sharp(photo).withMetadata({ orientation: 6 }).jpeg({ quality: 92 }).toBuffer();
    await normalizePhoto(photo); // warm-up

    const time = async (input: Buffer, options?: Parameters<typeof normalizePhoto>[1]) => {
      const runs: number[] = [];
      let result: NormalizedPhoto | undefined;
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        result = await normalizePhoto(input, options);
        runs.push(performance.now() - start);
      }
      return { ms: Math.round(Math.min(...runs)), out: result! };
    };
    const upright = await time(photo);
    const turned = await time(rotated);
    const capped = await time(photo, { maxLongEdge: 1568 });
    const forModel = performance.now();
    await resizeForModel(upright.out.jpeg, { maxPixels: 1_150_000, maxLongEdge: 1568 });
    const modelMs = Math.round(performance.now() - forModel);

    expect(turned.out).toMatchObject({ width: 3000, height: 4000 });
    console.log(
      [
        `normalizePhoto 4000x3000 JPEG (${(photo.length / 1e6).toFixed(1)} MB in): ` +
          `upright ${upright.ms} ms -> ${(upright.out.jpeg.length / 1e6).toFixed(1)} MB; ` +
          `EXIF Orientation 6 ${turned.ms} ms; with maxLongEdge 1568 ${capped.ms} ms`,
        `resizeForModel of the normalized 12 MP JPEG: ${modelMs} ms`,
      ].join('\n'),
    );
  });
});
