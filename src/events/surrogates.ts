// Pure: text chunks whose characters arrive whole. An agent may split a surrogate pair (an emoji) across two
// chunks: a trailing high surrogate is held until the next chunk of the same stream, and a surrogate with no
// partner becomes U+FFFD, so every sink (a terminal, NDJSON, the summary) gets well-formed text.
import type { MessageEvent, ThoughtEvent } from './types.js';

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

export class SurrogateJoiner {
  private held: Record<'message' | 'thought', string> = { message: '', thought: '' };

  // The chunk as it may be written now: the held half in front, a trailing high surrogate kept back.
  take<E extends MessageEvent | ThoughtEvent>(e: E): E {
    const held = this.held[e.type];
    const last = e.text.charCodeAt(e.text.length - 1);
    // The common case, a chunk with nothing held and no high surrogate at its end, passes untouched.
    if (held === '' && !isHigh(last)) {
      const text = wellFormed(e.text);
      return text === e.text ? e : { ...e, text };
    }
    let text = held + e.text;
    this.held[e.type] = '';
    if (isHigh(text.charCodeAt(text.length - 1))) {
      this.held[e.type] = text.slice(-1);
      text = text.slice(0, -1);
    }
    return { ...e, text: wellFormed(text) };
  }

  // What is still held when the stream ends (or another kind of event comes between): a lone half, as U+FFFD.
  drain(): Array<MessageEvent | ThoughtEvent> {
    const out: Array<MessageEvent | ThoughtEvent> = [];
    for (const type of ['message', 'thought'] as const) {
      if (this.held[type] !== '') out.push({ type, text: '\uFFFD' });
      this.held[type] = '';
    }
    return out;
  }

  get holding(): boolean {
    return this.held.message !== '' || this.held.thought !== '';
  }
}

// Lone surrogates as U+FFFD (Node 20 has String.prototype.isWellFormed and toWellFormed, ES2024); the native
// test first, faster than a regex on the 1M-chunk path.
function wellFormed(text: string): string {
  const t = text as string & { isWellFormed(): boolean; toWellFormed(): string };
  return t.isWellFormed() ? text : t.toWellFormed();
}
