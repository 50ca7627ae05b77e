// Pure: agent text made visible, never interpreted, on a terminal line (contract v3, "The agent is untrusted").
// C0 controls become their Control Pictures (ESC as ␛, so no CSI, OSC, DCS, APC, PM or SOS can start), C1
// controls, the bidirectional overrides, isolates and marks, and the invisible format characters (zero-width
// space, word joiner, BOM; not the joiners U+200C/U+200D that emoji and scripts need) become <U+XXXX>;
// newline and tab stay (terminal) or newline and CR become ␊ ␍ too (oneLine).

// What is shown beside the controls: DEL and C1, the bidi marks (U+061C, U+200E, U+200F), overrides
// (U+202A-U+202E) and isolates (U+2066-U+2069), and the characters that draw nothing: the soft hyphen
// (U+00AD), the combining grapheme joiner (U+034F), the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the
// Khmer inherent vowels (U+17B4, U+17B5), the Mongolian selectors and vowel separator (U+180B-U+180F), the
// zero-width space (U+200B), U+2060-U+206F (word joiner, invisible operators, deprecated format
// characters), the BOM (U+FEFF) and the interlinear annotation marks (U+FFF9-U+FFFB). A class body of UTF-16
// units; the joiners emoji and scripts need (U+200C, U+200D) and the emoji variation selectors stay.
export const SHOWN =
  '\\x7f-\\x9f\\xad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b\\u200e\\u200f\\u202a-\\u202e' +
  '\\u2060-\\u206f\\u3164\\ufeff\\ufff9-\\ufffb\\uffa0';
// The same outside the BMP, as surrogate pairs: the tag characters (U+E0000-U+E007F, which can spell a whole
// hidden ASCII text; a subdivision flag's tags show too), the variation selectors supplement
// (U+E0100-U+E01EF), the musical format characters (U+1D173-U+1D17A) and the shorthand format controls
// (U+1BCA0-U+1BCA3).
export const SHOWN_PAIRS =
  '\\udb40[\\udc00-\\udc7f\\udd00-\\uddef]|\\ud834[\\udd73-\\udd7a]|\\ud82f[\\udca0-\\udca3]';
// Everything a terminal could act on or draws as nothing, newline and tab left alone.
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\u2028\\u2029${SHOWN}]|${SHOWN_PAIRS}`);
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
// The same with newline counted as unsafe.
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const UNSAFE_LINE = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\u2028\\u2029${SHOWN}]|${SHOWN_PAIRS}`);
// eslint-disable-next-line no-misleading-character-class -- a class of UTF-16 units: the combining ones (U+034F, U+17B4...) are meant alone
const UNSAFE_LINE_ALL = new RegExp(UNSAFE_LINE.source, 'g');

// One character's visible form: a C0 control's Control Picture (U+2400 + code, DEL U+2421), else <U+XXXX>
// (the whole code point of a surrogate pair).
export function pictureOf(c: string): string {
  const code = c.codePointAt(0)!;
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

// Text for a terminal: every control but newline and tab, and every bidi override, made visible.
export function terminalSafe(text: string): string {
  // The quick test first: nearly all text has nothing to escape.
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, pictureOf) : text;
}

// Text for one terminal line: as terminalSafe, and newlines and CRs made visible too (␊ ␍).
export function oneLine(text: string): string {
  return UNSAFE_LINE.test(text) ? text.replace(UNSAFE_LINE_ALL, pictureOf) : text;
}
