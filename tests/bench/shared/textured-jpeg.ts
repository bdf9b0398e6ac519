import sharp from 'sharp';

/** A JPEG of width × height with texture (so its size is a real photo's), one of a few variants by seed. */
export function texturedJpeg(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * (seed + 3) * 31 + ((i / (width * 3)) | 0) * 7 * seed) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .blur(1.2)
    .jpeg({ quality: 82 })
    .toBuffer();
}
