// Redact first, then cut: every shortening of text that may carry the key (CURSOR_API_KEY) goes through here,
// so a key straddling a cut never leaves part of itself behind (contract v3, "Secrets before cuts").
import { MIN_SECRET_LENGTH, redact, secretForms } from '../lifecycle/secrets.js';

// The key's forms for this process, set at start-up (the key lives in the environment, process-wide).
let forms: string[] = [];

// Remembers the key the process must never write (a value under 8 characters masks nothing, as the Redactor;
// the `key-too-short` warning says so).
export function useSecret(secret: string | undefined): void {
  forms = secret && secret.length >= MIN_SECRET_LENGTH ? secretForms(secret) : [];
}

// The key's forms (none when no key is set): for what is masked as bytes rather than text (a patch).
export const keyForms = (): readonly string[] => forms;

// The text with every form of the key masked.
export function redacted(text: string): string {
  return forms.length > 0 ? redact(text, forms) : text;
}

// At most max characters from the start, an ellipsis where it was cut; never between a surrogate pair.
export function cutEnd(text: string, max: number): string {
  const t = redacted(text);
  if (t.length <= max) return t;
  const end = /[\uD800-\uDBFF]/.test(t[max - 2] ?? '') ? max - 2 : max - 1;
  return t.slice(0, end) + '…';
}

// At most max characters from the end, an ellipsis where it was cut.
export function cutStart(text: string, max: number): string {
  const t = redacted(text);
  if (t.length <= max) return t;
  const start = /[\uDC00-\uDFFF]/.test(t[t.length - max + 1] ?? '') ? t.length - max + 2 : t.length - max + 1;
  return '…' + t.slice(start);
}

// The start and the end of a long text, the middle said as cut: the first head - 1 and the last tail - 1
// characters (one fewer where a surrogate pair would be split), each cut marked with an ellipsis, and how many
// characters were left out between them. Decided and counted on the redacted text, so a key the cut masks
// can neither leave part of itself nor make a short text look cut.
export function cutMiddle(text: string, head: number, tail: number): string {
  const t = redacted(text);
  if (t.length <= head + tail) return t;
  const start = t.slice(0, /[\uD800-\uDBFF]/.test(t[head - 2] ?? '') ? head - 2 : head - 1);
  const end = t.slice(
    /[\uDC00-\uDFFF]/.test(t[t.length - tail + 1] ?? '') ? t.length - tail + 2 : t.length - tail + 1,
  );
  return `${start}… (${t.length - start.length - end.length} more characters) …${end}`;
}
