// Redact first, then cut: a key straddling any cut leaves no part of itself.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cutEnd, cutMiddle, cutStart, redacted, useSecret } from '../../../src/sanitize/cut.js';

const KEY = 'key_0123456789abcdefghijklmnopqrstuvwxyzAB';

// Is any 4-character piece of the key in the text?
const leaks = (text: string): boolean => {
  for (let i = 0; i + 4 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 4))) return true;
  return false;
};

afterEach(() => useSecret(undefined));

describe('cutEnd and cutStart', () => {
  it.each([180, 190, 195, 199, 200])(
    'a key starting at %i straddles the 200-character cut: none of it left',
    (at) => {
      useSecret(KEY);
      const text = 'x'.repeat(at) + KEY + 'y'.repeat(300);
      const cut = cutEnd(text, 200);
      expect(cut.length).toBeLessThanOrEqual(200);
      expect(leaks(cut)).toBe(false);
    },
  );

  it('a key straddling a cut from the end leaves none of it', () => {
    useSecret(KEY);
    const text = 'x'.repeat(300) + KEY + 'y'.repeat(280);
    expect(leaks(cutStart(text, 300))).toBe(false);
  });

  it('masks the key in JSON-escaped form before cutting too', () => {
    useSecret('abc"def/ghij');
    expect(cutEnd('a'.repeat(495) + JSON.stringify('abc"def/ghij') + 'z'.repeat(100), 500)).not.toContain(
      'abc',
    );
  });

  it('cuts without a key as before: an ellipsis, never half a surrogate pair', () => {
    expect(cutEnd('abcdef', 4)).toBe('abc…');
    expect(cutEnd('ab🚀cd', 4)).toBe('ab…');
    expect(cutStart('abcdef', 4)).toBe('…def');
    expect(cutEnd('short', 10)).toBe('short');
  });

  it('never leaves four characters of the key next to any cut', () => {
    useSecret(KEY);
    fc.assert(
      fc.property(fc.nat(400), fc.nat(400), fc.integer({ min: 5, max: 500 }), (before, after, max) => {
        const text = 'x'.repeat(before) + KEY + 'y'.repeat(after);
        expect(leaks(cutEnd(text, max))).toBe(false);
        expect(leaks(cutStart(text, max))).toBe(false);
      }),
    );
  });
});

describe('cutMiddle', () => {
  it('keeps the start and the end, counts exactly what it left out, and leaves no part of the key', () => {
    useSecret(KEY);
    const text = 'START' + 'x'.repeat(500) + KEY + 'y'.repeat(500) + 'END';
    const cut = cutMiddle(text, 100, 40);
    const m = /^(START x*)… \((\d+) more characters\) …(y*END)$/.exec(cut.replace('START', 'START '));
    expect(m).not.toBeNull();
    const [, start, n, end] = m!;
    // The shown parts and the count add up to the text as redacted: nothing said as cut was shown.
    expect(start!.length - 1 + Number(n) + end!.length).toBe(redacted(text).length);
    expect(start!.length - 1).toBe(99);
    expect(end!.length).toBe(39);
    expect(leaks(cutMiddle('x'.repeat(90) + KEY + 'y'.repeat(500), 100, 40))).toBe(false);
  });

  it('a text the redaction makes short enough is shown whole, not repeated with a false count (found by review)', () => {
    useSecret(KEY);
    const cut = cutMiddle(KEY.repeat(7), 100, 40);
    expect(cut).toBe(redacted(KEY.repeat(7)));
    expect(cut).not.toContain('more characters');
  });

  it('never splits a surrogate pair at either cut', () => {
    const text = '😀'.repeat(300);
    const cut = cutMiddle(text, 100, 40);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
