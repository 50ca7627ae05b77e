// Answers every request the agent sends: permissions by policy, Cursor's extensions, -32601 for the rest.
import type { Connection } from './acp/connection.js';
import { isRecord, str, type Id, type Request } from './acp/messages.js';
import type { Event, PlanEvent, QuestionEvent } from './events/types.js';
import { normalizeTodos, type ToolStore } from './events/tools.js';
import type { RunOptions } from './options.js';
import type { Asker, Choice } from './policy/ask.js';
import {
  decidePermission,
  decidePlan,
  isRejection,
  permissionResult,
  readPermissionRequest,
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
}

export class AgentRequests {
  /** Requests a person is still deciding, answered `cancelled` if the run is cancelled. */
  private readonly pending = new Map<Id | null, { abort: AbortController; cancel: () => void }>();
  private cancelled = false;

  constructor(private readonly ctx: RequestContext) {}

  handle(msg: Request): void {
    const p = msg.params;
    switch (msg.method) {
      case 'session/request_permission':
        return this.permission(msg.id, readPermissionRequest(p));
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
        this.ctx.emit({ type: 'extension', method: msg.method, params: p });
        return;
      default:
        this.ctx.conn.respondError(msg.id, -32601, `Method not found: ${msg.method}`);
        this.ctx.emit({ type: 'extension', method: msg.method, params: p });
    }
  }

  // Is a person still deciding one of the agent's requests?
  asking(): boolean {
    return this.pending.size > 0;
  }

  // Answers every request still waiting on a person with `cancelled`, as ACP requires on session/cancel.
  cancelAll(): void {
    this.cancelled = true;
    for (const p of [...this.pending.values()]) p.cancel();
  }

  private permission(id: Id | null, req: PermissionRequest): void {
    const { opts } = this.ctx;
    const verdict = this.cancelled
      ? {
          decision: { outcome: 'cancelled' as const },
          reason: 'the run was cancelled',
          decidedBy: 'cancel' as const,
        }
      : decidePermission(req, opts.policy, opts.allow, opts.interactive && this.ctx.asker !== undefined);
    if (verdict) return this.answerPermission(id, req, verdict);
    // A person decides: offer only the once options (allow_always would persist into Cursor's allowlist).
    const choices: Choice[] = req.isQuestion
      ? req.options.map((o, i) => ({ key: o.kind === 'reject_once' ? 's' : String(i + 1), label: o.name }))
      : [
          ...(req.options.some((o) => o.kind === 'allow_once') ? [{ key: 'a', label: 'allow once' }] : []),
          ...(req.options.some((o) => o.kind === 'reject_once') ? [{ key: 'r', label: 'reject once' }] : []),
        ];
    const lines = req.isQuestion ? [`Cursor asks: ${req.title}`] : this.describe(req);
    this.ask(id, lines, choices, (key) => {
      if (key === undefined) {
        return this.answerPermission(id, req, {
          decision: { outcome: 'cancelled' },
          reason: 'the run was cancelled',
          decidedBy: 'cancel',
        });
      }
      const option = req.isQuestion
        ? req.options[choices.findIndex((c) => c.key === key)]
        : req.options.find((o) => o.kind === (key === 'a' ? 'allow_once' : 'reject_once'));
      if (!option) return;
      this.answerPermission(id, req, {
        decision: { optionId: option.optionId, kind: option.kind },
        reason: 'chosen at the terminal',
        decidedBy: 'person',
      });
    });
  }

  // What the person needs to decide: the tool, its command or path, and the reason Cursor gives.
  private describe(req: PermissionRequest): string[] {
    const input = this.ctx.tools.get(req.toolCallId)?.input ?? {};
    const detail = ['command', 'path', 'url', 'pattern']
      .filter((k) => typeof input[k] === 'string')
      .map((k) => `  ${k}: ${String(input[k])}`);
    return [
      `Cursor asks permission to ${req.kind}: ${req.title}`,
      ...detail,
      ...(req.agentReason ? [`  reason: ${req.agentReason}`] : []),
    ];
  }

  private answerPermission(id: Id | null, req: PermissionRequest, v: Verdict): void {
    this.ctx.conn.respond(id, permissionResult(v));
    if (req.isQuestion) {
      const answer =
        'optionId' in v.decision
          ? {
              outcome: v.decision.kind === 'reject_once' ? 'skipped' : 'answered',
              optionId: v.decision.optionId,
            }
          : { outcome: 'cancelled' };
      const questions = [
        { id: null, prompt: req.title, options: req.options.map((o) => ({ id: o.optionId, label: o.name })) },
      ];
      this.ctx.emit({
        type: 'question',
        source: 'session/request_permission',
        toolCallId: req.toolCallId || null,
        title: req.title,
        questions,
        answer,
      });
      return;
    }
    this.ctx.emit({
      type: 'permission',
      toolCallId: req.toolCallId,
      title: req.title,
      kind: req.kind,
      options: req.options,
      decision: v.decision,
      reason: v.reason,
      agentReason: req.agentReason,
      decidedBy: v.decidedBy,
    });
    if (isRejection(v) && req.toolCallId) {
      const tool = this.ctx.tools.markVerdict(
        req.toolCallId,
        'optionId' in v.decision ? 'rejected' : 'cancelled',
      );
      if (tool && tool.status !== 'pending' && tool.status !== 'in_progress') this.ctx.emit(tool);
    }
  }

  private question(id: Id | null, params: unknown): void {
    const p = isRecord(params) ? params : {};
    const questions: QuestionEvent['questions'] = (Array.isArray(p.questions) ? p.questions : [])
      .filter(isRecord)
      .map((q) => ({
        id: str(q.id),
        prompt: str(q.prompt) ?? str(q.question) ?? str(q.title) ?? '',
        options: (Array.isArray(q.options) ? q.options : [])
          .filter(isRecord)
          .map((o) => ({ id: String(o.id ?? ''), label: str(o.label) ?? String(o.id ?? '') })),
      }));
    const base = {
      type: 'question' as const,
      source: 'cursor/ask_question' as const,
      toolCallId: str(p.toolCallId),
      title: str(p.title),
      questions,
    };
    const skip = (): void => {
      const answer = { outcome: 'skipped', reason: SKIP_QUESTION_REASON };
      this.ctx.conn.respond(id, { outcome: answer });
      this.ctx.emit({ ...base, answer });
    };
    const first = questions[0];
    if (!this.canAsk() || !first || questions.length !== 1) return skip();
    const choices = [
      ...first.options.map((o, i) => ({ key: String(i + 1), label: o.label })),
      { key: 's', label: 'skip' },
    ];
    this.ask(id, [`Cursor asks: ${first.prompt}`], choices, (key) => {
      if (key === undefined) {
        this.ctx.conn.respond(id, { outcome: { outcome: 'cancelled' } });
        return this.ctx.emit({ ...base, answer: { outcome: 'cancelled' } });
      }
      if (key === 's') return skip();
      const option = first.options[Number(key) - 1];
      const answer = {
        outcome: 'answered',
        answers: [{ questionId: first.id, selectedOptionIds: option ? [option.id] : [] }],
      };
      this.ctx.conn.respond(id, { outcome: answer });
      this.ctx.emit({ ...base, answer });
    });
  }

  private plan(id: Id | null, params: unknown): void {
    const p = isRecord(params) ? params : {};
    const base: Omit<PlanEvent, 'answer'> = {
      type: 'plan',
      toolCallId: str(p.toolCallId),
      name: str(p.name) ?? str(p.title),
      overview: str(p.overview),
      plan: str(p.plan) ?? str(p.markdown) ?? '',
      todos: normalizeTodos(p.todos),
    };
    const answer = (a: PlanAnswer | { outcome: 'cancelled' }): void => {
      this.ctx.conn.respond(id, { outcome: a });
      this.ctx.emit({ ...base, answer: a });
    };
    const decided = decidePlan(this.ctx.opts.policy, this.ctx.opts.plan, this.canAsk());
    if (decided) return answer(decided);
    const lines = [
      `Cursor proposes a plan${base.name ? `: ${base.name}` : ''}`,
      ...base.plan.split('\n').map((l) => '  ' + l),
    ];
    this.ask(
      id,
      lines,
      [
        { key: 'a', label: 'accept' },
        { key: 'r', label: 'reject' },
      ],
      (key) => {
        if (key === undefined) return answer({ outcome: 'cancelled' });
        answer(
          key === 'a'
            ? { outcome: 'accepted' }
            : { outcome: 'rejected', reason: 'The person at the terminal rejected the plan.' },
        );
      },
    );
  }

  private canAsk(): boolean {
    return (
      !this.cancelled &&
      this.ctx.opts.policy === 'ask' &&
      this.ctx.opts.interactive &&
      this.ctx.asker !== undefined
    );
  }

  // Hands a choice to the person; the request stays pending (and cancellable) until answered.
  private ask(
    id: Id | null,
    lines: string[],
    choices: Choice[],
    then: (key: string | undefined) => void,
  ): void {
    const asker = this.ctx.asker;
    if (!asker) return then(undefined);
    const abort = new AbortController();
    let settled = false;
    const finish = (key: string | undefined): void => {
      if (settled) return;
      settled = true;
      this.pending.delete(id);
      then(key);
    };
    this.pending.set(id, {
      abort,
      cancel: () => {
        abort.abort();
        finish(undefined);
      },
    });
    asker.choose(lines, choices, abort.signal).then(finish, () => finish(undefined));
  }
}
