/**
 * What a contents list's caption says beyond its words: a leading quantity
 * ('2 x Chairs') and a printed date, normalized to YYYY-MM-DDTHH:MM:SS.
 */

/** Largest quantity read from a caption (the model's item quantity has the same cap). */
const MAX_QUANTITY = 10_000;

/**
 * N from a leading 'N x' ('2 x Chairs', '2x', '2 X', '3×'); null without one.
 * The x must end a word: '2x4 stud' and '2xl shirt' carry no quantity.
 */
export function leadingQuantity(text: string): number | null {
  const match = /^\s*(\d{1,6})\s*[xX×](?![\p{L}\p{N}])/u.exec(text);
  if (!match) return null;
  const n = Number(match[1]);
  return n >= 1 && n <= MAX_QUANTITY ? n : null;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** An optional time after a date: h:mm or h:mm:ss, then AM/PM (a.m., p.m.) or nothing for a 24-hour clock. */
const TIME = String.raw`(?:(?:\s+|\s*[T,@]\s*|\s+at\s+)(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AaPp])\.?\s*[Mm]\.?(?![\p{L}]))?)?`;

const SLASHED = new RegExp(String.raw`(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])${TIME}`, 'u');
const ISO = new RegExp(String.raw`(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])${TIME}`, 'u');
const NAMED = new RegExp(
  // Full names, three-letter abbreviations (with or without a dot) and 'Sept'.
  String.raw`(?<![\p{L}])(${MONTHS.join('|')}|sept\.?|(?:${MONTHS.map((m) => m.slice(0, 3)).join('|')})\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)${TIME}`,
  'iu',
);

const pad = (n: number) => String(n).padStart(2, '0');

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The timestamp, or null when the date or the time is not a real one (02/30, 25:00, 13 PM). */
function timestamp(
  year: number,
  month: number,
  day: number,
  time: { hour?: string; minute?: string; second?: string; meridiem?: string },
): string | null {
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  let hour = Number(time.hour ?? 0);
  const minute = Number(time.minute ?? 0);
  const second = Number(time.second ?? 0);
  if (time.meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (time.meridiem.toLowerCase() === 'p' ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return null;
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}`;
}

const timeOf = (m: RegExpExecArray, from: number) => ({
  hour: m[from],
  minute: m[from + 1],
  second: m[from + 2],
  meridiem: m[from + 3],
});

/**
 * The first date printed in the text as YYYY-MM-DDTHH:MM:SS (midnight when
 * no time is printed), or null. Reads MM/DD/YYYY (month first, as US
 * vendors print it) with an optional h:mm[:ss] [AM/PM], YYYY-MM-DD with an
 * optional HH:MM[:SS], and 'March 14, 2024' (or 'Mar 14 2024') with an
 * optional time. A date that does not exist is not a date.
 */
export function normalizePrintedDate(text: string): string | null {
  const slashed = SLASHED.exec(text);
  if (slashed) {
    const found = timestamp(Number(slashed[3]), Number(slashed[1]), Number(slashed[2]), timeOf(slashed, 4));
    if (found) return found;
  }
  const iso = ISO.exec(text);
  if (iso) {
    const found = timestamp(Number(iso[1]), Number(iso[2]), Number(iso[3]), timeOf(iso, 4));
    if (found) return found;
  }
  const named = NAMED.exec(text);
  if (!named) return null;
  const month = MONTHS.findIndex((m) => m.startsWith(named[1].slice(0, 3).toLowerCase())) + 1;
  return timestamp(Number(named[3]), month, Number(named[2]), timeOf(named, 4));
}
