/** PDF transformation matrices [a b c d e f]: (x, y) → (a·x + c·y + e, b·x + d·y + f). */
import type { PdfBox } from './layout';

export type Matrix = readonly [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** `first` then `second` (PDF's `first × second`, as `cm` prepends its matrix to the CTM). */
export function multiply(first: Matrix, second: Matrix): Matrix {
  const [a1, b1, c1, d1, e1, f1] = first;
  const [a2, b2, c2, d2, e2, f2] = second;
  return [
    a1 * a2 + b1 * c2,
    a1 * b2 + b1 * d2,
    c1 * a2 + d1 * c2,
    c1 * b2 + d1 * d2,
    e1 * a2 + f1 * c2 + e2,
    e1 * b2 + f1 * d2 + f2,
  ];
}

/** The axis-aligned box around the points, each mapped through `m`. */
export function boundsOf(m: Matrix, points: readonly (readonly [number, number])[]): PdfBox {
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const [x, y] of points) {
    const px = m[0] * x + m[2] * y + m[4];
    const py = m[1] * x + m[3] * y + m[5];
    minX = Math.min(minX, px);
    minY = Math.min(minY, py);
    maxX = Math.max(maxX, px);
    maxY = Math.max(maxY, py);
  }
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

export const UNIT_SQUARE: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
];

/** Rounds to 1/1000 pt, which keeps layouts readable and comparisons stable. */
export function roundBox<T extends PdfBox>(box: T): T {
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { ...box, x: r(box.x), y: r(box.y), width: r(box.width), height: r(box.height) };
}
