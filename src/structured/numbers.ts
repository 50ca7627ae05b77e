// Pure: the numbers of a JSON text that JSON.parse cannot carry exactly. A double holds what --output-schema
// checks and writes: a number past its range is read as Infinity (checked as a number, written as null), a
// nonzero one below it as 0, and an integer past 2^53 as a neighbour (12345678901234567890 is written
// 12345678901234567000): a value the agent did not give, yet checked and handed on as its answer (found by
// review). Ordinary fractions (0.1) are JSON's usual rounding, and are taken.

// A JSON number token, read from where it starts (the text already parsed, so every number is one of these).
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /^-?\d+$/;

/** A number of the text a double does not carry exactly: the token as written, and why. */
export interface Inexact {
  token: string;
  why: string;
}

// Why a double does not carry the number this token spells, or undefined when it does (as JSON rounds).
export function inexact(token: string): string | undefined {
  const v = Number(token);
  if (!Number.isFinite(v)) return 'it is past the largest number a double holds';
  // The mantissa's digits (the part before any exponent): one of them nonzero, yet read as 0.
  if (v === 0)
    return /[1-9]/.test(token.split(/[eE]/)[0]!) ? 'it is too small for a double: it reads as 0' : undefined;
  // An integer literal past 2^53 (at most 309 digits here: a longer one is past the range above).
  if (INTEGER.test(token) && !Number.isSafeInteger(v) && BigInt(v) !== BigInt(token))
    return `it is an integer past 2^53: it reads as ${BigInt(v)}`;
  return undefined;
}

// The first number of a JSON text that a double does not carry exactly; strings are skipped (a number in a
// key or a value's text is text). One pass: each character is looked at once.
export function inexactNumber(json: string): Inexact | undefined {
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, an escape's next character skipped.
      for (i++; i < json.length && json.charCodeAt(i) !== 0x22; i++) if (json.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    NUMBER.lastIndex = i;
    const token = NUMBER.exec(json)?.[0];
    if (token === undefined) continue;
    const why = inexact(token);
    if (why !== undefined) return { token, why };
    i += token.length - 1;
  }
  return undefined;
}
