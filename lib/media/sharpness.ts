/**
 * How sharp a frame is, measured on its pixels: the variance of the Laplacian
 * (4-neighbour) over a greyscale copy scaled to a fixed long edge, so frames
 * of different sizes compare on the same footing. Edges make the Laplacian
 * swing widely; blur (motion, focus) flattens it. Higher = sharper.
 */
import sharp from 'sharp';

const MEASURE_LONG_EDGE = 512;

function laplacianVariance(pixels: Buffer, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  let sum = 0;
  let sumSquares = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const value = pixels[i - width] + pixels[i + width] + pixels[i - 1] + pixels[i + 1] - 4 * pixels[i];
      sum += value;
      sumSquares += value * value;
    }
  }
  const count = (width - 2) * (height - 2);
  const mean = sum / count;
  return sumSquares / count - mean * mean;
}

/** The sharpness score of an image (JPEG or any format sharp reads). */
export async function sharpness(image: Buffer): Promise<number> {
  const { data, info } = await sharp(image)
    .greyscale()
    .resize({ width: MEASURE_LONG_EDGE, height: MEASURE_LONG_EDGE, fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return laplacianVariance(data, info.width, info.height);
}

/** A frame's pixel size, with its sharpness left unmeasured (null). */
export async function frameSize(jpeg: Buffer): Promise<{ sharpness: null; width: number; height: number }> {
  const meta = await sharp(jpeg).metadata();
  if (!meta.width || !meta.height) throw new Error('a frame without a pixel size');
  return { sharpness: null, width: meta.width, height: meta.height };
}

/**
 * A frame's sharpness and pixel size, what the video pipeline records for
 * every frame it extracts. The sharpness is measured on `smaller`, a smaller
 * copy of the same frame when there is one (decoding it costs far less, and
 * the score is taken at 512 px either way).
 */
export async function measureFrame(
  jpeg: Buffer,
  smaller: Buffer = jpeg,
): Promise<{ sharpness: number; width: number; height: number }> {
  const [score, meta] = await Promise.all([sharpness(smaller), sharp(jpeg).metadata()]);
  if (!meta.width || !meta.height) throw new Error('a frame without a pixel size');
  return { sharpness: score, width: meta.width, height: meta.height };
}
