import sharp from 'sharp';
import { JpegSplitter } from '../../../lib/media/jpeg-stream';

function jpeg(seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(32 * 24 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * (seed + 7) * 31) % 256;
  return sharp(pixels, { raw: { width: 32, height: 24, channels: 3 } })
    .jpeg({ quality: 90, progressive: seed % 2 === 1 })
    .toBuffer();
}

/** An APP1 segment whose payload holds an end-of-image marker, as an EXIF thumbnail does. */
function withThumbnailSegment(image: Buffer): Buffer {
  const payload = Buffer.from([0x45, 0x78, 0x69, 0x66, 0, 0, 0xff, 0xd8, 0xff, 0xd9]);
  const segment = Buffer.alloc(4 + payload.length);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(payload.length + 2, 2);
  payload.copy(segment, 4);
  return Buffer.concat([image.subarray(0, 2), segment, image.subarray(2)]);
}

describe('JpegSplitter', () => {
  it('splits concatenated images at every chunk size, baseline and progressive', async () => {
    const images = [await jpeg(0), await jpeg(1), withThumbnailSegment(await jpeg(2)), await jpeg(3)];
    const stream = Buffer.concat(images);

    for (const size of [1, 2, 3, 7, 64, 4096, stream.length]) {
      const splitter = new JpegSplitter();
      const out: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...splitter.push(stream.subarray(i, i + size)));

      expect(out).toEqual(images);
      expect(splitter.pendingBytes).toBe(0);
    }
  });

  it('keeps an unfinished image pending', async () => {
    const image = await jpeg(4);
    const splitter = new JpegSplitter();

    expect(splitter.push(image.subarray(0, image.length - 1))).toEqual([]);
    expect(splitter.pendingBytes).toBe(image.length - 1);
    expect(splitter.push(image.subarray(image.length - 1))).toEqual([image]);
  });

  it('handles fill bytes and restart markers', () => {
    // SOI, fill byte, SOS header (length 2), data with stuffing, RST0 and a fill, then EOI.
    const image = Buffer.from([0xff, 0xd8, 0xff, 0xff, 0xda, 0, 2, 1, 0xff, 0, 2, 0xff, 0xd0, 3, 0xff, 0xff, 0xd9]);
    const bare = Buffer.from([0xff, 0xd8, 0xff, 0x01, 0xff, 0xd9]);

    expect(new JpegSplitter().push(Buffer.concat([image, bare]))).toEqual([image, bare]);
  });

  it('refuses a stream that is not JPEG', () => {
    expect(() => new JpegSplitter().push(Buffer.from('not an image'))).toThrow('not a sequence of JPEG images');
    expect(() => new JpegSplitter().push(Buffer.from([0xff, 0xd8, 0x12, 0x34]))).toThrow('corrupt JPEG');
  });
});
