// Pure: JSON text every strict UTF-8 reader (jq) takes, and that nothing downstream acts on. JSON.stringify
// writes a lone surrogate as a `\udXXX` escape, which such readers refuse: each becomes U+FFFD. An escaped
// backslash before `u` is left alone. It also leaves raw what a terminal or a line reader may act on (safeJson).

import { SHOWN, SHOWN_PAIRS } from './terminal.js';

// A surrogate's escape (either case, as any JSON writer may spell it): a high one with the low escape that
// may follow it, or a low one alone. The run of backslashes before it says whether it is an escape at all.
const SURROGATE_ESCAPE = /(\\+)u(d[89ab][0-9a-f]{2})(\\ud[c-f][0-9a-f]{2})?|(\\+)ud[c-f][0-9a-f]{2}/gi;

// Rewrites the lone-surrogate escapes of one JSON text; a high and a low escape side by side are one
// character (a writer that escapes everything spells an emoji so) and stay. The quick test first.
export function wellFormedJson(json: string): string {
  if (!json.includes('\\ud') && !json.includes('\\uD')) return json;
  return json.replace(
    SURROGATE_ESCAPE,
    (m: string, slashes?: string, high?: string, low?: string, lowSlashes?: string) => {
      // An odd run of backslashes ends in the escape's own; an even one is escaped backslashes and text.
      const run = slashes ?? lowSlashes!;
      if (run.length % 2 === 0) {
        // Text, not an escape: a low escape right after it is still one, and alone.
        return low === undefined ? m : m.slice(0, m.length - low.length) + '\uFFFD';
      }
      if (high !== undefined && low !== undefined) return m;
      return run.slice(1) + '\uFFFD';
    },
  );
}

// What JSON may carry raw that a terminal or a line reader acts on: DEL and the C1 controls (a terminal may
// read U+009B as CSI, U+009D as OSC), U+0085, U+2028 and U+2029 (line breaks to JavaScript and to Python's
// splitlines), the bidi overrides, isolates and marks, and the invisible format characters (the terminal's
// SHOWN set, so the two sinks cannot drift apart). Only ever inside
// a string (JSON's own syntax is ASCII), where a \uXXXX escape is the same text to every reader.
const RAW = new RegExp(`[\\u2028\\u2029${SHOWN}]|${SHOWN_PAIRS}`);
const RAW_ALL = new RegExp(RAW.source, 'g');
// Each UTF-16 unit as its JSON escape (a pair as its two): the same text to every JSON reader.
export const unitEscapes = (c: string): string => {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
};

// One serialised JSON text made well-formed (wellFormedJson) and inert: the characters above escaped.
export function safeJson(json: string): string {
  return inertJsonText(wellFormedJson(json));
}

// Nothing above U+007E, the most lines of a turn: two native scans tell it ~2x faster than RAW's class (a
// string's UTF-8 length is its length only when every character is below U+0080; DEL is looked for itself).
const plainAscii = (s: string): boolean => Buffer.byteLength(s) === s.length && !s.includes('\x7f');

// The same for JSON text known to be well-formed (text chunks are joined before they are serialised).
export function inertJsonText(json: string): string {
  return plainAscii(json) || !RAW.test(json) ? json : json.replace(RAW_ALL, unitEscapes);
}
