/** Reading a voice-note chunk's answer leniently. */
import { readAudioItem } from '../../../../lib/pipelines/audio/answer-rules';
import { AUDIO_ANSWER_JSON_SCHEMA, audioItem } from '../../../../lib/pipelines/audio/answer-schemas';

const chunk = { start: 120, end: 240 };

describe('readAudioItem', () => {
  it('reads the named item leniently with the time it is named', () => {
    const item = readAudioItem(
      {
        name: ' Dining chairs ',
        quantity: '4',
        brand: 'IKEA',
        condition: 'good',
        age: 'about 3 years',
        estimated_price: '$120',
        notes: 'oak',
        confidence: '0.8',
        evidence: 'four IKEA dining chairs, about 120 dollars each',
        audio_time: '2:15',
        frame: 'frame_000001.jpg',
        model: 'X1',
      },
      chunk,
    );
    expect(item).toEqual({
      name: 'Dining chairs',
      quantity: 4,
      brand: 'IKEA',
      condition: 'good',
      age: 'about 3 years',
      estimated_price: 120,
      notes: 'oak',
      confidence: 0.8,
      evidence: 'four IKEA dining chairs, about 120 dollars each',
      audio_time: 135,
    });
    expect(audioItem.safeParse(item).success).toBe(true);
  });

  it("keeps the time inside the chunk and falls back to the chunk's start", () => {
    expect(readAudioItem({ name: 'Piano' }, chunk)?.audio_time).toBe(120);
    expect(readAudioItem({ name: 'Piano', audio_time: 10 }, chunk)?.audio_time).toBe(120);
    expect(readAudioItem({ name: 'Piano', audio_time: 999 }, chunk)?.audio_time).toBe(240);
    expect(readAudioItem({ name: 'Piano', estimated_price: 'not said' }, chunk)?.estimated_price).toBeNull();
  });

  it('gives nothing for an item without a name', () => {
    expect(readAudioItem({ quantity: 2 }, chunk)).toBeNull();
    expect(readAudioItem(null, chunk)).toBeNull();
  });

  it('asks for no frames in the answer contract', () => {
    const schema = AUDIO_ANSWER_JSON_SCHEMA.schema as { properties: { items: { items: { required: string[] } } } };
    const required = schema.properties.items.items.required;
    expect(required).toEqual(expect.arrayContaining(['name', 'quantity', 'estimated_price', 'audio_time']));
    expect(required).not.toContain('frame');
    expect(required).not.toContain('box');
  });
});
