// Pure: the JSON value an answer ends with, for --output-schema: the whole answer if it parses, else the
// last fenced json block (``` or ~~~; when it does not parse, only a value after it), else the last bare
// fenced block, else the last balanced JSON object or array in it.

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
const settled = (p: Parsed): p is { ok: true; value: unknown } | Refused => p.ok || 'final' in p;
// What extractJson hands out: a refusal without its mark.
const outcome = (p: Parsed): Extracted => (p.ok ? p : { ok: false, reason: p.reason });

/** A fenced block's body, and where the block ends in the answer (past its closing fence, or the end). */
interface Block {
  body: string;
  end: number;
}

// An opening fence: three or more backticks (whose info string holds none) or tildes (whose may), the info
// string's first word; a ```json one may also end a line of prose ("Result: ```json"). A closing fence: the
// same character, at least as many, nothing else on the line (CommonMark).
const OPEN_BACKTICKS = /^[ \t]*(`{3,})[ \t]*([^`\s]*)[^`]*$/;
const OPEN_TILDES = /^[ \t]*(~{3,})[ \t]*(\S*).*$/;
const OPEN_IN_PROSE = /\s(`{3,}|~{3,})(json)[ \t]*$/i;
const CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

// The last fenced block whose info string's first word is `json` (any case), and the last bare one (no info
// string). Fences are paired line by line, as Markdown pairs them: a block in another language is skipped
// whole, so its closing fence never opens a block of its own; a block never closed runs to the end of the
// answer, as CommonMark runs it.
function lastFencedBlocks(answer: string): { json?: Block; bare?: Block } {
  const found: { json?: Block; bare?: Block } = {};
  let open: { fence: string; kind: 'json' | 'bare' | 'other'; body: string[] } | undefined;
  const close = (end: number): void => {
    if (open!.kind !== 'other') found[open!.kind] = { body: open!.body.join('\n'), end };
    open = undefined;
  };
  for (let at = 0; at < answer.length;) {
    const nl = answer.indexOf('\n', at);
    const next = nl === -1 ? answer.length : nl + 1;
    let line = answer.slice(at, nl === -1 ? answer.length : nl);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    at = next;
    if (open) {
      const c = CLOSE.exec(line)?.[1];
      if (c !== undefined && c[0] === open.fence[0] && c.length >= open.fence.length) close(next);
      else open.body.push(line);
      continue;
    }
    const m = OPEN_BACKTICKS.exec(line) ?? OPEN_TILDES.exec(line) ?? OPEN_IN_PROSE.exec(line);
    if (!m) continue;
    const info = m[2]!.toLowerCase();
    open = { fence: m[1]!, kind: info === 'json' ? 'json' : info === '' ? 'bare' : 'other', body: [] };
  }
  if (open) close(answer.length);
  return found;
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

/** How much of a parse error its reason quotes (V8's message may quote the agent's text). */
const PARSE_ERROR_SHOWN = 200;

export function extractJson(answer: string): Extracted {
  const trimmed = answer.trim();
  if (trimmed === '') return { ok: false, reason: 'the answer is empty' };
  const whole = tryParse(trimmed);
  if (settled(whole)) return outcome(whole);
  const { json, bare } = lastFencedBlocks(answer);
  if (json) {
    const parsed = tryParse(json.body.trim());
    if (settled(parsed)) return outcome(parsed);
    // The last json block is the answer: nothing before it (an example, a draft) is taken in its place,
    // only a value after it (a correction) (found by review).
    return (
      fromBalanced(answer.slice(json.end)) ?? {
        ok: false,
        reason: `the last json block does not parse: ${cutEnd(parsed.reason, PARSE_ERROR_SHOWN)}`,
      }
    );
  }
  // A bare block is taken only where no json block is; one that does not parse is text (a log, a command).
  if (bare) {
    const parsed = tryParse(bare.body.trim());
    if (settled(parsed)) return outcome(parsed);
  }
  return fromBalanced(answer) ?? { ok: false, reason: 'the answer holds no JSON value' };
}

// The balanced search's value or refusal; undefined when the text holds no balanced JSON at all.
function fromBalanced(text: string): Extracted | undefined {
  const balanced = lastBalanced(text);
  if (balanced.found) return { ok: true, value: balanced.value };
  if (balanced.refused) return outcome(balanced.refused);
  if (balanced.gaveUp !== undefined)
    return {
      ok: false,
      reason: `the answer holds no JSON value that parses (the search stopped after reading ${balanced.gaveUp} characters of candidates, ${PARSE_BUDGET_TIMES} times the answer)`,
    };
  return undefined;
}
