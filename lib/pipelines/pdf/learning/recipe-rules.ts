/**
 * A recipe is data the model wrote: read it leniently into the Recipe shape
 * the executors trust. Unknown fields are discarded, strings that hold
 * numbers are numbers, numbers outside RECIPE_BOUNDS are clamped, anything
 * unreadable takes DEFAULT_RECIPE's value, and a regular expression that
 * does not compile (or a room_pattern with no group to name the room) is
 * dropped rather than failing the whole import.
 */
import {
  DEFAULT_RECIPE,
  DESCRIPTION_POSITIONS,
  type DescriptionPosition,
  RECIPE_STRATEGIES,
  type Recipe,
  type RecipeStrategy,
} from '../recipe';
import { MAX_IGNORE_PATTERNS, MAX_PATTERN_LENGTH, RECIPE_BOUNDS } from './recipe-schemas';

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 'Card Grid', 'card-grid' and 'CARD_GRID' all name card_grid. */
function enumValue<T extends string>(v: unknown, values: readonly T[], fallback: T): T {
  if (typeof v !== 'string') return fallback;
  const key = v
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return values.find((value) => value === key) ?? fallback;
}

/** 24, '24', '24pt', ' 24 px ' → 24; true/false and anything else → null. */
function numberValue(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const match = /^\s*(-?\d+(?:\.\d+)?|-?\.\d+)\s*(?:pt|px|points?|pixels?)?\s*$/i.exec(v);
  return match ? Number(match[1]) : null;
}

function boundedNumber(v: unknown, field: keyof typeof RECIPE_BOUNDS, integer: boolean): number {
  const n = numberValue(v);
  if (n === null) return DEFAULT_RECIPE[field];
  const [min, max] = RECIPE_BOUNDS[field];
  const clamped = Math.min(max, Math.max(min, n));
  return integer ? Math.round(clamped) : clamped;
}

/** '/Item \d+/' (a literal with no flags) is the expression 'Item \d+'; flags cannot be kept, so '/x/i' stays as written. */
function unwrapLiteral(source: string): string {
  const literal = /^\/(.+)\/$/s.exec(source);
  return literal ? literal[1] : source;
}

/** The expression's source when it is a usable one: a non-blank string, not too long, that compiles. */
function compiles(v: unknown): string | null {
  if (typeof v !== 'string' || !v.trim()) return null;
  const source = unwrapLiteral(v);
  if (source.length > MAX_PATTERN_LENGTH) return null;
  try {
    new RegExp(source);
    return source;
  } catch {
    return null;
  }
}

/** Capturing groups in a compiling expression (an alternative that matches '' exposes them all). */
function captureGroups(source: string): number {
  return (new RegExp(`${source}|`).exec('') as RegExpExecArray).length - 1;
}

function roomPattern(v: unknown): string | null {
  const source = compiles(v);
  return source !== null && captureGroups(source) >= 1 ? source : null;
}

/** A list of expressions (one string is a list of one): those that compile, each once, at most MAX_IGNORE_PATTERNS. */
function ignorePatterns(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  const kept: string[] = [];
  for (const item of list) {
    const source = compiles(item);
    if (source !== null && !kept.includes(source)) kept.push(source);
  }
  return kept.slice(0, MAX_IGNORE_PATTERNS);
}

/**
 * The recipe in `raw`, read field by field (see the file comment). Bounds:
 * description_max_gap_pt 0..144, description_line_gap_pt 0..72 (points),
 * min_image_px 16..1000 (a whole number of pixels). Anything that is not an
 * object is the default recipe.
 */
export function coerceRecipe(raw: unknown): Recipe {
  const r = isObject(raw) ? raw : {};
  return {
    strategy: enumValue<RecipeStrategy>(r.strategy, RECIPE_STRATEGIES, DEFAULT_RECIPE.strategy),
    label_pattern: compiles(r.label_pattern),
    room_pattern: roomPattern(r.room_pattern),
    ignore_patterns: ignorePatterns(r.ignore_patterns),
    description_position: enumValue<DescriptionPosition>(
      r.description_position,
      DESCRIPTION_POSITIONS,
      DEFAULT_RECIPE.description_position,
    ),
    description_max_gap_pt: boundedNumber(r.description_max_gap_pt, 'description_max_gap_pt', false),
    description_line_gap_pt: boundedNumber(r.description_line_gap_pt, 'description_line_gap_pt', false),
    min_image_px: boundedNumber(r.min_image_px, 'min_image_px', true),
  };
}

/** JSON text, perhaps inside a ```json fence, as a value; undefined when it does not parse. */
function parsedText(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  try {
    return JSON.parse(fenced ? fenced[1] : text);
  } catch {
    return undefined;
  }
}

/**
 * The recipe in the model's answer: the object itself, the object under a
 * "recipe" key, or either as JSON text (fenced or not). Null when the answer
 * holds no object at all, so the caller can tell "no recipe" from a recipe of
 * defaults.
 */
export function recipeFromAnswer(answer: unknown): Recipe | null {
  const value = typeof answer === 'string' ? parsedText(answer) : answer;
  if (!isObject(value)) return null;
  return coerceRecipe(isObject(value.recipe) ? value.recipe : value);
}
