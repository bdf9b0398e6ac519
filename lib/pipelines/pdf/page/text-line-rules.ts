/**
 * Text runs joined into lines. A PDF draws text in runs (a word, a few words,
 * sometimes a piece of a word); the import reads lines. Runs that share a
 * band of the page (they overlap vertically, or sit on nearly the same
 * baseline) and follow each other closely from left to right make one line.
 * A wide horizontal gap splits a band into separate lines, so the columns of
 * a card grid stay apart even when their lines sit at the same height.
 */
import type { PdfText } from '../../../pdf/layout';

/** One line of text, in points (top-left origin, y down). */
export interface PdfLine {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Two runs farther apart than this many times their font height are in
 * different columns (a word space is about a quarter of the height, a tab
 * stop a few heights; card grid gutters are wider than two heights).
 */
export const COLUMN_GAP_HEIGHTS = 2;

/** A gap wider than this share of the font height is a space between words. */
const WORD_GAP_HEIGHTS = 0.15;

/** Runs whose baselines are closer than this share of the smaller height share a band. */
const BASELINE_HEIGHTS = 0.25;

interface Band {
  top: number;
  bottom: number;
  runs: PdfText[];
}

const bottomOf = (t: { y: number; height: number }) => t.y + t.height;

/** True when the run belongs to the band: half of the smaller height overlaps, or the baselines nearly meet. */
function joinsBand(band: Band, run: PdfText): boolean {
  const smaller = Math.min(band.bottom - band.top, run.height);
  const overlap = Math.min(band.bottom, bottomOf(run)) - Math.max(band.top, run.y);
  return overlap >= smaller / 2 || Math.abs(band.bottom - bottomOf(run)) <= smaller * BASELINE_HEIGHTS;
}

/** The runs of one band, left to right, cut where the gap is a column gutter. */
function splitColumns(runs: PdfText[]): PdfText[][] {
  const sorted = [...runs].sort((a, b) => a.x - b.x);
  const pieces: PdfText[][] = [];
  let current: PdfText[] = [];
  let right = Number.NEGATIVE_INFINITY;
  for (const run of sorted) {
    const previous = current[current.length - 1];
    if (previous && run.x - right > COLUMN_GAP_HEIGHTS * Math.max(previous.height, run.height)) {
      pieces.push(current);
      current = [];
    }
    current.push(run);
    right = Math.max(right, run.x + run.width);
  }
  pieces.push(current);
  return pieces;
}

/** Joins left-to-right runs: a space where the document leaves a word gap and draws none. */
function lineOf(runs: PdfText[]): PdfLine {
  let text = '';
  let right = Number.NEGATIVE_INFINITY;
  for (const run of runs) {
    const gap = run.x - right;
    if (text && gap > WORD_GAP_HEIGHTS * run.height && !/\s$/.test(text) && !/^\s/.test(run.str)) text += ' ';
    text += run.str;
    right = Math.max(right, run.x + run.width);
  }
  const x = Math.min(...runs.map((r) => r.x));
  const y = Math.min(...runs.map((r) => r.y));
  return {
    text: text.replace(/\s+/g, ' ').trim(),
    x,
    y,
    width: right - x,
    height: Math.max(...runs.map(bottomOf)) - y,
  };
}

/**
 * The page's lines in reading order (top to bottom, then left to right).
 * Runs with no visible text (the spaces and empty runs documents draw) only
 * ever show up as gaps. Lines come out trimmed, with spaces collapsed.
 */
export function textLines(texts: PdfText[]): PdfLine[] {
  const runs = texts.filter((t) => t.str.trim() !== '' && t.height > 0).sort((a, b) => a.y - b.y || a.x - b.x);
  const bands: Band[] = [];
  for (const run of runs) {
    // The band overlapping the run the most takes it; bands are few per page.
    let best: Band | null = null;
    let bestOverlap = Number.NEGATIVE_INFINITY;
    for (const band of bands) {
      if (!joinsBand(band, run)) continue;
      const overlap = Math.min(band.bottom, bottomOf(run)) - Math.max(band.top, run.y);
      if (overlap > bestOverlap) {
        best = band;
        bestOverlap = overlap;
      }
    }
    if (best) {
      best.runs.push(run);
      best.top = Math.min(best.top, run.y);
      best.bottom = Math.max(best.bottom, bottomOf(run));
    } else bands.push({ top: run.y, bottom: bottomOf(run), runs: [run] });
  }
  // Bands open in the order of their top edge, and each band's lines run left to right.
  return bands.flatMap((band) => splitColumns(band.runs).map(lineOf));
}
