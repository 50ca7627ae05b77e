// Pure: the small facts a run keeps about itself for what it reports after the turn (the CI summary,
// -o, --strict, --max-tool-calls): never whole tool states, so memory stays flat however long the turn.
import type { Event } from './types.js';

export interface ToolFact {
  kind: string;
  title: string;
  status: string;
}

export interface DecisionFact {
  kind: string;
  title: string;
  decision: string;
  reason: string;
}

export class RunFacts {
  /** Final status of each tool, by toolCallId (a few dozen bytes each). */
  readonly tools = new Map<string, ToolFact>();
  readonly decisions: DecisionFact[] = [];
  readonly warnings: { code: string; message: string }[] = [];
  /** How many distinct tool calls the current turn started. */
  turnToolCalls = 0;
  /** The current turn's answer, kept only when something needs it (-o, the summary, --output-schema). */
  answer = '';
  rejections = 0;

  constructor(private readonly keepAnswer: boolean) {}

  // Starts a new turn in the same session: its answer and tool count start again.
  newTurn(): void {
    this.answer = '';
    this.turnToolCalls = 0;
  }

  // Takes one event; returns true when it started a new tool call.
  add(e: Event): boolean {
    switch (e.type) {
      case 'message':
        if (this.keepAnswer) this.answer += e.text;
        return false;
      case 'tool': {
        const known = this.tools.get(e.toolCallId);
        if (known) {
          known.status = e.status;
          known.title = e.title || known.title;
          known.kind = e.kind;
          return false;
        }
        this.tools.set(e.toolCallId, { kind: e.kind, title: e.title, status: e.status });
        this.turnToolCalls++;
        return true;
      }
      case 'permission': {
        const d = e.decision;
        const rejected = !('optionId' in d) || d.kind.startsWith('reject');
        if (rejected) this.rejections++;
        this.decisions.push({
          kind: e.kind,
          title: e.title,
          decision: 'optionId' in d ? d.optionId : 'cancelled',
          reason: e.reason,
        });
        return false;
      }
      case 'warning':
        this.warnings.push({ code: e.code, message: e.message });
        return false;
      default:
        return false;
    }
  }

  // Was anything refused this run: a permission rejected, or a tool blocked?
  denied(): boolean {
    if (this.rejections > 0) return true;
    for (const t of this.tools.values()) if (t.status === 'rejected') return true;
    return false;
  }
}
