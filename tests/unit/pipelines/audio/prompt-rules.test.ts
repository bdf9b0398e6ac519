/** The words of one voice-note chunk's request. */
import { AUDIO_OUTPUT_CONTRACT } from '../../../../lib/pipelines/audio/answer-schemas';
import { AUDIO_INSTRUCTIONS, audioSystemPrompt, audioUserText } from '../../../../lib/pipelines/audio/prompt-rules';

describe('audio prompts', () => {
  it('follows the instructions with the output contract and asks only for items the speaker names', () => {
    expect(audioSystemPrompt()).toBe(`${AUDIO_INSTRUCTIONS}\n\n${AUDIO_OUTPUT_CONTRACT}`);
    expect(audioSystemPrompt(' Custom. ')).toBe(`Custom.\n\n${AUDIO_OUTPUT_CONTRACT}`);
    expect(AUDIO_INSTRUCTIONS).toMatch(/Never invent items the speaker does not name/);
    expect(AUDIO_INSTRUCTIONS).toMatch(/estimated_price only when the speaker gives a price/);
  });

  it("gives the chunk's range and its transcript as timed lines", () => {
    const text = audioUserText({
      start: 120,
      end: 150.5,
      words: [
        { word: 'A', start: 121, end: 121.2 },
        { word: 'piano.', start: 121.3, end: 121.8 },
        { word: 'Two', start: 130, end: 130.3 },
        { word: 'lamps.', start: 130.4, end: 130.9 },
      ],
    });
    expect(text.split('\n\n')).toEqual([
      'This is what was said from 2:00 to 2:30 of the recording (120 s to 150.5 s), one line per sentence with its start time:',
      '[2:01] A piano.\n[2:10] Two lamps.',
      'List every distinct item the speaker names, with audio_time in seconds where it is named.',
    ]);
  });

  it('names the recording when it has a file name', () => {
    const text = audioUserText({ start: 0, end: 30, words: [{ word: 'Lamp.', start: 1, end: 1.4 }] }, 'Den note.m4a');
    expect(text.split('\n\n')[0]).toBe(
      'This is what was said from 0:00 to 0:30 of the recording "Den note.m4a" (0 s to 30 s), one line per sentence with its start time:',
    );
  });
});
