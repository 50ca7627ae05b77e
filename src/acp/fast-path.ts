// The hot path: a text chunk in the exact shape Cursor serialises is read without parsing the whole message.
// Anything else, or anything that does not check out, goes the general way (JSON.parse and dispatch).
import type { MessageEvent, ThoughtEvent } from '../events/types.js';

const PREFIX = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
const MIDDLE = '","update":{"sessionUpdate":"agent_';
const MESSAGE = 'message_chunk","content":{"type":"text","text":"';
const THOUGHT = 'thought_chunk","content":{"type":"text","text":"';
const SUFFIX = '"}}}}';
// Where `agent_` starts in MIDDLE, after the session id; and its `a`.
const KIND_AT = MIDDLE.indexOf('agent_');
const A = 0x61;
// Below this length V8 copies a slice instead of pointing into the line (SlicedString::kMinLength), and
// JSON.parse would intern the result: short plain texts are taken as they are.
const SHORT = 13;
// From this length a plain text is the line's slice: a line this long is joined from its reads (a string of
// its own) or nearly all of one read, so the slice pins at most about itself.
const HUGE = 1024 * 1024;

// Is this string-literal body its own text: no quote, backslash or control character to decode?
export function isPlainBody(body: string): boolean {
  // Stryker disable next-line EqualityOperator: charCodeAt past the end is NaN, which no test below matches
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

// Returns the message or thought event of a plain text-chunk line, or undefined to take the general path
// (which also judges a chunk for a session other than `sessionId`, this run's once known). Before it is known
// (null), every line takes the general path: no chunk is this run's answer yet (found by review).
export function textChunkEvent(
  line: string,
  sessionId?: string | null,
): MessageEvent | ThoughtEvent | undefined {
  // Most lines that are not chunks are tool updates of this run's session: one character where a chunk of
  // this session has the `a` of `agent_` tells them apart, before any longer comparison (they cost ~0.3 µs
  // a line). Whatever it lets through is checked in full below.
  // Stryker disable next-line ConditionalExpression: a shortcut; the session check below refuses the same
  if (sessionId === null) return undefined;
  if (sessionId !== undefined && line.charCodeAt(PREFIX.length + sessionId.length + KIND_AT) !== A)
    return undefined;
  if (!line.startsWith(PREFIX) || !line.endsWith(SUFFIX)) return undefined;
  // The session id ends at the next quote (an escaped one is refused below): the update kind must follow it.
  // Looking there, not anywhere in the line, keeps a long line of another kind from being scanned whole.
  const mid = line.indexOf('"', PREFIX.length);
  // Stryker disable next-line ConditionalExpression,UnaryOperator: startsWith at -1 reads at 0 (PREFIX)
  if (mid === -1 || !line.startsWith(MIDDLE, mid)) return undefined;
  const chunkSession = line.slice(PREFIX.length, mid);
  // The id is read raw, so it must be its own text: an escape or a control character (not valid JSON) is
  // left to the general path, which decodes it or reports the line.
  if (!isPlainBody(chunkSession) || (sessionId !== undefined && chunkSession !== sessionId)) return undefined;
  const kindAt = mid + MIDDLE.length;
  const type = line.startsWith(MESSAGE, kindAt)
    ? 'message'
    : line.startsWith(THOUGHT, kindAt)
      ? 'thought'
      : undefined;
  if (!type) return undefined;
  // The text's opening quote ends MESSAGE and its closing one starts SUFFIX: they must be two quotes.
  if (line.length < kindAt + MESSAGE.length + SUFFIX.length) return undefined;
  // Stryker disable next-line MethodExpression,ArithmeticOperator: a wrong slice only skips the shortcut
  const inner = line.slice(kindAt + MESSAGE.length, line.length - SUFFIX.length);
  // A short plain body is the text itself: JSON.parse would intern it, and a long turn's unique chunks
  // would fill V8's string table. A longer one is parsed, so it never pins the whole read chunk.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: saves memory; plain text parses as is
  if (inner.length < SHORT && isPlainBody(inner)) return { type, text: inner };
  // A long one that is most of its line pins nothing more than itself: taken as it is, it saves a copy of a
  // huge chunk (one of the ~7 a 100 MiB line costs while it is handled).
  if (inner.length >= HUGE && isPlainBody(inner)) return { type, text: inner };
  const body = line.slice(kindAt + MESSAGE.length - 1, line.length - SUFFIX.length + 1);
  // JSON.parse of the string literal alone both decodes it and proves it is one string (no hidden keys).
  let text: unknown;
  try {
    text = JSON.parse(body);
  } catch {
    // Not JSON: text stays undefined, which the check below refuses.
  }
  return typeof text === 'string' ? { type, text } : undefined;
}
