/** Sharpness is measured on the pixels: blurring a frame lowers its score. */
import sharp from 'sharp';
import { sharpness } from '../../../lib/media/sharpness';

/** A checkerboard with fine detail, as a JPEG. */
function checkerboard(width: number, height: number, cell: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = (Math.floor(x / cell) + Math.floor(y / cell)) % 2 ? 230 : 25;
      pixels.fill(value, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('sharpness', () => {
  it('scores a blurred copy of a frame lower than the frame, and more blur lower still', async () => {
    const original = await checkerboard(800, 450, 12);
    const blurred = await sharp(original).blur(2).jpeg({ quality: 90 }).toBuffer();
    const blurrier = await sharp(original).blur(6).jpeg({ quality: 90 }).toBuffer();

    const [a, b, c] = await Promise.all([sharpness(original), sharpness(blurred), sharpness(blurrier)]);

    expect(b).toBeLessThan(a);
    expect(c).toBeLessThan(b);
  });

  it('scores a flat image zero', async () => {
    const flat = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#777777' } })
      .jpeg()
      .toBuffer();

    expect(await sharpness(flat)).toBe(0);
  });

  it('scores a strip too thin for the kernel zero', async () => {
    const dot = await sharp({ create: { width: 600, height: 1, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();

    expect(await sharpness(dot)).toBe(0);
  });
});
