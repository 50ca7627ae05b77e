// The one interface renderers write through, so tests can capture output without a terminal.
import type { Event, JsonOutput } from '../events/types.js';

export interface Writer {
  write(text: string): boolean;
  readonly isTTY: boolean;
}

export interface Renderer {
  /** Every event, in wire order. */
  emit(event: Event): void;
  /** Writes what was batched since the last flush; false means the destination wants a pause. */
  flush(): boolean;
  /** Leaves the terminal at the start of a line before someone else writes to stderr (a question). */
  settle(): void;
  /** The run is over: write whatever is still owed. */
  finish(output: JsonOutput): void;
}

/** Non-JSON lines from the agent shown on stderr before the rest are only counted (each is still an event). */
export const NON_JSON_SHOWN = 3;

// The cap on lines of one kind a sink shows: the first n are shown, the one after says the rest are not.
export class LineCap {
  private seen = 0;
  constructor(private readonly n: number) {}

  take(): 'shown' | 'first-hidden' | 'hidden' {
    this.seen++;
    return this.seen <= this.n ? 'shown' : this.seen === this.n + 1 ? 'first-hidden' : 'hidden';
  }
}
