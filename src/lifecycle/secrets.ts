// Pure: keeps a secret (CURSOR_API_KEY's value) out of everything rho-cursor writes, in every form a JSON
// text could carry it: plain, JSON-escaped, and \u-escaped character by character.

const MASK = '[redacted]';

// A key shorter than this is not masked: masking so short a string wherever it appears would destroy the
// output (every word that holds it), and no real key is that short.
export const MIN_SECRET_LENGTH = 8;

// Is this key set but too short to be masked?
export const tooShortToMask = (secret: string | undefined): secret is string =>
  secret !== undefined && secret.length > 0 && secret.length < MIN_SECRET_LENGTH;

// The `key-too-short` warning of a run (and doctor) when the key cannot be masked, or undefined.
export function shortKeyWarning(secret: string | undefined): { code: string; message: string } | undefined {
  if (!tooShortToMask(secret)) return undefined;
  return {
    code: 'key-too-short',
    message: `CURSOR_API_KEY is ${secret.length} characters long, under ${MIN_SECRET_LENGTH}: it is not masked in what rho-cursor writes`,
  };
}

// JSON's two-character escapes; any other unit can only be escaped as \uXXXX.
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// \u escapes spell UTF-16 units: a character outside the BMP is two of them (a surrogate pair).
const hex = (unit: string): string => unit.charCodeAt(0).toString(16).padStart(4, '0');

// The forms of the secret that can appear in text we write.
export function secretForms(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  const unicode = secret
    .split('')
    .map((u) => '\\u' + hex(u))
    .join('');
  return [...new Set([secret, escaped, unicode, unicode.toUpperCase().replaceAll('\\U', '\\u')])].filter(
    (f) => f.length > 0,
  );
}

// Replaces every form of the secret in one whole text: the plain forms, and (a JSON line may spell any
// character of the secret escaped, each its own way) the secret spelled with any mix of escapes.
export function redact(text: string, forms: readonly string[]): string {
  if (forms.length === 0) return text;
  const found: Array<[number, number]> = [];
  for (const f of forms)
    for (let at = text.indexOf(f); at !== -1; at = text.indexOf(f, at + f.length))
      found.push([at, at + f.length]);
  if (text.includes('\\')) {
    for (const m of text.matchAll(mixedFor(forms[0]!))) found.push([m.index, m.index + m[0].length]);
  }
  return found.length === 0 ? text : maskRanges(text, found);
}

// Text read as lines (an agent's stderr): the secret masked also where line breaks, with the blanks around
// them, fall between its characters. Only plain text: the secret is spelled as it is.
export function redactAcrossLines(text: string, secret: string | undefined): string {
  if (secret === undefined || !text.includes(secret[0]!)) return text;
  const pattern = secret
    .split('')
    .map((u) => escapeRegExp(u))
    .join('(?:[ \\t\\r]*\\n\\s*)?');
  return text.replace(new RegExp(pattern, 'g'), MASK);
}

// Bytes with every form of the secret masked, byte for byte (a patch's bytes are not always UTF-8, and decoding
// them would change what `git apply` reads); undefined when none is there.
export function redactBytes(bytes: Buffer, forms: readonly string[]): Buffer | undefined {
  const found: Array<[number, number]> = [];
  for (const f of forms) {
    const b = Buffer.from(f, 'utf8');
    for (let at = bytes.indexOf(b); at !== -1; at = bytes.indexOf(b, at + b.length))
      found.push([at, at + b.length]);
  }
  if (found.length === 0) return undefined;
  found.sort((p, q) => p[0] - q[0]);
  const parts: Buffer[] = [];
  let from = 0;
  for (const [a, z] of found) {
    if (z <= from) continue;
    if (a >= from) parts.push(bytes.subarray(from, a), Buffer.from(MASK));
    from = z;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

// Masks each range, widened to whole escapes, ranges that overlap as one. In JSON text a match may start or
// end inside an escape: `\\u0061...` is a backslash and the text `u0061...`, `\u000b` a control
// character whose last digit may start a match, `\\"` after a key ending in a backslash. Masked alone it
// would leave half an escape (`\[redacted]`, `\u000[redacted]`, a quote escaped by none), and the line would
// no longer be JSON; the whole escape goes with the mask instead. Plain text is masked all the same.
function maskRanges(text: string, ranges: Array<[number, number]>): string {
  const wide = ranges
    .map(([a, z]): [number, number] => [escapeStart(text, a), escapeEnd(text, z)])
    .sort((p, q) => p[0] - q[0]);
  let out = '';
  let from = 0;
  let [a, z] = wide[0]!;
  for (const [a2, z2] of wide.slice(1)) {
    if (a2 < z) {
      z = Math.max(z, z2);
      continue;
    }
    out += text.slice(from, a) + MASK;
    from = z;
    [a, z] = [a2, z2];
  }
  return out + text.slice(from, a) + MASK + text.slice(z);
}

// Is the backslash at `b` one that starts an escape (an even run of backslashes before it)?
function escaping(text: string, b: number): boolean {
  let run = 0;
  while (b - run > 0 && text.charCodeAt(b - run - 1) === 0x5c) run++;
  return run % 2 === 0;
}

// Where the escape that covers position `i` starts (`i` is after its backslash: `\n`, or within `\uXXXX`);
// `i` itself when no escape covers it.
function escapeStart(text: string, i: number): number {
  for (let b = i - 1; b >= 0 && b >= i - 5; b--) {
    const c = text.charCodeAt(b);
    if (c !== 0x5c) {
      // Only a `u` and hex digits can sit between an escape's backslash and a position it covers.
      if (!/[0-9a-fA-Fu]/.test(text[b]!)) return i;
      continue;
    }
    if (!escaping(text, b)) return i;
    const length = text[b + 1] === 'u' ? 6 : 2;
    return i < b + length ? b : i;
  }
  return i;
}

// Where a range that ends at `z` ends once the escape it ends inside of, if any, is whole.
function escapeEnd(text: string, z: number): number {
  const b = escapeStart(text, z);
  if (b === z) return z;
  return Math.min(text.length, b + (text[b + 1] === 'u' ? 6 : 2));
}

// Built once per secret: every write with a backslash in it is checked.
let mixed: { secret: string; re: RegExp } | undefined;

function mixedFor(secret: string): RegExp {
  if (mixed === undefined || mixed.secret !== secret) mixed = { secret, re: mixedPattern(secret) };
  return mixed.re;
}

function mixedPattern(secret: string): RegExp {
  const pattern = secret
    .split('')
    .map((u) => {
      const short = SHORT_ESCAPES[u];
      const code = `\\\\u${hex(u).replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`)}`;
      return `(?:${escapeRegExp(u)}|${code}${short ? `|${escapeRegExp(short)}` : ''})`;
    })
    .join('');
  return new RegExp(pattern, 'g');
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// A streaming redactor for one output: a secret split across two writes is still caught, by holding back
// only the end of a write that could be the start of the secret.
export class Redactor {
  private held = '';
  private readonly forms: string[];

  /** `also`: other values masked as written, never shorter than a key (the GitHub Actions guard's token). */
  constructor(secret: string | undefined, also: readonly string[] = []) {
    // Very short values would mask ordinary words: a key is long.
    this.forms = [
      ...(secret && secret.length >= MIN_SECRET_LENGTH ? secretForms(secret) : []),
      ...also.filter((v) => v.length >= MIN_SECRET_LENGTH),
    ];
  }

  get active(): boolean {
    return this.forms.length > 0;
  }

  /** Text waits for the next write or end(). */
  get holding(): boolean {
    return this.held !== '';
  }

  // The text safe to write now; what could still turn into the secret waits for the next write or end().
  push(text: string): string {
    if (!this.active) return text;
    const whole = redact(this.held + text, this.forms);
    let keep = this.heldBackLength(whole);
    // What is written ends between escapes, never inside one (an escape cut at the end, `\u00`, waits for its
    // rest): the held text then starts where no escape began before it, and a match in it is widened to
    // whole escapes as in a whole text (maskRanges). At most a few characters more wait.
    const cut = escapeStart(whole, whole.length - keep);
    keep = whole.length - cut;
    this.held = whole.slice(whole.length - keep);
    return whole.slice(0, whole.length - keep);
  }

  // Whatever was held back, once no more text will follow.
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  // The longest end of the text that is the start of one of the secret's forms.
  private heldBackLength(text: string): number {
    let best = 0;
    for (const f of this.forms) {
      for (let n = Math.min(f.length - 1, text.length); n > best; n--) {
        if (text.endsWith(f.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }
}
