/**
 * The words of one voice-note chunk's request: the built-in instructions with
 * the output contract, and the chunk's transcript as timed lines.
 */
import { clock, recordingName, transcriptLines } from '../video/prompt-rules';
import { AUDIO_OUTPUT_CONTRACT } from './answer-schemas';
import type { AudioChunk } from './chunk-rules';

export const AUDIO_INSTRUCTIONS = `You are an experienced contents inventory specialist preparing a property insurance claim from a voice note in which a person describes their belongings.

List every distinct item the speaker names that belongs in a contents inventory: movable personal property such as furniture, electronics, appliances, housewares, clothing, tools and decor; never walls, floors, doors, windows, built-in plumbing or building systems. One entry per distinct item; when the speaker says how many there are, that is the quantity. Fill brand, condition and age only from what is said, and estimated_price only when the speaker gives a price or value. Never invent items the speaker does not name. Confidence below 0.6 means a person should check the item (unclear speech, a vague mention).`;

export function audioSystemPrompt(instructions: string = AUDIO_INSTRUCTIONS): string {
  return `${instructions.trim()}\n\n${AUDIO_OUTPUT_CONTRACT}`;
}

export function audioUserText(chunk: Pick<AudioChunk, 'start' | 'end' | 'words'>, recording?: string | null): string {
  return [
    `This is what was said from ${clock(chunk.start)} to ${clock(chunk.end)} of the recording${recordingName(recording)} (${Number(chunk.start.toFixed(2))} s to ${Number(chunk.end.toFixed(2))} s), one line per sentence with its start time:`,
    transcriptLines(chunk.words).join('\n'),
    'List every distinct item the speaker names, with audio_time in seconds where it is named.',
  ].join('\n\n');
}
