// Pure: agent text made visible, never interpreted, on a terminal line (contract v3, "The agent is untrusted").
// C0 controls become their Control Pictures (ESC as ␛, so no CSI, OSC, DCS, APC, PM or SOS can start), C1
// controls, the bidirectional overrides, isolates and marks, and the invisible format characters (zero-width
// space, word joiner, BOM; not the joiners U+200C/U+200D that emoji and scripts need) become <U+XXXX>;
// newline and tab stay (terminal) or newline and CR become ␊ ␍ too (oneLine).

// What is shown beside the controls: DEL and C1, the bidi marks (U+061C, U+200E, U+200F), overrides
// (U+202A-U+202E) and isolates (U+2066-U+2069), and the invisible format characters (U+200B, U+2060-U+2064,
// U+FEFF).
export const SHOWN =
  '\\x7f-\\x9f\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
// Everything a terminal could act on, newline and tab left alone.
const UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${SHOWN}]`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
// The same with newline (and the Unicode line and paragraph separators) counted as unsafe.
const UNSAFE_LINE = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\u2028\\u2029${SHOWN}]`);
const UNSAFE_LINE_ALL = new RegExp(UNSAFE_LINE.source, 'g');

// One character's visible form: a C0 control's Control Picture (U+2400 + code, DEL U+2421), else <U+XXXX>.
export function pictureOf(c: string): string {
  const code = c.charCodeAt(0);
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
