/** The example pipeline's pure rules: how a text is cut into chunks and how a chunk's words are counted. */

/** The words of a text, in order, cut into chunks of at most `wordsPerChunk` words. */
export function chunkText(text: string, wordsPerChunk: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) chunks.push(words.slice(i, i + wordsPerChunk).join(' '));
  return chunks;
}

export function countWords(chunk: string): number {
  return chunk.split(/\s+/).filter(Boolean).length;
}
