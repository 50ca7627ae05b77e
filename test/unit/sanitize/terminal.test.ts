// The terminal sanitisers: hostile agent text in, text that a terminal shows and never interprets out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine, terminalSafe } from '../../../src/sanitize/terminal.js';

// Anything that could start an escape sequence or act on a terminal: every C0 but tab (and newline, which
// oneLine also refuses), DEL, every C1, and the bidi overrides and isolates; and what draws nothing (the
// line and paragraph separators, the invisible format characters and fillers, the tag characters).
const INVISIBLE =
  '\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b\\u2028\\u2029\\u2060-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb';
const PAIRS = '|\\udb40[\\udc00-\\udc7f\\udd00-\\uddef]|\\ud834[\\udd73-\\udd7a]|\\ud82f[\\udca0-\\udca3]';
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const ACTS = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u202a-\\u202e${INVISIBLE}]${PAIRS}`);
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const ACTS_OR_BREAKS = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f\\u202a-\\u202e${INVISIBLE}]${PAIRS}`);

describe('terminalSafe', () => {
  it.each([
    ['plain text', 'hello, world', 'hello, world'],
    ['newline and tab kept', 'a\tb\nc', 'a\tb\nc'],
    ['OSC 52 clipboard write', '\x1b]52;c;cm0gLXJmIH4=\x07', '␛]52;c;cm0gLXJmIH4=␇'],
    ['OSC 8 link', '\x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\', '␛]8;;https://evil␛\\click␛]8;;␛\\'],
    ['OSC 0 window title', '\x1b]0;pwned\x07', '␛]0;pwned␇'],
    ['clear screen', '\x1b[2J\x1b[H', '␛[2J␛[H'],
    ['cursor up and erase', 'x\x1b[4A\x1b[J', 'x␛[4A␛[J'],
    ['carriage return overwrite', 'safe\rrm -rf ~', 'safe␍rm -rf ~'],
    ['C1 CSI', '\u009b2J', '<U+009B>2J'],
    [
      'C1 OSC, DCS, APC, PM, SOS',
      '\u009d\u0090\u009f\u009e\u0098',
      '<U+009D><U+0090><U+009F><U+009E><U+0098>',
    ],
    ['DEL and NUL', 'a\x7fb\x00', 'a␡b␀'],
    ['bidi override', 'evil\u202egnp.exe', 'evil<U+202E>gnp.exe'],
    ['bidi isolates', '\u2066a\u2067b\u2068c\u2069', '<U+2066>a<U+2067>b<U+2068>c<U+2069>'],
    ['emoji kept', 'ok 🚀', 'ok 🚀'],
  ])('%s', (_name, input, shown) => {
    expect(terminalSafe(input)).toBe(shown);
  });

  it('returns the same string when there is nothing to escape (the quick path)', () => {
    const s = 'x'.repeat(100);
    expect(terminalSafe(s)).toBe(s);
  });

  it('leaves nothing a terminal acts on, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(terminalSafe(s)).not.toMatch(ACTS);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('oneLine', () => {
  it.each([
    ['newline', 'a\nrho-cursor: all good, exit 0', 'a␊rho-cursor: all good, exit 0'],
    ['CR LF', 'a\r\nb', 'a␍␊b'],
    ['a fake menu line', 'ls\n[a] allow once  [r] reject once > ', 'ls␊[a] allow once  [r] reject once > '],
    ['workflow command', 'x\n::error title=Deploy::boom', 'x␊::error title=Deploy::boom'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a<U+2028>b<U+2029>c'],
    ['escape', '\x1b[31mred', '␛[31mred'],
    ['tab kept', 'a\tb', 'a\tb'],
  ])('%s', (_name, input, shown) => {
    expect(oneLine(input)).toBe(shown);
  });

  it('leaves no line break and nothing a terminal acts on, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = oneLine(s);
        expect(out).not.toMatch(ACTS_OR_BREAKS);
        expect(out.split('\n')).toHaveLength(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every visible character of the text, in order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        // Text without controls passes unchanged.
        if (!ACTS_OR_BREAKS.test(s)) expect(oneLine(s)).toBe(s);
      }),
    );
  });
});

describe('the bidi marks and invisible format characters are made visible; the joiners stay', () => {
  it.each([
    ['\u200b', '<U+200B>'],
    ['\u200e', '<U+200E>'],
    ['\u200f', '<U+200F>'],
    ['\u061c', '<U+061C>'],
    ['\u2060', '<U+2060>'],
    ['\u2064', '<U+2064>'],
    ['\ufeff', '<U+FEFF>'],
    // Found by review: more that draws nothing, and the tag characters that can spell a hidden text.
    ['\u00ad', '<U+00AD>'],
    ['\u034f', '<U+034F>'],
    ['\u115f', '<U+115F>'],
    ['\u3164', '<U+3164>'],
    ['\u17b4', '<U+17B4>'],
    ['\u180e', '<U+180E>'],
    ['\u206a', '<U+206A>'],
    ['\ufff9', '<U+FFF9>'],
    ['\u2028', '<U+2028>'],
    ['\u{E0041}', '<U+E0041>'],
    ['\u{E0100}', '<U+E0100>'],
    ['\u{1D173}', '<U+1D173>'],
    ['\u{1BCA0}', '<U+1BCA0>'],
    ['\u{1BCA3}', '<U+1BCA3>'],
  ])('%j', (c, shown) => {
    expect(terminalSafe(`a${c}b`)).toBe(`a${shown}b`);
    expect(oneLine(`a${c}b`)).toBe(`a${shown}b`);
  });

  it('keeps ZWJ and ZWNJ, which emoji and scripts need', () => {
    const text = '👨\u200d👩\u200d👧 \u200c';
    expect(terminalSafe(text)).toBe(text);
    expect(oneLine(text)).toBe(text);
  });
});
