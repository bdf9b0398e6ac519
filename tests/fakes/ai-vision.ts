/**
 * The fake AI gateway's vision mode (tests/fakes/ai-gateway-server.ts): the
 * answer to an unscripted video-chunk or voice-note-chunk request, read from
 * the request itself, so end-to-end tests on generated media get items that
 * follow what the media holds.
 *
 * - Video chunks (response_format named 'video_inventory_items'): every image
 *   is decoded and its pixels of strongly saturated red, green, blue, yellow,
 *   magenta or cyan are counted (by hue, with high saturation and value, so
 *   grey, white or black backgrounds and unsaturated textures never count). A
 *   colour is on a frame when it covers at least 0.5 % of its pixels. One item
 *   per colour seen on any frame, "Red box" etc.: frame and video_time from the
 *   label of the frame where the colour covers the most pixels (the earlier
 *   frame on a tie), box = the colour's bounding box on that frame as fractions
 *   of the image. Then one item per narration word of the user text.
 * - Voice-note chunks (response_format named 'spoken_inventory_items'): one
 *   item per narration word, audio_time = its line's time.
 *
 * Narration lines are the "[m:ss] word word …" lines of the user text (see
 * transcriptLines in lib/pipelines/video/prompt-rules.ts); a word's item is
 * the word without punctuation, capitalised, at its line's time.
 */
import sharp, { type OutputInfo } from 'sharp';

const VIDEO_SCHEMA = 'video_inventory_items';
const AUDIO_SCHEMA = 'spoken_inventory_items';
const CONFIDENCE = 0.9;
/** A colour is on a frame when it covers at least this share of the pixels. */
const MIN_COVER = 0.005;
const MIN_SATURATION = 0.5;
const MIN_VALUE = 0.4;
/** Images are examined at most this large (nearest-neighbour, so colours are not blended). */
const ANALYSIS_EDGE = 320;

/** Hue centres in degrees; a pixel takes the nearest (each colour owns ±30°). */
const COLOURS = [
  ['Red', 0],
  ['Yellow', 60],
  ['Green', 120],
  ['Cyan', 180],
  ['Blue', 240],
  ['Magenta', 300],
] as const;

export interface VisionImage {
  label: string;
  bytes: Buffer;
}

interface ColourOnFrame {
  count: number;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

interface FrameColours {
  width: number;
  height: number;
  colours: Map<number, ColourOnFrame>;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The json_schema name of a request's response_format, or null. */
function schemaName(responseFormat: unknown): string | null {
  if (typeof responseFormat !== 'object' || responseFormat === null) return null;
  const schema = (responseFormat as { json_schema?: { name?: unknown } }).json_schema;
  return typeof schema?.name === 'string' ? schema.name : null;
}

/** Index into COLOURS of a strongly saturated pixel's colour, or -1. */
function colourOf(r: number, g: number, b: number): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max / 255 < MIN_VALUE || (max - min) / max < MIN_SATURATION) return -1;
  const delta = max - min;
  let hue: number;
  if (max === r) hue = (60 * ((g - b) / delta) + 360) % 360;
  else if (max === g) hue = 60 * ((b - r) / delta) + 120;
  else hue = 60 * ((r - g) / delta) + 240;
  return Math.round(hue / 60) % COLOURS.length;
}

/** The saturated colours on one image with their pixel counts and bounding boxes; null when it does not decode. */
async function frameColours(bytes: Buffer): Promise<FrameColours | null> {
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(bytes)
      .resize({
        width: ANALYSIS_EDGE,
        height: ANALYSIS_EDGE,
        fit: 'inside',
        withoutEnlargement: true,
        kernel: 'nearest',
      })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    return null;
  }
  const { data, info } = decoded;
  const colours = new Map<number, ColourOnFrame>();
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const at = (y * info.width + x) * info.channels;
      const colour = colourOf(data[at], data[at + 1], data[at + 2]);
      if (colour < 0) continue;
      const seen = colours.get(colour);
      if (!seen) colours.set(colour, { count: 1, minX: x, minY: y, maxX: x, maxY: y });
      else {
        seen.count += 1;
        seen.minX = Math.min(seen.minX, x);
        seen.minY = Math.min(seen.minY, y);
        seen.maxX = Math.max(seen.maxX, x);
        seen.maxY = Math.max(seen.maxY, y);
      }
    }
  }
  const minimum = MIN_COVER * info.width * info.height;
  for (const [colour, seen] of colours) if (seen.count < minimum) colours.delete(colour);
  return { width: info.width, height: info.height, colours };
}

/** "Frame frame_000012.000.jpg at 0:12 (12 s)" → its name and time; any other label is a name at 0 s. */
function parseFrameLabel(label: string): { name: string; time: number } {
  const parsed = /^Frame (.+) at [\d:]+ \((\d+(?:\.\d+)?) s\)$/.exec(label.trim());
  return parsed ? { name: parsed[1], time: Number(parsed[2]) } : { name: label.trim(), time: 0 };
}

/** "1:23" → 83, "1:02:03" → 3723. */
const clockSeconds = (clock: string) => clock.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);

/** The narration words of a user text, each with its line's time and the line. */
function narrationWords(text: string): { name: string; time: number; line: string }[] {
  const words: { name: string; time: number; line: string }[] = [];
  for (const match of text.matchAll(/^\[(\d+(?::\d{2}){1,2})\] (.+)$/gm)) {
    const time = clockSeconds(match[1]);
    for (const raw of match[2].split(/\s+/)) {
      const bare = raw.replace(/[^\p{L}\p{N}]+/gu, '');
      if (bare) words.push({ name: bare[0].toUpperCase() + bare.slice(1), time, line: match[2] });
    }
  }
  return words;
}

const NULL_VIDEO_FIELDS = {
  brand: null,
  model: null,
  serial: null,
  sku: null,
  condition: null,
  age: null,
  estimated_price: null,
  damage: null,
  notes: null,
};

async function videoItems(text: string, images: VisionImage[]): Promise<Record<string, unknown>[]> {
  // The best frame per colour: most pixels, the earlier frame on a tie.
  const best = new Map<number, { frame: { name: string; time: number }; image: FrameColours; seen: ColourOnFrame }>();
  for (const image of images) {
    const colours = await frameColours(image.bytes);
    if (!colours) continue;
    const frame = parseFrameLabel(image.label);
    for (const [colour, seen] of colours.colours) {
      const current = best.get(colour);
      const better =
        !current ||
        seen.count > current.seen.count ||
        (seen.count === current.seen.count && frame.time < current.frame.time);
      if (better) best.set(colour, { frame, image: colours, seen });
    }
  }
  const seenItems = [...best.entries()]
    .sort(([a, x], [b, y]) => x.frame.time - y.frame.time || a - b)
    .map(([colour, { frame, image, seen }]) => ({
      name: `${COLOURS[colour][0]} box`,
      quantity: 1,
      ...NULL_VIDEO_FIELDS,
      confidence: CONFIDENCE,
      evidence: `a ${COLOURS[colour][0].toLowerCase()} box on ${frame.name}`,
      video_time: frame.time,
      frame: frame.name,
      box: {
        x: round4(seen.minX / image.width),
        y: round4(seen.minY / image.height),
        width: round4((seen.maxX - seen.minX + 1) / image.width),
        height: round4((seen.maxY - seen.minY + 1) / image.height),
      },
    }));
  const spokenItems = narrationWords(text).map((word) => ({
    name: word.name,
    quantity: 1,
    ...NULL_VIDEO_FIELDS,
    confidence: CONFIDENCE,
    evidence: `said: ${word.line}`,
    video_time: word.time,
    frame: null,
    box: null,
  }));
  return [...seenItems, ...spokenItems];
}

function audioItems(text: string): Record<string, unknown>[] {
  return narrationWords(text).map((word) => ({
    name: word.name,
    quantity: 1,
    brand: null,
    condition: null,
    age: null,
    estimated_price: null,
    notes: null,
    confidence: CONFIDENCE,
    evidence: `said: ${word.line}`,
    audio_time: word.time,
  }));
}

/**
 * The items of the vision-mode answer for a request with this response_format,
 * user text and labelled images; null when the request is not a video or
 * voice-note chunk (the fake then answers an empty list).
 */
export async function visionItems(
  responseFormat: unknown,
  text: string,
  images: VisionImage[],
): Promise<Record<string, unknown>[] | null> {
  const name = schemaName(responseFormat);
  if (name === VIDEO_SCHEMA) return videoItems(text, images);
  if (name === AUDIO_SCHEMA) return audioItems(text);
  return null;
}
