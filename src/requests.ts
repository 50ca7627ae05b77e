// Answers every request the agent sends: permissions by policy, Cursor's extensions, -32601 for the rest.
import type { Connection } from './acp/connection.js';
import type { AgentIdentity } from './agent/identity.js';
import { isRecord, type Id, type Request } from './acp/messages.js';
import {
  permissionEvent,
  questionAnswer,
  questionEvent,
  readPlan,
  readQuestions,
} from './events/requests.js';
import type { Event, PlanEvent } from './events/types.js';
import { normalizeTodos, type ToolStore } from './events/tools.js';
import { extension } from './events/updates.js';
import type { RunOptions } from './options.js';
import type { Asker, Choice } from './policy/ask.js';
import { judgeByRules } from './policy/judge.js';
import { NO_RULES } from './policy/rules.js';
import { subjectOf } from './policy/subject.js';
import {
  askQuestion,
  permissionAsQuestion,
  permissionQuestion,
  planQuestion,
  TURN_ENDED,
  type TerminalQuestion,
} from './policy/prompts.js';
import {
  decidePermission,
  decidePlan,
  isRejection,
  judgedKind,
  permissionResult,
  readPermissionRequest,
  requestKind,
  SKIP_QUESTION_REASON,
  type PermissionRequest,
  type PlanAnswer,
  type Verdict,
} from './policy/decide.js';

export interface RequestContext {
  conn: Connection;
  emit(e: Event): void;
  tools: ToolStore;
  opts: RunOptions;
  asker: Asker | undefined;
  /** Leaves the terminal at the start of a line before a question is shown (the text renderer's settle). */
  settle?: () => void;
  /** This run's session: a permission request for any other is answered cancelled, never allowed. */
  sessionId?: () => string | null;
  /** Which agent this is: Cursor's extensions (cursor/*) are answered only for Cursor. */
  identity?: () => AgentIdentity;
}

export class AgentRequests {
  /** Requests a person is still deciding: answered `cancelled` if the run is cancelled, dropped if withdrawn. */
  private readonly pending = new Map<
    Id | null,
    { cancel: () => void; withdraw: () => void; end: () => void }
  >();
  private cancelled = false;

  constructor(private readonly ctx: RequestContext) {}

  handle(msg: Request): void {
    const p = msg.params;
    // Another agent's cursor/* request is not Cursor's extension: it is answered as any unknown method.
    const method = msg.method.startsWith('cursor/') && !this.cursor() ? '' : msg.method;
    switch (method) {
      case 'session/request_permission': {
        // A tool first seen in its own request has no announced kind: the request's is judged as it is.
        const req = this.announceTool(p)
          ? readPermissionRequest(p)
          : { ...readPermissionRequest(this.withKnownTool(p)), ...this.claimNote(p) };
        const foreign = this.foreignSession(p);
        if (foreign) return this.answerPermission(msg.id, req, foreign);
        return this.permission(msg.id, req, p);
      }
      case 'cursor/ask_question':
        return this.question(msg.id, p);
      case 'cursor/create_plan':
        return this.plan(msg.id, p);
      case 'cursor/update_todos': {
        const todos = isRecord(p) && Array.isArray(p.todos) ? p.todos : [];
        this.ctx.conn.respond(msg.id, { outcome: { outcome: 'accepted', todos } });
        this.ctx.emit({ type: 'todos', todos: normalizeTodos(todos), source: 'cursor/update_todos' });
        return;
      }
      case 'cursor/task':
      case 'cursor/generate_image':
        this.ctx.conn.respond(msg.id, {});
        this.ctx.emit(extension(msg.method, p));
        return;
      default:
        // fs/*, terminal/*, elicitation/create were not advertised: an error at once, never a hang.
        this.ctx.conn.respondError(msg.id, -32601, `Method not found: ${msg.method}`);
        this.ctx.emit(extension(msg.method, p));
    }
  }

  // $/cancel_request: the agent withdraws a request a person is still deciding; it closes and is never
  // answered. Returns false when no such request is pending (it was answered already).
  withdraw(params: unknown): boolean {
    const id = isRecord(params) ? params.requestId : undefined;
    const pending = typeof id === 'number' || typeof id === 'string' ? this.pending.get(id) : undefined;
    if (!pending) return false;
    pending.withdraw();
    return true;
  }

  // A permission request for a tool no tool_call announced still yields the tool, so its outcome shows, with
  // the kind the request is judged by. Returns whether it did.
  private announceTool(params: unknown): boolean {
    const tc = isRecord(params) && isRecord(params.toolCall) ? params.toolCall : undefined;
    if (!tc || typeof tc.toolCallId !== 'string' || this.ctx.tools.get(tc.toolCallId)) return false;
    // Its content is the agent's reason for asking, not the tool's output.
    const { content: _reason, ...call } = tc;
    this.ctx.emit(this.ctx.tools.apply({ ...call, kind: judgedKind(call.kind).kind }));
    return true;
  }

  // A permission's toolCall is an update (ACP): its title may be the one tool_call announced, and its kind
  // is: a request is judged by the kind its tool was announced with, never by a different one it claims.
  private withKnownTool(params: unknown): unknown {
    if (!isRecord(params) || !isRecord(params.toolCall)) return params;
    const tc = params.toolCall;
    const known = typeof tc.toolCallId === 'string' ? this.ctx.tools.get(tc.toolCallId) : undefined;
    if (!known) return params;
    return { ...params, toolCall: { title: known.title, ...tc, kind: known.kind } };
  }

  // Says so when the request claims another kind than the one its tool was announced with.
  private claimNote(params: unknown): { kindNote?: string } {
    const tc = isRecord(params) && isRecord(params.toolCall) ? params.toolCall : undefined;
    const known = tc && typeof tc.toolCallId === 'string' ? this.ctx.tools.get(tc.toolCallId) : undefined;
    if (!known || tc?.kind === undefined || tc.kind === known.kind) return {};
    return {
      kindNote: `the request claims kind ${JSON.stringify(tc.kind)}; its tool was announced as ${known.kind}`,
    };
  }

  // A request for a session that is not this run's is cancelled (undefined: it is this run's).
  private foreignSession(params: unknown): Verdict | undefined {
    const mine = this.ctx.sessionId?.();
    if (mine === undefined) return undefined;
    const theirs = isRecord(params) ? params.sessionId : undefined;
    if (mine !== null && theirs === mine) return undefined;
    return {
      decision: { outcome: 'cancelled' },
      reason: `for session ${typeof theirs === 'string' ? theirs : (JSON.stringify(theirs) ?? 'none')}, not this run's`,
      decidedBy: 'policy',
    };
  }

  // Is the agent Cursor (the default when the run does not say)?
  private cursor(): boolean {
    return this.ctx.identity?.().cursor ?? true;
  }

  // How the agent is named in a question: Cursor, or its agentInfo.title.
  private who(): string {
    return this.ctx.identity?.().title ?? 'Cursor';
  }

  // Is a person still deciding one of the agent's requests?
  asking(): boolean {
    return this.pending.size > 0;
  }

  // The turn is over: a question still on the screen closes with a line saying so, unanswered.
  endQuestions(): void {
    for (const p of [...this.pending.values()]) p.end();
  }

  // Answers every request still waiting on a person with `cancelled`, as ACP requires on session/cancel.
  cancelAll(): void {
    this.cancelled = true;
    for (const p of [...this.pending.values()]) p.cancel();
  }

  private permission(id: Id | null, req: PermissionRequest, params: unknown): void {
    const { opts } = this.ctx;
    const toolCall = isRecord(params) ? params.toolCall : undefined;
    const ruled = judgeByRules(
      requestKind(req),
      subjectOf(toolCall, this.ctx.tools.get(req.toolCallId)),
      opts.rules ?? NO_RULES,
      opts.cwd,
    );
    const decided = this.cancelled
      ? {
          decision: { outcome: 'cancelled' as const },
          reason: 'the run was cancelled',
          decidedBy: 'cancel' as const,
        }
      : decidePermission(
          req,
          opts.policy,
          opts.allow,
          opts.interactive && this.ctx.asker !== undefined,
          opts.fence,
          ruled,
        );
    // The reason says when the kind judged is not the one the request claims.
    const verdict =
      decided && req.kindNote ? { ...decided, reason: `${decided.reason}; ${req.kindNote}` } : decided;
    if (verdict) return this.answerPermission(id, req, verdict);
    // A person decides: what the question shows and offers is built in policy/prompts.ts.
    const input = this.ctx.tools.get(req.toolCallId)?.input ?? {};
    const q = req.isQuestion
      ? permissionAsQuestion(req, this.who())
      : permissionQuestion(req, input, this.who());
    const withdrawn = (): Event =>
      req.isQuestion
        ? questionEvent(req, { outcome: 'withdrawn' })
        : permissionEvent(req, {
            decision: { outcome: 'cancelled' },
            reason: 'withdrawn by the agent ($/cancel_request): not answered',
            decidedBy: 'withdrawn',
          });
    this.ask(id, q, withdrawn, (choice) => {
      const option = choice && req.options.find((o) => o.optionId === choice.value);
      if (!option) {
        return this.answerPermission(id, req, {
          decision: { outcome: 'cancelled' },
          reason:
            choice === undefined && !this.cancelled
              ? 'end of input at the terminal'
              : 'the run was cancelled',
          decidedBy: 'cancel',
        });
      }
      this.answerPermission(id, req, {
        decision: { optionId: option.optionId, kind: option.kind },
        reason: 'chosen at the terminal',
        decidedBy: 'person',
      });
    });
  }

  private answerPermission(id: Id | null, req: PermissionRequest, v: Verdict): void {
    this.ctx.conn.respond(id, permissionResult(v));
    if (req.isQuestion) {
      this.ctx.emit(questionEvent(req, questionAnswer(v)));
      return;
    }
    this.ctx.emit(permissionEvent(req, v));
    if (isRejection(v) && req.toolCallId) {
      const tool = this.ctx.tools.markVerdict(
        req.toolCallId,
        'optionId' in v.decision ? 'rejected' : 'cancelled',
      );
      if (tool && tool.status !== 'pending' && tool.status !== 'in_progress') this.ctx.emit(tool);
    }
  }

  private question(id: Id | null, params: unknown): void {
    const base = readQuestions(params);
    const { questions } = base;
    const skip = (): void => {
      const answer = { outcome: 'skipped', reason: SKIP_QUESTION_REASON };
      this.ctx.conn.respond(id, { outcome: answer });
      this.ctx.emit({ ...base, answer });
    };
    if (!this.canAsk() || questions.length === 0) return skip();
    const withdrawn = (): Event => ({ ...base, answer: { outcome: 'withdrawn' } });
    // Several questions are asked in turn; skipping one leaves it out, skipping all skips the request.
    const answers: Array<{ questionId: string | null; selectedOptionIds: string[] }> = [];
    const next = (i: number): void => {
      const q = questions[i];
      if (!q) {
        if (answers.length === 0) return skip();
        const answer = { outcome: 'answered', answers };
        this.ctx.conn.respond(id, { outcome: answer });
        return this.ctx.emit({ ...base, answer });
      }
      this.ask(id, askQuestion(base.title, q, i, questions.length), withdrawn, (choice) => {
        if (choice === undefined) {
          this.ctx.conn.respond(id, { outcome: { outcome: 'cancelled' } });
          return this.ctx.emit({ ...base, answer: { outcome: 'cancelled' } });
        }
        if (choice.value !== '') answers.push({ questionId: q.id, selectedOptionIds: [choice.value] });
        next(i + 1);
      });
    };
    next(0);
  }

  private plan(id: Id | null, params: unknown): void {
    const base = readPlan(params);
    const answer = (a: PlanAnswer | { outcome: 'cancelled' }, decidedBy: PlanEvent['decidedBy']): void => {
      this.ctx.conn.respond(id, { outcome: a });
      this.ctx.emit({ ...base, answer: a, decidedBy });
    };
    const { policy, plan, fence } = this.ctx.opts;
    const decided = decidePlan(policy, plan, this.canAsk(), fence);
    if (decided) return answer(decided, 'policy');
    const withdrawn = (): Event => ({ ...base, answer: { outcome: 'withdrawn' }, decidedBy: 'withdrawn' });
    this.ask(id, planQuestion(base), withdrawn, (choice) => {
      if (choice === undefined) return answer({ outcome: 'cancelled' }, 'cancel');
      answer(
        choice.value === 'accept'
          ? { outcome: 'accepted' }
          : { outcome: 'rejected', reason: 'The person at the terminal rejected the plan.' },
        'person',
      );
    });
  }

  private canAsk(): boolean {
    return (
      !this.cancelled &&
      this.ctx.opts.policy === 'ask' &&
      this.ctx.opts.interactive &&
      this.ctx.asker !== undefined
    );
  }

  // Hands a question to the person; the request stays pending (cancellable, or withdrawn by the agent: then
  // the question closes, `withdrawn()` is the event, and no answer is sent) until answered.
  private ask(
    id: Id | null,
    q: TerminalQuestion,
    withdrawn: () => Event,
    then: (choice: Choice | undefined) => void,
  ): void {
    const asker = this.ctx.asker;
    if (!asker) return then(undefined);
    const abort = new AbortController();
    let settled = false;
    const finish = (choice: Choice | undefined): void => {
      if (settled) return;
      settled = true;
      this.pending.delete(id);
      then(choice);
    };
    this.pending.set(id, {
      cancel: () => {
        abort.abort();
        finish(undefined);
      },
      withdraw: () => {
        if (settled) return;
        settled = true;
        this.pending.delete(id);
        abort.abort();
        this.ctx.emit(withdrawn());
      },
      end: () => {
        if (settled) return;
        settled = true;
        this.pending.delete(id);
        abort.abort(TURN_ENDED);
      },
    });
    // The question starts on a fresh line, after everything rendered so far.
    this.ctx.settle?.();
    asker.choose(q, abort.signal).then(finish, () => finish(undefined));
  }
}
