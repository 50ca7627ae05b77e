// Pure: keeps a secret (CURSOR_API_KEY's value) out of everything rho-cursor writes, in every form a JSON
// text could carry it: plain, JSON-escaped, and \u-escaped character by character.

const MASK = '[redacted]';

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

// Replaces every form of the secret in one whole text.
export function redact(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = maskEach(out, f);
  // A JSON line may spell any character of the secret escaped, each its own way: compare its decoded form too.
  if (out.includes('\\') && forms.length > 0) out = redactMixedEscapes(out, forms[0]!);
  return out;
}

// The mask for the match text[at, end). In JSON text a character after an odd run of backslashes is escaped
// by the last of them: a match that starts there (`\\u0061...` is the text `\u0061...`, `\nbc...` a newline
// and `bc...`) would leave a lone backslash before `[`, and one that ends on such a backslash (a key ending in
// `\` matched in `\\"`) would leave the next character escaped by none (here the closing quote): either way
// the line would no longer be JSON. A backslash before or after the mask keeps each side as it was, so the
// text stays JSON; plain text, where the secret may well sit next to a backslash, is masked all the same.
function maskAt(text: string, at: number, end: number): string {
  return (escapesNext(text, at) ? '\\' : '') + MASK + (escapesNext(text, end) ? '\\' : '');
}

// Is the character at `i` escaped: an odd run of backslashes right before it?
function escapesNext(text: string, i: number): boolean {
  let run = 0;
  while (i - run > 0 && text.charCodeAt(i - run - 1) === 0x5c) run++;
  return run % 2 === 1;
}

// Masks every occurrence of one form (as split/join would, left to right, without overlaps).
function maskEach(text: string, form: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, from)) {
    out += text.slice(from, at) + maskAt(text, at, at + form.length);
    from = at + form.length;
  }
  return out + text.slice(from);
}

// Finds the secret written with each of its characters as itself, \u-escaped or short-escaped (\" \/ \n...),
// and masks it.
function redactMixedEscapes(text: string, secret: string): string {
  if (mixed?.secret !== secret) mixed = { secret, re: mixedPattern(secret) };
  return text.replace(mixed.re, (m: string, at: number) => maskAt(text, at, at + m.length));
}

// Built once per secret: every write with a backslash in it is checked.
let mixed: { secret: string; re: RegExp } | undefined;

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

  constructor(secret: string | undefined) {
    // Very short values would mask ordinary words: a key is long.
    this.forms = secret && secret.length >= 8 ? secretForms(secret) : [];
  }

  get active(): boolean {
    return this.forms.length > 0;
  }

  // The text safe to write now; what could still turn into the secret waits for the next write or end().
  push(text: string): string {
    if (!this.active) return text;
    const whole = redact(this.held + text, this.forms);
    let keep = this.heldBackLength(whole);
    // What is held starts after a whole run of backslashes, never inside one: how many come before a match
    // decides its mask (maskAt), so the run is kept together with it.
    while (keep < whole.length && whole.charCodeAt(whole.length - keep - 1) === 0x5c) keep++;
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
