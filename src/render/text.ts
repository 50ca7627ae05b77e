// Text renderer: the agent's message text alone on stdout; everything else as short lines on stderr.
import { named } from '../agent/identity.js';
import { decisionWords } from '../events/decision.js';
import { extensionNote } from '../events/extensions.js';
import type { ChalkInstance } from 'chalk';
import type { Event, JsonOutput, QuestionEvent, Todo, ToolEvent } from '../events/types.js';
import { fenceLine } from '../fence/summary.js';
import { toolSummary } from './summary.js';
import { LineCap, NON_JSON_SHOWN, type Renderer, type Writer } from './writer.js';
import { RecentIds } from '../events/recent.js';
import { ChurnMap } from '../events/churn.js';
import { changesLine } from '../changes/compare.js';
import { oneLine as one, terminalSafe } from '../sanitize/terminal.js';
import { label, message } from './lines.js';

const PRINTED_KEPT = 16;
const TERMINAL = new Set(['completed', 'failed', 'rejected', 'cancelled']);

export interface TextStyle {
  /** Only the answer on stdout; on stderr only warnings and errors. */
  quiet: boolean;
}

export class TextRenderer implements Renderer {
  /** What is owed to stdout and stderr, in wire order; adjacent writes to one stream are joined. */
  private queue: Array<{ toErr: boolean; text: string }> = [];
  private outMidLine = false;
  private errMidLine = false;
  private inThought = false;
  private readonly nonJson = new LineCap(NON_JSON_SHOWN);
  private todos: Map<string, string> | undefined;
  private readonly printed = new RecentIds(PRINTED_KEPT);
  /** Tools printed as rejected: a later state that says they ran is printed again, corrected. */
  private readonly shownRejected = new RecentIds(PRINTED_KEPT);
  private readonly tools = new ChurnMap<string, ToolEvent>();
  /** How the agent's own words are labelled: Cursor, or another agent's title (from the session event). */
  private who = 'Cursor';

  constructor(
    private readonly out: Writer,
    private readonly err: Writer,
    private readonly c: ChalkInstance,
    private readonly style: TextStyle = { quiet: false },
  ) {}

  emit(e: Event): void {
    if (e.type !== 'thought') this.endThought();
    if (e.type === 'message') {
      // Non-text content is listed by kind and name, never dropped; an embedded resource's text is the answer's.
      if (e.content && !this.style.quiet)
        this.line(this.c.dim(label(`${e.content.type}: ${e.content.name ?? e.content.mimeType ?? ''}`)));
      // At a terminal the answer is shown, never interpreted; to a pipe or a file it is data, byte-exact. On
      // stderr (the answer beside --output-schema's value) it is one of our lines, whatever stderr is.
      this.push(false, this.out.isTTY || this.out === this.err ? terminalSafe(e.text) : e.text);
      if (e.text.length > 0) this.outMidLine = !e.text.endsWith('\n');
      return;
    }
    if (e.type === 'warning') return this.warning(e.code, e.message);
    if (!this.style.quiet) this.detail(e);
  }

  // The lines only a non-quiet run shows.
  private detail(e: Event): void {
    switch (e.type) {
      case 'thought':
        if (e.content) e = { ...e, text: `[${e.content.type}: ${label(e.content.name ?? '')}] ${e.text}` };
        if (!this.inThought) this.line(this.c.dim('thinking: '), false);
        this.inThought = true;
        this.errRaw(this.c.dim(one(e.text.replace(/\n+/g, ' '))));
        return;
      case 'tool':
        if (TERMINAL.has(e.status) && !this.printed.has(e.toolCallId)) {
          this.remember(e.toolCallId);
          this.tools.delete(e.toolCallId);
          if (e.status === 'rejected') this.shownRejected.add(e.toolCallId);
          this.line(this.toolLine(e));
        } else if (e.status !== 'rejected' && this.shownRejected.has(e.toolCallId)) {
          // It was shown rejected, but it ran: the line is corrected, never left standing.
          this.line(`${this.toolLine(e)} ${this.c.red('(shown rejected above, but it ran)')}`);
        } else if (!this.printed.has(e.toolCallId)) this.tools.set(e.toolCallId, e);
        return;
      case 'session':
        this.who = label(
          e.agent.cursor ? 'Cursor' : (named(e.agent.title) ?? named(e.agent.name) ?? 'agent'),
        );
        this.line(
          this.c.dim(
            // approvalMode is Cursor's; another agent is named instead.
            one(
              `session ${label(e.sessionId)} · model ${label(e.model ?? 'unknown')} · mode ${label(e.mode ?? 'unknown')} · ${e.agent.cursor ? `approvalMode ${e.approvalMode}` : `agent ${this.who}`} · permissions ${e.permissions}`,
            ),
          ),
        );
        if (e.fence.name !== 'none' || e.rules.allow.length + e.rules.deny.length > 0)
          this.line(this.c.dim(fenceLine(e.fence, e.rules)));
        if (e.resumed)
          this.line(
            this.c.dim(
              `resumed: ${e.replayed} earlier update${e.replayed === 1 ? '' : 's'} replayed (not shown; stream-json has them as history events)`,
            ),
          );
        return;
      case 'permission': {
        const d = decisionWords(e.decision);
        const colour = d === 'allowed once' ? this.c.green : this.c.red;
        const why = e.agentReason ? ` · ${this.who}: ${label(e.agentReason)}` : '';
        this.line(
          `${this.c.bold('permission')} ${label(e.kind)} ${label(e.title)} → ${colour(d)} (${message(e.reason)})${this.c.dim(why)}`,
        );
        return;
      }
      case 'question':
        for (const l of questionLines(e)) this.line(`${this.c.bold('question')} ${label(l)}`);
        return;
      case 'plan': {
        const why =
          e.answer.reason && e.decidedBy !== 'person' ? this.c.dim(` (${message(e.answer.reason)})`) : '';
        this.line(`${this.c.bold('plan')}${e.name ? ' ' + label(e.name) : ''} → ${e.answer.outcome}${why}`);
        // A plan the person just read at the question is not printed again.
        if (e.decidedBy === 'person') return;
        if (e.overview) this.line(this.c.dim('  ' + one(e.overview)));
        for (const l of e.plan.replace(/\n+$/, '').split('\n')) this.line(this.c.dim('  ' + one(l)));
        return;
      }
      case 'todos':
        return this.todoLines(e.todos);
      case 'mode':
        this.line(this.c.dim(`mode: ${label(e.mode)}`));
        return;
      case 'extension':
        this.extension(e.method, e.params);
        return;
      case 'attempt':
        this.line(
          this.c.yellow(
            `attempt ${e.attempt} failed: ${message(e.error.message)}; trying again with a fresh agent in ${e.retryInMs / 1000}s (--retries)`,
          ),
        );
        return;
      case 'validation': {
        const verdict = e.valid ? this.c.green('matches') : this.c.red('does not match');
        const why = e.errors.length > 0 ? this.c.dim(` · ${label(e.errors.slice(0, 3).join('; '))}`) : '';
        this.line(`${this.c.bold('schema')} answer ${e.attempt} ${verdict} --output-schema${why}`);
        return;
      }
      default:
        return;
    }
  }

  // Warnings, but non-JSON lines from the agent only up to a cap: a chatty agent must not bury the answer.
  private warning(code: string, text: string): void {
    const cap = code === 'agent-non-json' ? this.nonJson.take() : 'shown';
    if (cap !== 'shown') {
      if (cap === 'first-hidden')
        this.line(
          this.c.yellow(
            'warning: the agent wrote more lines that are not JSON-RPC; the rest are not shown (stream-json keeps them)',
          ),
        );
      return;
    }
    this.line(this.c.yellow(`warning: ${message(text)}`));
  }

  // The whole list the first time, then only the items that are new or changed.
  private todoLines(todos: Todo[]): void {
    const next = new Map(todos.map((t) => [t.id, `${t.status}\u0000${t.content}`]));
    const before = this.todos;
    this.todos = next;
    if (!before) {
      this.line(this.c.bold('todos'));
      for (const t of todos) this.line(`  ${todoMark(t.status)} ${label(t.content)}`);
      return;
    }
    for (const t of todos) {
      if (before.get(t.id) !== next.get(t.id))
        this.line(`${this.c.bold('todo')} ${todoMark(t.status)} ${label(t.content)}`);
    }
  }

  flush(): boolean {
    let ok = true;
    for (const { toErr, text } of this.queue) ok = (toErr ? this.err : this.out).write(text) && ok;
    this.queue = [];
    return ok;
  }

  // Leaves both streams at the start of a line, so someone else (the terminal question) can write to stderr.
  settle(): void {
    this.endThought();
    this.breakSharedLine();
    if (this.errMidLine) this.errRaw('\n');
    this.flush();
  }

  finish(o: JsonOutput): void {
    this.endThought();
    if (!this.style.quiet) {
      for (const t of this.tools.values()) {
        if (!this.printed.has(t.toolCallId)) this.line(this.toolLine(t));
      }
    }
    // The answer's last line is ended: on a shared terminal by stderr, so stdout stays the answer alone.
    this.breakSharedLine();
    if (this.outMidLine) {
      this.push(false, '\n');
      this.outMidLine = false;
    }
    // What the ledger measured, when anything changed; and where the patch went.
    if (o.changes && !this.style.quiet && (o.changes.truncated || hasChanges(o.changes)))
      this.line(message(changesLine(o.changes))); // file names are the agent's: one line, made visible
    if (o.patch && !this.style.quiet) this.line(`${this.c.bold('patch')}: ${o.patch}`);
    // No stopReason line when no turn ended: the error says what happened. Its label is bold, as every line
    // of ours has a colour or a bold label: with colour on, an answer cannot imitate it (ESC is shown).
    if (o.stopReason !== null && !this.style.quiet)
      this.line(`${this.c.bold('stopReason')}: ${label(o.stopReason)}`);
    // An error is always one line, whatever the agent put in it.
    if (o.error) this.line(this.c.red(`rho-cursor: ${message(o.error.message)}`));
    this.flush();
  }

  // Shows what Cursor's own extensions carry (a subagent task, an image, the session title); the rest stays quiet.
  private extension(method: string, params: unknown): void {
    const n = extensionNote(method, params);
    if (!n) return;
    if (n.label === 'title') return this.line(this.c.dim(`title: ${label(n.text)}`));
    const detail =
      n.detail === undefined ? '' : n.label === 'task' ? ` (${label(n.detail)})` : ` → ${label(n.detail)}`;
    this.line(`${this.c.bold(n.label)} ${label(n.text)}${detail ? this.c.dim(detail) : ''}`);
  }

  private toolLine(t: ToolEvent): string {
    const status =
      t.status === 'completed'
        ? this.c.green(t.status)
        : t.status === 'in_progress' || t.status === 'pending'
          ? this.c.yellow(t.status)
          : this.c.red(t.status);
    const summary = label(toolSummary(t));
    return `${this.c.cyan(label(t.kind))} ${label(t.title)} ${status}${summary ? this.c.dim(' · ' + summary) : ''}`;
  }

  // Remembers a printed tool so it is printed once; only the latest ones, as a finished tool comes back
  // (if ever) right after: a long turn's thousands of tools are not held to the end (issue 10).
  private remember(toolCallId: string): void {
    this.printed.add(toolCallId);
  }

  private endThought(): void {
    if (this.inThought) {
      this.inThought = false;
      this.errRaw('\n');
    }
  }

  // Where the answer and the other lines meet (a shared terminal, or the answer itself sent to stderr by
  // --output-schema), ends the answer's open line with a newline on stderr, so stdout stays the answer alone.
  private breakSharedLine(): void {
    if (this.outMidLine && (this.out === this.err || (this.out.isTTY && this.err.isTTY))) {
      this.errRaw('\n');
      this.outMidLine = false;
    }
  }

  // One stderr line, never continuing the answer's unfinished line nor a thought.
  private line(text: string, newline = true): void {
    this.breakSharedLine();
    if (this.errMidLine) this.errRaw('\n');
    this.errRaw(newline ? text + '\n' : text);
  }

  private errRaw(text: string): void {
    if (text.length === 0) return;
    this.push(true, text);
    this.errMidLine = !text.endsWith('\n');
  }

  // Queues text for one stream, joined to the previous piece when it goes to the same stream.
  private push(toErr: boolean, text: string): void {
    if (text.length === 0) return;
    const last = this.queue[this.queue.length - 1];
    if (last && last.toErr === toErr) last.text += text;
    else this.queue.push({ toErr, text });
  }
}

// What was asked and what was answered, one line per question, with the chosen labels.
export function questionLines(e: QuestionEvent): string[] {
  const a = e.answer as { outcome: string; optionId?: unknown; answers?: unknown };
  if (e.questions.length === 0) return [`${e.title ?? ''} → ${a.outcome}`];
  const picked = (q: QuestionEvent['questions'][number], ids: unknown[]): string =>
    ids.map((id) => q.options.find((o) => o.id === id)?.label ?? String(id)).join(', ');
  return e.questions.map((q) => {
    if (typeof a.optionId === 'string' && a.outcome === 'answered')
      return `${q.prompt} → ${picked(q, [a.optionId])}`;
    const mine = Array.isArray(a.answers)
      ? (a.answers as Array<{ questionId?: unknown; selectedOptionIds?: unknown }>).find(
          (x) => x.questionId === q.id,
        )
      : undefined;
    if (mine && Array.isArray(mine.selectedOptionIds) && mine.selectedOptionIds.length > 0)
      return `${q.prompt} → ${picked(q, mine.selectedOptionIds)}`;
    return `${q.prompt} → ${a.outcome === 'answered' ? 'skipped' : a.outcome}`;
  });
}

function todoMark(status: string): string {
  return status === 'completed'
    ? '[x]'
    : status === 'in_progress'
      ? '[~]'
      : status === 'cancelled'
        ? '[-]'
        : '[ ]';
}

// Did the ledger see any change?
function hasChanges(c: NonNullable<JsonOutput['changes']>): boolean {
  return c.added.length + c.modified.length + c.deleted.length > 0;
}
