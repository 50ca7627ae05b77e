// NDJSON renderer: one event per line, batched per chunk the agent wrote.
import type { Event, JsonOutput, ToolEvent } from '../events/types.js';
import { inertJsonText, safeJson } from '../sanitize/json.js';
import type { Renderer, Writer } from './writer.js';

/**
 * What tool events may write: every one carries its tool's whole state, so an agent that sends one large input
 * and then many small updates would make each a copy of it (1 MB and 4k bare updates: 4 GB). Past
 * TOOL_FACTOR times the bytes read from the agent plus TOOL_SLACK, a tool's latest state waits (one per
 * tool, the newest replacing the older) and is written once the budget allows, and always before the result.
 * A waiting state is serialised only when it is looked at for writing, so updates that replace it cost no
 * serialisation. Meanwhile other events go on: a tool's event may come after events sent after it.
 */
export const TOOL_FACTOR = 8;
export const TOOL_SLACK = 16 * 1024 * 1024;

// Any field may hold a lone surrogate or a character a terminal acts on.
const serialised = (event: Event): string => safeJson(JSON.stringify(event));

export class StreamJsonRenderer implements Renderer {
  private batch: string[] = [];
  /** Characters of tool events written so far. */
  private toolChars = 0;
  /** Each tool's latest event that did not fit the budget, in the order their tools last changed; its line
   * once serialised. */
  private readonly waiting = new Map<string, { event: ToolEvent; line?: string }>();

  /** readBytes: how many bytes were read from the agent so far (the tool events' budget grows with it). */
  constructor(
    private readonly out: Writer,
    private readonly readBytes: () => number = () => Infinity,
    private readonly budget = { factor: TOOL_FACTOR, slack: TOOL_SLACK },
  ) {}

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
    if (event.type === 'tool') return this.tool(event);
    if (event.type === 'result') this.release(true);
    this.batch.push(serialised(event));
  }

  // A tool event is written if it fits the budget (its older waiting state is then stale), else it waits.
  private tool(event: ToolEvent): void {
    if (this.waiting.size > 0) {
      this.waiting.delete(event.toolCallId);
      this.waiting.set(event.toolCallId, { event });
      return;
    }
    const line = serialised(event);
    if (this.fits(line)) {
      this.toolChars += line.length;
      this.batch.push(line);
    } else this.waiting.set(event.toolCallId, { event, line });
  }

  private fits(line: string): boolean {
    return this.toolChars + line.length <= this.budget.factor * this.readBytes() + this.budget.slack;
  }

  // Writes the waiting tool states, oldest first, as far as the budget allows (all of them at the end).
  private release(all: boolean): void {
    for (const [id, entry] of this.waiting) {
      const line = (entry.line ??= serialised(entry.event));
      if (!all && !this.fits(line)) return;
      this.waiting.delete(id);
      this.toolChars += line.length;
      this.batch.push(line);
    }
  }

  flush(): boolean {
    if (this.waiting.size > 0) this.release(false);
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
