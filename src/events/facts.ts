// Pure: the small facts a run keeps about itself for what it reports after the turn (the CI summary,
// -o, --strict, --max-tool-calls): never whole tool states, so memory stays flat however long the turn.
import type { Event } from './types.js';
import { decisionWords } from './decision.js';

export interface ToolFact {
  kind: string;
  title: string;
  status: string;
}

export interface DecisionFact {
  kind: string;
  title: string;
  decision: ReturnType<typeof decisionWords>;
  reason: string;
}

/** How many tools, decisions and warnings are kept by name for the summary's tables; the rest are counted. */
export const FACTS_KEPT = 500;

/** The most of a turn's answer kept in memory (characters) for -o, the summary, --output-schema and json's
 * `text`: past it memory would grow with the answer, and past ~512 Mi characters V8 can hold no string at all
 * (found by review: a 600 MiB answer was an `internal` error and lost -o). text and stream-json still write
 * every character to stdout as it comes. */
export const ANSWER_KEPT_MAX = 64 * 1024 * 1024;

// Appends `more` to `kept` up to ANSWER_KEPT_MAX characters in all; `cut` says whether any was left out.
export function keepAnswer(kept: string, more: string): { kept: string; cut: boolean } {
  const room = ANSWER_KEPT_MAX - kept.length;
  return more.length <= room
    ? { kept: kept + more, cut: false }
    : { kept: kept + more.slice(0, room), cut: true };
}

export class RunFacts {
  /** The first FACTS_KEPT tools of the run, by toolCallId, with their latest status (for the summary). */
  readonly tools = new Map<string, ToolFact>();
  /** Every distinct tool call of the run. */
  toolCount = 0;
  /** The first FACTS_KEPT permission decisions and warnings; the counts are of all of them. */
  readonly decisions: DecisionFact[] = [];
  decisionCount = 0;
  readonly warnings: { code: string; message: string }[] = [];
  warningCount = 0;
  /** How many distinct tool calls the current turn started. */
  turnToolCalls = 0;
  /** The current turn's answer, kept only when something needs it (-o, the summary, --output-schema), up to
   * ANSWER_KEPT_MAX characters; `answerCut`: it went on past them. */
  answer = '';
  /** The current turn's answer went on past ANSWER_KEPT_MAX characters (counted also when none is kept). */
  answerCut = false;
  private answerChars = 0;
  rejections = 0;
  /** Requests rho-cursor or the person allowed (a permission's allow option, a plan accepted), all turns:
   * what they allowed may have run, so --retries never tries again after one. */
  allowed = 0;
  /** The current turn's last request rho-cursor rejected, and how many tools the turn had started by then. */
  private lastRejection: { title: string; kind: string; atTool: number } | undefined;
  /** Rejected updates of tools beyond the kept ones (a fence's rule, a rejected permission); > 0 is what counts. */
  private rejectedBeyond = 0;

  constructor(private readonly keepAnswer: boolean) {}

  // Starts a new turn in the same session: its answer and tool count start again.
  newTurn(): void {
    this.answer = '';
    this.answerCut = false;
    this.answerChars = 0;
    this.turnToolCalls = 0;
    this.lastRejection = undefined;
  }

  // The request rho-cursor rejected this turn after which no tool started, if any: a turn the agent then ends
  // `cancelled` was ended by that rejection (Codex's only reject option aborts the turn).
  rejectedLast(): { title: string; kind: string } | undefined {
    const r = this.lastRejection;
    return r && r.atTool === this.turnToolCalls ? { title: r.title, kind: r.kind } : undefined;
  }

  // Takes one event; `newTool` says a tool event started a new call (the tool store knows). Memory stays
  // flat however many tools a turn makes: beyond the first FACTS_KEPT tools only counts are kept.
  add(e: Event, newTool = false): void {
    switch (e.type) {
      case 'message':
        if (this.answerCut) return;
        if (this.keepAnswer) ({ kept: this.answer, cut: this.answerCut } = keepAnswer(this.answer, e.text));
        else this.answerCut = (this.answerChars += e.text.length) > ANSWER_KEPT_MAX;
        return;
      case 'tool': {
        // The summary's status cell says when the agent never finished a tool the run closed.
        const never =
          e.status === 'cancelled' && (e.reportedStatus === 'pending' || e.reportedStatus === 'in_progress');
        const status = never
          ? `cancelled (never finished: left ${e.reportedStatus!.replace('_', ' ')})`
          : e.status;
        return this.tool(e.toolCallId, e.kind, e.title, status, newTool);
      }
      case 'permission': {
        const d = e.decision;
        const rejected = !('optionId' in d) || d.kind.startsWith('reject');
        if (rejected) this.rejections++;
        else this.allowed++;
        if (rejected && e.decidedBy !== 'withdrawn' && e.decidedBy !== 'cancel')
          this.lastRejection = { title: e.title, kind: e.kind, atTool: this.turnToolCalls };
        if (this.decisionCount++ < FACTS_KEPT)
          this.decisions.push({
            kind: e.kind,
            title: e.title,
            decision: decisionWords(d),
            reason: e.reason,
          });
        return;
      }
      case 'plan':
        if (e.answer.outcome === 'accepted') this.allowed++;
        return;
      case 'warning':
        if (this.warningCount++ < FACTS_KEPT) this.warnings.push({ code: e.code, message: e.message });
        return;
      default:
        return;
    }
  }

  private tool(id: string, kind: string, title: string, status: string, newTool: boolean): void {
    if (newTool) {
      this.toolCount++;
      this.turnToolCalls++;
    }
    const kept = this.tools.get(id);
    if (kept) {
      kept.status = status;
      kept.title = title || kept.title;
      kept.kind = kind;
      return;
    }
    if (newTool && this.tools.size < FACTS_KEPT) this.tools.set(id, { kind, title, status });
    // A tool beyond the kept ones is only counted; a rejection is what --strict needs of it.
    else if (status === 'rejected') this.rejectedBeyond++;
  }

  // Was anything refused this run: a permission rejected, or a tool blocked?
  denied(): boolean {
    if (this.rejections > 0 || this.rejectedBeyond > 0) return true;
    for (const t of this.tools.values()) if (t.status === 'rejected') return true;
    return false;
  }
}
