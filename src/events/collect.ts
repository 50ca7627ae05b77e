// Pure: gathers the whole run from its events for the json output (text, final tool states, decisions, todos).
import type {
  Event,
  JsonOutput,
  PermissionEvent,
  PlanEvent,
  QuestionEvent,
  ResultEvent,
  Todo,
  ToolEvent,
  WarningEvent,
} from './types.js';
import { ANSWER_KEPT_MAX } from './facts.js';
import { keep } from './own-key.js';
import { keyCount, MAX_HELD_TOOLS, MAX_INPUT_KEYS } from './tools.js';

/**
 * Permissions, questions and plans kept for the json output, and warnings of each code: the first this many;
 * the rest are counted (`omitted`). An agent that floods requests or non-JSON lines cannot make the run hold
 * them all (found by review: 431 MB for 200k permission requests, 701 MB for 800k non-JSON lines), nor push
 * rho-cursor's own warnings out: each code has its own count.
 */
export const MAX_KEPT = 10_000;

// The first MAX_KEPT items, and how many more came.
class Kept<T> {
  readonly items: T[] = [];
  omitted = 0;
  add(e: T): void {
    if (this.items.length < MAX_KEPT) this.items.push(e);
    else this.omitted++;
  }
}

// A tool's latest state, with what every update of it carried as `extra` (the latest value of each field):
// the json output prints one state per tool, and an extra an earlier update sent is not lost with it (found
// by review: only the last update's was kept). The latest update's own extra is whole; earlier fields are
// added while the whole holds at most MAX_INPUT_KEYS, as a tool's merged input does (an agent that sends a
// new field name in each of a million updates cannot grow it). An own `__proto__` stays a key (keep).
function withExtras(was: ToolEvent | undefined, e: ToolEvent): ToolEvent {
  if (was?.extra === undefined) return e;
  if (e.extra === undefined) return { ...e, extra: was.extra };
  const extra = { ...e.extra };
  let room = MAX_INPUT_KEYS - keyCount(extra);
  for (const k in was.extra) {
    if (room <= 0) break;
    if (Object.hasOwn(extra, k)) continue;
    keep(extra, k, was.extra[k]);
    room--;
  }
  return { ...e, extra };
}

export class RunSummary {
  private readonly text: string[] = [];
  private textLength = 0;
  private readonly tools = new Map<string, ToolEvent>();
  private readonly permissions = new Kept<PermissionEvent>();
  private readonly questions = new Kept<QuestionEvent>();
  private readonly plans = new Kept<PlanEvent>();
  private readonly warnings: WarningEvent[] = [];
  /** Warnings kept so far of each code, and how many were not. */
  private readonly warningsByCode = new Map<string, number>();
  private warningsOmitted = 0;
  private todos: Todo[] = [];
  title: string | null = null;

  add(e: Event): void {
    switch (e.type) {
      case 'message': {
        // Up to ANSWER_KEPT_MAX characters, as -o's answer (events/facts.ts).
        const piece = e.text.slice(0, ANSWER_KEPT_MAX - this.textLength);
        if (piece === '') return;
        this.text.push(piece);
        this.textLength += piece.length;
        return;
      }
      case 'tool': {
        // Past the bound the turn is being stopped: tool calls made meanwhile are not kept.
        const was = this.tools.get(e.toolCallId);
        if (this.tools.size <= MAX_HELD_TOOLS || was) this.tools.set(e.toolCallId, withExtras(was, e));
        return;
      }
      case 'permission':
        this.permissions.add(e);
        return;
      case 'question':
        this.questions.add(e);
        return;
      case 'plan':
        this.plans.add(e);
        return;
      case 'todos':
        this.todos = e.todos;
        return;
      case 'warning': {
        const kept = this.warningsByCode.get(e.code) ?? 0;
        if (kept >= MAX_KEPT) {
          this.warningsOmitted++;
          return;
        }
        this.warningsByCode.set(e.code, kept + 1);
        this.warnings.push(e);
        return;
      }
      // A failed try is retried from the start: the answer is the last try's alone.
      case 'attempt':
        this.text.length = 0;
        this.textLength = 0;
        return;
      default:
        return;
    }
  }

  output(result: ResultEvent): JsonOutput {
    const omitted = {
      permissions: this.permissions.omitted,
      questions: this.questions.omitted,
      plans: this.plans.omitted,
      warnings: this.warningsOmitted,
    };
    return {
      ...result,
      text: this.text.join(''),
      tools: [...this.tools.values()],
      permissions: this.permissions.items,
      questions: this.questions.items,
      plans: this.plans.items,
      todos: this.todos,
      warnings: this.warnings,
      ...(Object.values(omitted).some((n) => n > 0) ? { omitted } : {}),
    };
  }
}
