/**
 * Small text helpers shared by the domains: counted nouns in messages and
 * file name extensions. Imports nothing from lib/.
 */

/** "1 photo", "3 photos": the count and the word, with an s unless the count is 1. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The lower-case extension of a client-supplied file name, without the dot;
 * '' when there is none. Only the last path segment counts (browsers may send
 * C:\fakepath\x.jpg), and a dot file (".mp4") or a trailing dot ("x.") has no
 * extension.
 */
export function extensionOf(filename: string): string {
  const name = (filename.trim().split(/[\\/]/).pop() ?? '').trim();
  const dot = name.lastIndexOf('.');
  return dot <= 0 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
}
