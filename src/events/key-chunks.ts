// Pure: the key (CURSOR_API_KEY) masked in the agent's streamed text, not chunk by chunk. An agent that repeats
// the key streams it token by token, so a copy arrives split across chunks, and each sink would see only
// pieces of it. The text of consecutive chunks of one stream (message, thought) is masked as one text here,
// before any sink sees the events: a chunk that ends in what could be the start of the key keeps that end back,
// and it goes in front of the stream's next chunk, or becomes a chunk of its own when any other event comes
// or the turn ends. The chunks' text joined is the agent's text with the key masked.
import { Redactor } from '../lifecycle/secrets.js';
import type { Event, MessageEvent, ThoughtEvent } from './types.js';

type Stream = 'message' | 'thought';

export class KeyChunks {
  private readonly streams: Record<Stream, Redactor>;
  /** A key is set: without one, the run never calls take (no cost on the hot path). */
  readonly active: boolean;

  constructor(secret: string | undefined) {
    this.streams = { message: new Redactor(secret), thought: new Redactor(secret) };
    this.active = this.streams.message.active;
  }

  // The events to pass on for `e`, in order: what another stream held, then `e` with its text masked.
  take(e: Event): Event[] {
    if (e.type !== 'message' && e.type !== 'thought') return [...this.drain(), e];
    const out = this.drain(e.type === 'message' ? 'thought' : 'message');
    const r = this.streams[e.type];
    const text = r.push(e.text);
    out.push(text === e.text ? e : { ...e, text });
    return out;
  }

  // What the streams hold, each as a chunk of its own: at another event, or at the turn's end.
  drain(only?: Stream): Array<MessageEvent | ThoughtEvent> {
    const out: Array<MessageEvent | ThoughtEvent> = [];
    for (const type of only ? [only] : (['message', 'thought'] as const)) {
      const r = this.streams[type];
      if (r.holding) out.push({ type, text: r.end() });
    }
    return out;
  }
}
