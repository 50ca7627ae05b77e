// Pure: agent text made visible, never interpreted, on a terminal line (contract v3, "The agent is untrusted").
// C0 controls become their Control Pictures (ESC as ␛, so no CSI, OSC, DCS, APC, PM or SOS can start), C1
// controls and the bidirectional overrides and isolates become <U+XXXX>; newline and tab stay (terminal)
// or newline and CR become ␊ ␍ too (oneLine).

// Everything a terminal could act on, newline and tab left alone.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_ALL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// The same with newline (and the Unicode line and paragraph separators) counted as unsafe.
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_LINE_ALL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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
