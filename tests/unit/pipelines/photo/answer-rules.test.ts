/** Reading the vision model's items leniently, and the item drafts a group's answer becomes. */
import { draftFromModel, readModelItem, sourceNoteLine } from '../../../../lib/pipelines/photo/answer-rules';

describe("reading the model's items", () => {
  it('coerces numbers in strings, clamps confidence and drops items without a name', () => {
    expect(
      readModelItem({ name: ' Lamp ', quantity: '2', estimated_price: '$1,200.50', confidence: 1.7 }),
    ).toMatchObject({ name: 'Lamp', quantity: 2, estimated_price: 1200.5, confidence: 1 });
    expect(readModelItem({ name: 'Chair', quantity: 0, confidence: 'high' })).toMatchObject({
      quantity: 1,
      confidence: 0.5,
      brand: null,
    });
    expect(readModelItem({ quantity: 1 })).toBeNull();
    expect(readModelItem('Lamp')).toBeNull();
  });

  it("a user's quantity overrides the model's, and a source note becomes a notes line", () => {
    const item = readModelItem({ name: 'Bowl', quantity: 1, confidence: 0.8, notes: 'chipped rim' })!;
    const draft = draftFromModel(item, {
      group_index: 4,
      photos: [{ filename: 'a.jpg', key: 'k' }],
      notes: ['Blue bowl set'],
      quantity: 6,
    });
    expect(draft).toMatchObject({
      name: 'Bowl',
      quantity: 6,
      notes: 'chipped rim\nFrom the source PDF: Blue bowl set',
      source_group_index: 4,
    });
    expect(sourceNoteLine([])).toBeNull();
  });
});
