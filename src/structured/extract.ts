// Pure: the JSON value an answer ends with, for --output-schema: the whole answer if it parses, else the
// last fenced ```json block, else the last balanced JSON object or array in it.

import { MAX_DEPTH, tooDeep } from '../acp/depth.js';
import { cutEnd } from '../sanitize/cut.js';
import { inexactNumber } from './numbers.js';

export type Extracted = { ok: true; value: unknown } | { ok: false; reason: string };

/** A candidate that parsed but is refused: the search ends there, no other value is taken in its place. */
type Refused = { ok: false; reason: string; final: true };
type Parsed = Extracted | Refused;

// A value nested deeper than the protocol's limit would overflow the stack when checked or written: it ends
// the search (any value around it is deeper still).
const TOO_DEEP: Refused = {
  ok: false,
  reason: `the JSON value nests deeper than ${MAX_DEPTH} levels`,
  final: true,
};

/** How much of a refused number its reason quotes (a number may be a million digits long). */
const NUMBER_SHOWN = 40;

// A candidate parsed; one holding a number a double does not carry exactly (numbers.ts) is refused, not
// skipped: the value the agent gave is that one, and another (a value inside it, one before it) would be a
// value it did not give as its answer.
const tryParse = (text: string): Parsed => {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  if (tooDeep(value, text.length)) return TOO_DEEP;
  const bad = inexactNumber(text);
  if (bad)
    return {
      ok: false,
      reason: `the number ${cutEnd(bad.token, NUMBER_SHOWN)} cannot be kept exactly: ${bad.why}`,
      final: true,
    };
  return { ok: true, value };
};

// The search stops at a value, or at a refused candidate.
const settled = (p: Parsed): boolean => p.ok || 'final' in p;
// What extractJson hands out: a refusal without its mark.
const outcome = (p: Parsed): Extracted => (p.ok ? p : { ok: false, reason: p.reason });

// The last ```json (or bare ```) fenced block's body. Fences are paired line by line, as Markdown pairs
// them: a block in another language is skipped whole, so its closing fence never opens a block of its own.
function lastFencedBlock(answer: string): string | undefined {
  let last: string | undefined;
  let open: { fence: string; json: boolean; body: string[] } | undefined;
  for (const line of answer.split(/\r?\n/)) {
    if (open) {
      const close = /^[ \t]*(`{3,})[ \t]*$/.exec(line);
      if (close && close[1]!.length >= open.fence.length) {
        if (open.json) last = open.body.join('\n');
        open = undefined;
      } else open.body.push(line);
      continue;
    }
    // An opening fence starts its line; a ```json one may also end a line of prose ("Result: ```json").
    const m = /^[ \t]*(`{3,})[ \t]*([^`\s]*)[^`]*$/.exec(line) ?? /\s(`{3,})(json)[ \t]*$/i.exec(line);
    if (m) open = { fence: m[1]!, json: m[2] === '' || m[2]!.toLowerCase() === 'json', body: [] };
  }
  return last;
}

// The end index (exclusive) of the balanced object or array starting at `start`, or -1. A bracket nested
// in it is skipped in one step, by the end already found for it (ends[], filled from the right), so the
// search over every start stays linear however many brackets the answer holds.
function balancedEnd(text: string, start: number, ends: Int32Array): number {
  const close = text[start] === '{' ? '}' : ']';
  let inString = false;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      const end = ends[i]!;
      if (end === -1) return -1;
      i = end - 1;
    } else if (c === '}' || c === ']') return c === close ? i + 1 : -1;
  }
  return -1;
}

/** How much candidate text the search may hand to JSON.parse: this many times the answer, plus a little. */
export const PARSE_BUDGET_TIMES = 4;
const PARSE_BUDGET_BASE = 64 * 1024;

// The last balanced JSON object or array that parses: the candidate that ends latest wins, and among those
// ending at one place the outermost (earliest start). Candidates are tried in that order, so the first that
// parses is the value. Each failed parse reads its candidate up to the fault, and candidates nest
// (`[[[...1x]]]` holds one per bracket, each failing at the x): the text parsed in all is capped at a few
// times the answer's length, so the search stays linear whatever the answer, and a main thread held by it
// can never outlast --timeout. Past the cap, no value is found.
function lastBalanced(
  answer: string,
): { found: true; value: unknown } | { found: false; refused?: Refused; gaveUp?: number } {
  const ends = new Int32Array(answer.length).fill(-1);
  const starts: number[] = [];
  for (let i = answer.length - 1; i >= 0; i--) {
    const c = answer[i];
    if (c !== '{' && c !== '[') continue;
    const end = balancedEnd(answer, i, ends);
    ends[i] = end;
    if (end !== -1) starts.push(i);
  }
  starts.sort((a, b) => ends[b]! - ends[a]! || a - b);
  const budget = PARSE_BUDGET_TIMES * answer.length + PARSE_BUDGET_BASE;
  let read = 0;
  for (const i of starts) {
    const end = ends[i]!;
    if (read + (end - i) > budget) return { found: false, gaveUp: read };
    read += end - i;
    const parsed = tryParse(answer.slice(i, end));
    if (parsed.ok) return { found: true, value: parsed.value };
    if ('final' in parsed) return { found: false, refused: parsed };
  }
  return { found: false };
}

export function extractJson(answer: string): Extracted {
  const trimmed = answer.trim();
  if (trimmed === '') return { ok: false, reason: 'the answer is empty' };
  const whole = tryParse(trimmed);
  if (settled(whole)) return outcome(whole);
  const block = lastFencedBlock(answer);
  if (block !== undefined) {
    const parsed = tryParse(block.trim());
    if (settled(parsed)) return outcome(parsed);
  }
  const balanced = lastBalanced(answer);
  if (balanced.found) return { ok: true, value: balanced.value };
  if (balanced.refused) return outcome(balanced.refused);
  if (balanced.gaveUp !== undefined)
    return {
      ok: false,
      reason: `the answer holds no JSON value that parses (the search stopped after reading ${balanced.gaveUp} characters of candidates, ${PARSE_BUDGET_TIMES} times the answer)`,
    };
  return { ok: false, reason: 'the answer holds no JSON value' };
}
