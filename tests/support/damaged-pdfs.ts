/**
 * Damage done to a PDF's bytes for fuzzing a reader (fast-check draws it and
 * shrinks a failure): overwritten, cut short, bytes spliced in or taken out,
 * at unbiased positions.
 */
import fc from 'fast-check';

export type Damage =
  | { kind: 'overwrite'; at: number; bytes: number[] }
  | { kind: 'cut'; at: number }
  | { kind: 'splice'; at: number; bytes: number[] }
  | { kind: 'remove'; at: number; length: number };

/** Where in the document, as a fraction of its length; unbiased (fast-check favours the ends of a range). */
const position = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);
const someBytes = fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x28, 0x5b, 0x3c, 0x2f, 0x30)), {
  minLength: 1,
  maxLength: 16,
});
export const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('overwrite' as const), at: position, bytes: someBytes }),
  fc.record({ kind: fc.constant('cut' as const), at: position }),
  fc.record({ kind: fc.constant('splice' as const), at: position, bytes: someBytes }),
  fc.record({ kind: fc.constant('remove' as const), at: position, length: fc.integer({ min: 1, max: 4096 }) }),
);

export function damaged(bytes: Buffer, damages: Damage[]): Buffer {
  let out = Buffer.from(bytes);
  for (const d of damages) {
    const at = Math.floor(d.at * out.length);
    if (d.kind === 'overwrite') out.set(d.bytes.slice(0, Math.max(0, out.length - at)), at);
    else if (d.kind === 'cut') out = out.subarray(0, at);
    else if (d.kind === 'splice') out = Buffer.concat([out.subarray(0, at), Buffer.from(d.bytes), out.subarray(at)]);
    else out = Buffer.concat([out.subarray(0, at), out.subarray(at + d.length)]);
  }
  return out;
}
