/** salvageItems: whole, fenced and cut-short structured answers (spec: Output budget and truncation). */
import { salvageItems } from '../../../lib/integrations/structured-output';

const chair = { name: 'Chair', quantity: 2, confidence: 0.9 };
const lamp = { name: 'Lamp', quantity: 1, confidence: 0.8, box: { x: 1, y: 2, w: 3, h: 4 } };
const tricky = { name: 'Sign "OPEN} {[" \\ back', notes: 'a \\"quoted\\" brace } and ] bracket', tags: ['x}', '{y'] };

describe('salvageItems', () => {
  it('returns every item of a whole answer as complete', () => {
    expect(salvageItems(JSON.stringify({ items: [chair, lamp] }))).toEqual({ items: [chair, lamp], complete: true });
  });

  it('returns an empty whole answer as complete with no items', () => {
    expect(salvageItems('{"items": []}')).toEqual({ items: [], complete: true });
  });

  it('reads an answer inside a ```json fence with prose around it', () => {
    const content = `Here are the items I found {as asked}:\n\n\`\`\`json\n${JSON.stringify({ items: [chair] }, null, 2)}\n\`\`\`\nLet me know if you need more.`;
    expect(salvageItems(content)).toEqual({ items: [chair], complete: true });
  });

  it('reads an answer with leading and trailing prose and no fence', () => {
    expect(salvageItems(`Sure! ${JSON.stringify({ items: [chair, lamp] })} Hope that helps {:`)).toEqual({
      items: [chair, lamp],
      complete: true,
    });
  });

  it('accepts a bare top-level array, whole or cut', () => {
    expect(salvageItems(JSON.stringify([chair, lamp]))).toEqual({ items: [chair, lamp], complete: true });
    expect(salvageItems(`[${JSON.stringify(chair)},{"name":"La`)).toEqual({ items: [chair], complete: false });
  });

  it('keeps the complete items when the answer is cut in the middle of a string', () => {
    const content = `{"items":[${JSON.stringify(chair)},${JSON.stringify(lamp)},{"name":"Sofa with a long descr`;
    expect(salvageItems(content)).toEqual({ items: [chair, lamp], complete: false });
  });

  it('drops an item cut inside a nested object', () => {
    const content = `{"items":[${JSON.stringify(chair)},{"name":"Lamp","box":{"x":1,"y":`;
    expect(salvageItems(content)).toEqual({ items: [chair], complete: false });
  });

  it('keeps every item when the cut falls between items', () => {
    expect(salvageItems(`{"items":[${JSON.stringify(chair)},${JSON.stringify(lamp)},`)).toEqual({
      items: [chair, lamp],
      complete: false,
    });
    expect(salvageItems(`{"items":[${JSON.stringify(chair)},${JSON.stringify(lamp)}`)).toEqual({
      items: [chair, lamp],
      complete: false,
    });
    expect(salvageItems(`{"items":[${JSON.stringify(chair)}]`)).toEqual({ items: [chair], complete: false });
  });

  it('is not fooled by escaped quotes, braces and brackets inside strings', () => {
    expect(salvageItems(JSON.stringify({ items: [tricky, chair] }))).toEqual({
      items: [tricky, chair],
      complete: true,
    });
    const cut = `{"items":[${JSON.stringify(tricky)},${JSON.stringify(chair)},{"name":"Escaped \\" } ] still inside`;
    expect(salvageItems(cut)).toEqual({ items: [tricky, chair], complete: false });
  });

  it('reads a cut answer inside an unterminated fence', () => {
    expect(salvageItems(`\`\`\`json\n{"items":[${JSON.stringify(lamp)},{"name":"Cha`)).toEqual({
      items: [lamp],
      complete: false,
    });
  });

  it('ignores objects nested in other keys and keys after items', () => {
    const content = `{"room":{"name":"Kitchen","items":[{"decoy":true}]},"items":[${JSON.stringify(chair)}],"extra":[{"not":"an item"}]}`;
    expect(salvageItems(content)).toEqual({ items: [chair], complete: true });
    const cut = `{"meta":{"items":[{"decoy":true}]},"items":[${JSON.stringify(chair)},{"na`;
    expect(salvageItems(cut)).toEqual({ items: [chair], complete: false });
  });

  it('finds nothing in empty content, blank content or prose', () => {
    expect(salvageItems('')).toEqual({ items: [], complete: false });
    expect(salvageItems('   \n')).toEqual({ items: [], complete: false });
    expect(salvageItems('I could not identify any items.')).toEqual({ items: [], complete: false });
  });

  it('finds nothing in an answer cut before the first item closed', () => {
    expect(salvageItems('{"items":[{"name":"Chair","quantity":')).toEqual({ items: [], complete: false });
    expect(salvageItems('{"ite')).toEqual({ items: [], complete: false });
  });
});
