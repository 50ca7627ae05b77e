// Well-formed JSON: every line a strict UTF-8 reader (jq) takes; split surrogate pairs joined.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SurrogateJoiner } from '../../../src/events/surrogates.js';
import { safeJson, wellFormedJson } from '../../../src/sanitize/json.js';
import { strictJson } from '../../helpers/strict-json.js';

describe('wellFormedJson', () => {
  it.each([
    ['a lone high surrogate', 'a\ud83d', 'a\ufffd'],
    ['a lone low surrogate', '\ude80b', '\ufffdb'],
    ['a whole pair', 'ok 🚀', 'ok 🚀'],
  ])('%s', (_name, text, value) => {
    const line = wellFormedJson(JSON.stringify({ text }));
    expect(strictJson(line)).toEqual({ text: value });
  });

  it('leaves an escaped backslash followed by text that looks like an escape alone', () => {
    const line = wellFormedJson(JSON.stringify({ text: '\\ud83d' }));
    expect(JSON.parse(line)).toEqual({ text: '\\ud83d' });
  });

  // A JSON text another writer made (the agent's own line, embedded by --wire-log): Python's json.dumps
  // escapes every emoji as a pair, .NET writes its escapes in upper case.
  it.each([
    ['an escaped pair', '"\\ud83d\\ude00"', '"\\ud83d\\ude00"'],
    ['an escaped pair in upper case', '"\\uD83D\\uDE00"', '"\\uD83D\\uDE00"'],
    ['a lone high escape in upper case', '"a\\uD800b"', '"a\ufffdb"'],
    ['a lone low escape in upper case', '"a\\uDC00b"', '"a\ufffdb"'],
    ['a high escape before a high one', '"\\ud83d\\ud83d\\ude00"', '"\ufffd\\ud83d\\ude00"'],
    ['a low escape after an escaped backslash and text', '"\\\\ud83d\\ude00"', '"\\\\ud83d\ufffd"'],
    ['a high escape, then an escaped backslash', '"\\ud83d\\\\ude00"', '"\ufffd\\\\ude00"'],
  ])('in a JSON text of another writer: %s', (_, json, out) => {
    expect(wellFormedJson(json)).toBe(out);
    expect(() => strictJson(out)).not.toThrow();
  });

  it('gives strict JSON for any JSON text with escaped surrogates, whatever their case', () => {
    const escapes = fc.constantFrom('\\ud83d', '\\uDE00', '\\uD800', '\\udc00', '\\\\', 'a', '\\u0041');
    fc.assert(
      fc.property(fc.array(escapes), (parts) => {
        const out = wellFormedJson(`"${parts.join('')}"`);
        expect(() => strictJson(out)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('gives strict JSON for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const line = wellFormedJson(JSON.stringify({ s, [s]: 1 }));
        expect(() => strictJson(line)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});

// Lone surrogates as U+FFFD (String.prototype.toWellFormed, which the ES2023 lib does not type).
const wellFormed = (s: string): string =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

describe('safeJson: nothing a terminal or a line reader acts on is left raw', () => {
  // Every character JSON may carry raw that safeJson escapes.
  const RAW =
    // eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
    /[\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f\udd00-\uddef]|\ud834[\udd73-\udd7a]|\ud82f[\udca0-\udca3]/;
  it.each([
    ['DEL', '\u007f', '\\u007f'],
    ['a C1 CSI', '\u009b2J', '\\u009b2J'],
    ['a C1 OSC', '\u009d52;c;SGk=\u009c', '\\u009d52;c;SGk=\\u009c'],
    ['NEL', 'a\u0085b', 'a\\u0085b'],
    ['the line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['a right-to-left override', '\u202eabc', '\\u202eabc'],
    ['an isolate', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['the bidi marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['the invisible format characters', '\u200b\u2060\u2064\ufeff', '\\u200b\\u2060\\u2064\\ufeff'],
    ['a soft hyphen and a Hangul filler', 'a\u00adb\u3164c', 'a\\u00adb\\u3164c'],
    // Found by review: tag characters spell a hidden ASCII text ("AB" here) that draws nothing.
    ['the tag characters, as their pairs', 'x\u{E0041}\u{E0042}y', 'x\\udb40\\udc41\\udb40\\udc42y'],
    ['an escaped backslash before one', '\\\u202e', '\\\\\\u202e'],
  ])('%s', (_name, text, written) => {
    const line = safeJson(JSON.stringify({ text }));
    expect(line).toBe(`{"text":"${written}"}`);
    expect(JSON.parse(line)).toEqual({ text });
  });

  it('leaves what nothing acts on alone, the joiners emoji need included', () => {
    const text = 'plain é 中文 👨\u200d👩\u200d👧 \u200c \u00a0 \u00ff';
    expect(safeJson(JSON.stringify({ text }))).toBe(JSON.stringify({ text }));
  });

  it('for any string: strict JSON, the same value (lone surrogates as U+FFFD), nothing raw', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const line = safeJson(JSON.stringify({ s }));
        expect(RAW.test(line)).toBe(false);
        expect(strictJson(line)).toEqual({ s: wellFormed(s) });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('SurrogateJoiner', () => {
  it('joins an emoji split across two chunks of one stream', () => {
    const j = new SurrogateJoiner();
    const a = j.take({ type: 'message', text: 'go \ud83d' });
    const b = j.take({ type: 'message', text: '\ude80 now' });
    expect([a.text, b.text]).toEqual(['go ', '🚀 now']);
  });

  it('keeps streams apart: a thought between does not take the held half', () => {
    const j = new SurrogateJoiner();
    j.take({ type: 'message', text: '\ud83d' });
    expect(j.take({ type: 'thought', text: 'hmm' }).text).toBe('hmm');
    expect(j.take({ type: 'message', text: '\ude80' }).text).toBe('🚀');
  });

  it('turns a lone half into U+FFFD', () => {
    const j = new SurrogateJoiner();
    expect(j.take({ type: 'message', text: 'a\ude80b' }).text).toBe('a\ufffdb');
    j.take({ type: 'message', text: 'x\ud83d' });
    expect(j.take({ type: 'message', text: 'y' }).text).toBe('\ufffdy');
    j.take({ type: 'thought', text: '\ud83d' });
    expect(j.drain()).toEqual([{ type: 'thought', text: '\ufffd' }]);
  });

  it('passes an ordinary chunk through as the same object', () => {
    const j = new SurrogateJoiner();
    const e = { type: 'message' as const, text: 'plain' };
    expect(j.take(e)).toBe(e);
  });

  it('joins any text cut anywhere into the same text, well-formed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.array(fc.nat()), (s, cuts) => {
        const j = new SurrogateJoiner();
        const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
        let out = '';
        let from = 0;
        for (const p of [...points, s.length]) {
          out += j.take({ type: 'message', text: s.slice(from, p) }).text;
          from = p;
        }
        out += j
          .drain()
          .map((e) => e.text)
          .join('');
        expect(out).toBe(s);
      }),
    );
  });
});
