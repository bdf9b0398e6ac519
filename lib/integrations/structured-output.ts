/**
 * Reading the model's structured answer `{"items": [...]}` (spec: Photo
 * pipeline > Output budget and truncation: "Complete items before the cutoff
 * are kept").
 *
 * Models wrap JSON in a ```json fence or a sentence now and then, and an answer
 * cut short at the token limit ends mid-item. salvageItems reads the first
 * JSON value of the answer with a scanner that knows strings, escapes and
 * nesting, so a brace or quote inside a string never ends an item, and keeps
 * only the item objects that closed before the cutoff.
 */

export interface SalvagedItems {
  items: unknown[];
  /** True when the whole answer parsed; false when it was cut short, malformed or empty. */
  complete: boolean;
}

/** The JSON text to read: the inside of a ```json fence (closed or cut), else the whole content. */
function jsonRegion(content: string): string {
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?/.exec(content);
  if (!fence) return content;
  const start = fence.index + fence[0].length;
  const end = content.indexOf('```', start);
  return end === -1 ? content.slice(start) : content.slice(start, end);
}

/**
 * Where the answer's JSON may start: the first `{` or `[`, then the first
 * `{"items":` (in case prose before it holds a brace).
 */
function jsonStarts(text: string): number[] {
  const first = [text.indexOf('{'), text.indexOf('[')].filter((i) => i >= 0);
  const items = /\{\s*"items"\s*:/.exec(text);
  const starts = [...(first.length ? [Math.min(...first)] : []), ...(items ? [items.index] : [])];
  return [...new Set(starts)];
}

interface Scan {
  /** Index just past the top-level value, or -1 when it never closed. */
  end: number;
  /** [start, end) of every item object that closed inside the items array. */
  itemSpans: [number, number][];
  /** Whether an items array (or a bare top-level array) was opened. */
  sawItems: boolean;
}

/**
 * One pass over the text from `start` (a `{` or `[`). Tracks the container
 * stack and, in a top-level object, the key each value belongs to, so it knows
 * when it is inside the `items` array (or a bare top-level array).
 */
function scan(text: string, start: number): Scan {
  const stack: string[] = [];
  const itemSpans: [number, number][] = [];
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastTopString: string | null = null;
  let topKey: string | null = null;
  /** Stack depth of the items array once it is open (elements sit one deeper). */
  let itemsDepth = -1;
  let elementStart = -1;

  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') {
        inString = false;
        if (stack.length === 1 && stack[0] === '{') lastTopString = text.slice(stringStart, i);
      }
      continue;
    }
    switch (ch) {
      case '"':
        inString = true;
        stringStart = i + 1;
        break;
      case ':':
        if (stack.length === 1 && stack[0] === '{') topKey = lastTopString;
        break;
      case ',':
        if (stack.length === 1) topKey = null;
        break;
      case '{':
      case '[':
        stack.push(ch);
        if (stack.length === 1 && ch === '[') itemsDepth = 1;
        else if (stack.length === 2 && ch === '[' && stack[0] === '{' && topKey === 'items' && itemsDepth === -1)
          itemsDepth = 2;
        else if (itemsDepth > 0 && stack.length === itemsDepth + 1 && ch === '{' && stack[itemsDepth - 1] === '[')
          elementStart = i;
        break;
      case '}':
      case ']':
        if (itemsDepth > 0 && stack.length === itemsDepth + 1 && ch === '}' && elementStart >= 0) {
          itemSpans.push([elementStart, i + 1]);
          elementStart = -1;
        }
        stack.pop();
        if (stack.length === 0) return { end: i + 1, itemSpans, sawItems: itemsDepth > 0 };
        break;
    }
  }
  return { end: -1, itemSpans, sawItems: itemsDepth > 0 };
}

function itemsOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items))
    return (value as { items: unknown[] }).items;
  return null;
}

/**
 * The items of an answer shaped `{"items": [...]}` or a bare `[...]`. A whole
 * answer gives every item and complete=true; an answer cut short (or otherwise
 * unparsable) gives the item objects that closed before the cutoff and
 * complete=false.
 */
export function salvageItems(content: string): SalvagedItems {
  const text = jsonRegion(content ?? '');
  for (const start of jsonStarts(text)) {
    const { end, itemSpans, sawItems } = scan(text, start);
    if (end > 0) {
      try {
        const items = itemsOf(JSON.parse(text.slice(start, end)));
        if (items) return { items, complete: true };
      } catch {
        // Malformed although closed: keep what parses item by item.
      }
    }
    // Cut short (or malformed): the item objects that closed before the cutoff.
    if (sawItems) return { items: parseEach(text, itemSpans), complete: false };
  }
  return { items: [], complete: false };
}

function parseEach(text: string, spans: [number, number][]): unknown[] {
  const items: unknown[] = [];
  for (const [from, to] of spans) {
    try {
      items.push(JSON.parse(text.slice(from, to)));
    } catch {
      // An item with bad JSON inside is dropped; the others still count.
    }
  }
  return items;
}
