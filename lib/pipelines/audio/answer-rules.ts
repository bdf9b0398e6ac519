/**
 * Reading one voice-note chunk's answer leniently: the fields as the photo
 * pipeline reads them, and the time the item is named, kept inside the chunk
 * (the chunk's start when the model gave none).
 */
import { readModelItem } from '../photo/answer-rules';
import { lenientSeconds } from '../video/answer-rules';
import type { AudioItem } from './answer-schemas';

/** One raw item, or null without a usable name. */
export function readAudioItem(raw: unknown, chunk: { start: number; end: number }): AudioItem | null {
  const item = readModelItem(raw);
  if (!item) return null;
  const said = lenientSeconds((raw as Record<string, unknown>).audio_time);
  return {
    name: item.name,
    quantity: item.quantity,
    brand: item.brand,
    condition: item.condition,
    age: item.age,
    estimated_price: item.estimated_price,
    notes: item.notes,
    confidence: item.confidence,
    evidence: item.evidence,
    audio_time: Math.min(chunk.end, Math.max(chunk.start, said ?? chunk.start)),
  };
}
