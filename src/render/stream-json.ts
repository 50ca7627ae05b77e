// NDJSON renderer: one event per line, batched per chunk the agent wrote.
import type { Event, JsonOutput } from '../events/types.js';
import { inertJsonText, safeJson } from '../sanitize/json.js';
import type { Renderer, Writer } from './writer.js';

export class StreamJsonRenderer implements Renderer {
  private batch: string[] = [];

  constructor(private readonly out: Writer) {}

  emit(event: Event): void {
    // Text chunks are most of a turn: serialise their two fields directly.
    if (
      (event.type === 'message' || event.type === 'thought') &&
      event.content === undefined &&
      event.extra === undefined
    ) {
      // Well-formed already (events/surrogates.ts joins split pairs): only what a terminal acts on is escaped.
      this.batch.push(`{"type":"${event.type}","text":${inertJsonText(JSON.stringify(event.text))}}`);
      return;
    }
    // Any field may hold a lone surrogate or a character a terminal acts on.
    this.batch.push(safeJson(JSON.stringify(event)));
  }

  flush(): boolean {
    if (this.batch.length === 0) return true;
    const text = this.batch.join('\n') + '\n';
    this.batch = [];
    return this.out.write(text);
  }

  settle(): void {}

  finish(_output: JsonOutput): void {
    this.flush();
  }
}
