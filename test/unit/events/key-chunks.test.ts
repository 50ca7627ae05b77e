// The key streamed in pieces: the chunks' text is masked as one text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyChunks } from '../../../src/events/key-chunks.js';
import type { Event } from '../../../src/events/types.js';
import { redact, secretForms } from '../../../src/lifecycle/secrets.js';

const KEY = 'sk-test-Zq7Xv9Lm2Pw4Rt6Yb8Nc3Hd5';

// The text cut at the given places (sorted, within it): the chunks an agent streams it in.
const cutAt = (text: string, at: number[]): string[] => {
  const cuts = [...new Set(at.map((n) => n % (text.length + 1)))].sort((p, q) => p - q);
  const parts: string[] = [];
  let from = 0;
  for (const c of cuts) {
    parts.push(text.slice(from, c));
    from = c;
  }
  parts.push(text.slice(from));
  return parts;
};

// The chunks through the stage, the turn's end drained: the message text as the sinks see it.
const streamed = (chunks: string[], k = new KeyChunks(KEY)): string => {
  const out: Event[] = [];
  for (const text of chunks) out.push(...k.take({ type: 'message', text }));
  out.push(...k.drain());
  return out.map((e) => (e.type === 'message' ? e.text : '')).join('');
};

// Text around the key from characters the key has none of: any 8 of the key's characters in a row in the
// output can only have come from a copy of the key.
const other = fc.string({ unit: fc.constantFrom(' ', 'é', '!', '\n', '"', '\\', '😀'), maxLength: 20 });
const runs8 = (text: string): string[] => {
  const found: string[] = [];
  for (let i = 0; i + 8 <= KEY.length; i++)
    if (text.includes(KEY.slice(i, i + 8))) found.push(KEY.slice(i, i + 8));
  return found;
};

describe('KeyChunks', () => {
  it('for any split of a text holding the key, the joined output holds neither it nor 8 of its characters in a row', () => {
    fc.assert(
      fc.property(
        fc.array(other, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(200), { maxLength: 12 }),
        (around, at) => {
          const text = around.join(KEY);
          const out = streamed(cutAt(text, at));
          expect(out).not.toContain(KEY);
          expect(runs8(out)).toEqual([]);
          // Each copy is one mask (a backslash right before it goes with it: redact reads text as JSON may spell it).
          expect(out.split('[redacted]').length - 1).toBe(around.length - 1);
        },
      ),
    );
  });

  it('for any text and any split, the joined output is the whole text masked at once', () => {
    const near = fc.string({ unit: fc.constantFrom(...'sk-test-Zq7Xv9\\u0073 '.split('')), maxLength: 60 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(near, fc.constant(KEY), fc.constant(KEY.slice(0, 12))), { maxLength: 6 }),
        fc.array(fc.nat(400), { maxLength: 12 }),
        (parts, at) => {
          const text = parts.join('');
          expect(streamed(cutAt(text, at))).toBe(redact(text, secretForms(KEY)));
        },
      ),
    );
  });

  it('holds the end that could start the key until the next chunk of its stream, or any other event', () => {
    const k = new KeyChunks(KEY);
    expect(k.take({ type: 'message', text: 'token sk-test-Zq7' })).toEqual([
      { type: 'message', text: 'token ' },
    ]);
    expect(k.take({ type: 'thought', text: 'hm' })).toEqual([
      { type: 'message', text: 'sk-test-Zq7' },
      { type: 'thought', text: 'hm' },
    ]);
    k.take({ type: 'thought', text: 'x sk-' });
    const mode: Event = { type: 'mode', mode: 'plan' };
    expect(k.take(mode)).toEqual([{ type: 'thought', text: 'sk-' }, mode]);
    expect(k.drain()).toEqual([]);
  });

  it('with no key, every event passes as it came', () => {
    const k = new KeyChunks(undefined);
    expect(k.active).toBe(false);
    const e: Event = { type: 'message', text: 'sk-' };
    expect(k.take(e)[0]).toBe(e);
    expect(k.drain()).toEqual([]);
  });
});
