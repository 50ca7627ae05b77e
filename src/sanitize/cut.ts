// Redact first, then cut: every shortening of text that may carry the key (CURSOR_API_KEY) goes through here,
// so a key straddling a cut never leaves part of itself behind (contract v3, "Secrets before cuts").
import { redact, secretForms } from '../lifecycle/secrets.js';

// The key's forms for this process, set once by the run (the key lives in the environment, process-wide).
let forms: string[] = [];

// Remembers the key the run must never write (a value under 8 characters masks nothing, as the Redactor).
export function useSecret(secret: string | undefined): void {
  forms = secret && secret.length >= 8 ? secretForms(secret) : [];
}

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

// The start and the end of a long text, the middle said as cut: at most head + tail characters of it.
export function cutMiddle(text: string, head: number, tail: number): string {
  return `${cutEnd(text, head)} (${text.length - head - tail} more characters) ${cutStart(text, tail)}`;
}
