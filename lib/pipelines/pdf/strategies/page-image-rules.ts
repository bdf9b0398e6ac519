/**
 * The page_image recipe's rules: the boxes the vision model marked on a
 * rendered page become regions of the page to crop, in points. A page where
 * the model marked nothing has no photos (it is dropped); a page the model
 * could not be asked about is kept whole.
 */
import type { PdfBox, PdfPageLayout } from '../../../pdf/layout';
import { lenientBox } from '../../video/answer-rules';
import { leadingQuantity, normalizePrintedDate } from '../page/caption-rules';
import type { PdfPhotoFinding } from '../finding';
import { firstValue, inReadingOrder, rightOf, bottomOf } from '../page/page-content-rules';
import type { MarkedBox } from './page-image-schemas';

/** The page a finding is on: its number and size in points. */
type PageFrame = Pick<PdfPageLayout, 'page' | 'width' | 'height'>;

/** A marked box smaller than this many points on either edge (a third of an inch) is a speck, not a photo. */
export const MIN_REGION_PT = 24;

/** Two marked boxes sharing this much (intersection over union) are the same photo marked twice. */
const SAME_BOX_IOU = 0.9;

function text(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  const trimmed = v.replace(/\s+/g, ' ').trim();
  return trimmed ? trimmed.slice(0, max) : null;
}

/**
 * The model's answer for one page, read leniently: {"photos": [...]} or a
 * bare list, each box as MarkedBox (numbers as strings, w/h, or
 * [x, y, width, height] accepted; clipped to the page). Boxes that cannot be
 * read are left out. Null when the answer is not a list of boxes at all:
 * the page was not read, so the caller keeps it whole.
 */
export function readMarkedBoxes(answer: unknown): MarkedBox[] | null {
  const list = Array.isArray(answer)
    ? answer
    : answer && typeof answer === 'object' && Array.isArray((answer as Record<string, unknown>).photos)
      ? ((answer as Record<string, unknown>).photos as unknown[])
      : null;
  if (!list) return null;
  return list.flatMap((raw) => {
    const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const box = lenientBox(r.box ?? raw);
    return box ? [{ ...box, label: text(r.label, 200), description: text(r.description, 1000) }] : [];
  });
}

/** Points to a hundredth: finer is noise from the fractions. */
const hundredths = (n: number) => Math.round(n * 100) / 100;

function intersectionOverUnion(a: PdfBox, b: PdfBox): number {
  const w = Math.min(rightOf(a), rightOf(b)) - Math.max(a.x, b.x);
  const h = Math.min(bottomOf(a), bottomOf(b)) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const shared = w * h;
  return shared / (a.width * a.height + b.width * b.height - shared);
}

/**
 * The marked boxes as regions of the page in points, in reading order:
 * clamped to the page, specks (under MIN_REGION_PT on an edge) and repeats
 * of a box already marked dropped. No boxes: no findings (the page holds no
 * photo). quantity and capturedAt from the description, then the label.
 */
export function pageImageFindings(page: PageFrame, boxes: readonly MarkedBox[]): PdfPhotoFinding[] {
  const regions: (PdfBox & { mark: MarkedBox })[] = [];
  for (const mark of boxes) {
    const x = hundredths(Math.min(page.width, Math.max(0, mark.x * page.width)));
    const y = hundredths(Math.min(page.height, Math.max(0, mark.y * page.height)));
    const width = hundredths(Math.min(page.width, (mark.x + mark.width) * page.width) - x);
    const height = hundredths(Math.min(page.height, (mark.y + mark.height) * page.height) - y);
    const region = { x, y, width, height, mark };
    if (width < MIN_REGION_PT || height < MIN_REGION_PT) continue;
    if (regions.some((r) => intersectionOverUnion(r, region) >= SAME_BOX_IOU)) continue;
    regions.push(region);
  }
  return inReadingOrder(regions).map(({ mark, ...box }) => {
    const label = text(mark.label, 200);
    const description = text(mark.description, 1000);
    const texts = [description, label].filter((t): t is string => t !== null);
    return {
      page: page.page,
      source: { kind: 'region', box },
      label,
      description,
      quantity: firstValue(texts, leadingQuantity),
      room: null,
      capturedAt: firstValue(texts, normalizePrintedDate),
    };
  });
}

/** The whole rendered page as one photo, for a page the model could not be asked about. */
export function wholePageFinding(page: PageFrame): PdfPhotoFinding {
  return {
    page: page.page,
    source: { kind: 'page' },
    label: null,
    description: null,
    quantity: null,
    room: null,
    capturedAt: null,
  };
}
