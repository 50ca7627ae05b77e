// Answers every request the agent sends: permissions by policy, Cursor's extensions, -32601 for the rest.
import { undecidedAnswer, type Connection } from './acp/connection.js';
import { methodNotFound, RpcFailure, WITHDRAWN, type RequestHandler } from './acp/handlers.js';
import { idText, isRecord } from './acp/messages.js';
import type { AgentIdentity } from './agent/identity.js';
import {
  permissionEvent,
  questionAnswer,
  questionEvent,
  readPlan,
  readQuestions,
  readTodos,
  type PlanBase,
  type QuestionBase,
} from './events/requests.js';
import type { ToolStore } from './events/tools.js';
import type { Event, HistoryEvent, PlanEvent, ToolEvent } from './events/types.js';
import { extension, foreignSessionOf } from './events/updates.js';
import type { RunOptions } from './options.js';
import type { Asker } from './policy/ask.js';
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
import { judgeByRules } from './policy/judge.js';
import {
  askQuestion,
  permissionAsQuestion,
  permissionQuestion,
  planQuestion,
  RunStopped,
  TURN_ENDED,
} from './policy/prompts.js';
import { OpenQuestions, type QuestionScreen } from './policy/questions.js';
import { NO_RULES, type RuleSet } from './policy/rules.js';
import { resolvePathRules, withRealPaths } from './policy/real-paths.js';
import { subjectOf, type Subject } from './policy/subject.js';

export interface RequestContext {
  conn: Connection;
  emit(e: Event): void;
  tools: ToolStore;
  opts: RunOptions;
  asker: Asker | undefined;
  /** The output, held while a question waits for the person. */
  screen?: QuestionScreen;
  /** This run's session: a permission request for any other is answered cancelled, never allowed. */
  sessionId?: () => string | null;
  /** Which agent this is: Cursor's extensions (cursor/*) are answered only for Cursor. */
  identity?: () => AgentIdentity;
  /** True while a loaded session is replayed: a request then is its history, never decided. */
  replaying?: () => boolean;
  /** Shows a history event (counted with the replay's updates). */
  history?: (e: HistoryEvent) => void;
}

type PlanOutcome = PlanAnswer | { outcome: 'cancelled' };

/** Other sessions warned about at most: every request is still kept, as an extension event. */
const FOREIGN_WARNED = 100;

// The agent's requests, one handler per method on the connection: straight-line code that decides by policy
// (answered at once) or awaits the person; the connection writes what a handler returns.
export class AgentRequests {
  private readonly questions: OpenQuestions;
  private cancelled = false;
  /** The other sessions a permission request was warned about (at most FOREIGN_WARNED). */
  private readonly foreignSeen = new Set<string>();
  /** A request during a replay was warned about (once a run). */
  private replayWarned = false;

  // Registers a handler on the connection for every method answered here; any other is -32601.
  constructor(private readonly ctx: RequestContext) {
    this.questions = new OpenQuestions(ctx.asker, ctx.screen);
    const cursor: Record<string, RequestHandler> = {
      'cursor/ask_question': (p, { signal }) => this.question(p, signal),
      'cursor/create_plan': (p, { signal }) => this.plan(p, signal),
      'cursor/update_todos': (p) => this.todos(p),
      'cursor/task': (p) => this.shown('cursor/task', p),
      'cursor/generate_image': (p) => this.shown('cursor/generate_image', p),
    };
    ctx.conn.handle(
      'session/request_permission',
      this.unlessReplaying('session/request_permission', (p, { signal }) => this.permission(p, signal)),
    );
    for (const [method, fn] of Object.entries(cursor))
      ctx.conn.handle(method, this.unlessReplaying(method, this.cursorOnly(method, fn)));
    // fs/*, terminal/*, elicitation/create were not advertised: an error at once, never a hang.
    ctx.conn.fallback((msg) => this.unknown(msg.method, msg.params));
  }

  // A handler for this run's requests: while a loaded session is replayed, what the agent asks is its history.
  private unlessReplaying(method: string, fn: RequestHandler): RequestHandler {
    return (params, extra) => (this.ctx.replaying?.() ? this.replayed(method, params) : fn(params, extra));
  }

  // A request the agent sends while it replays a loaded session belongs to the old conversation, not to this
  // run, which has sent no prompt yet (found by review: a permission was allowed by the policy, counted for
  // --strict and in the result; todos and a plan were this run's). It is answered as one after the turn is
  // (`cancelled`, -32800 for a method whose answer cannot say so), never decided, and shown as a history
  // event, with a warning once. Another session's permission request stays foreign.
  private replayed(method: string, params: unknown): unknown {
    if (method === 'session/request_permission') {
      const foreign = this.foreignRequest(params);
      if (foreign) return foreign;
    }
    const answer = undecidedAnswer(method, 'while a session was replayed');
    if (!this.replayWarned) {
      this.replayWarned = true;
      this.ctx.emit({
        type: 'warning',
        code: 'replayed-request',
        message: `the agent sent ${method} while session ${this.ctx.sessionId?.() ?? 'none'} was replayed: answered ${'result' in answer ? 'cancelled' : `${answer.code} (request cancelled)`}, kept as a history event, not this run's`,
      });
    }
    const e: HistoryEvent = { type: 'history', update: null, request: { method, params: params ?? null } };
    if (this.ctx.history) this.ctx.history(e);
    else this.ctx.emit(e);
    if ('result' in answer) return answer.result;
    throw new RpcFailure(answer.code, answer.message);
  }

  // Is a person still deciding one of the agent's requests?
  asking(): boolean {
    return this.questions.asking;
  }

  // The turn is over: a question still on the screen closes with a line saying so, unanswered; `stopped`
  // says how the run was stopped, when it was (Ctrl-\: `ended by SIGQUIT`).
  endQuestions(stopped?: string): void {
    this.ctx.conn.cancelIncoming(stopped === undefined ? TURN_ENDED : new RunStopped(stopped));
  }

  // Answers every request still waiting on a person with `cancelled`, as ACP requires on session/cancel; a
  // later one is answered `cancelled` at once.
  cancelAll(): void {
    this.cancelled = true;
    this.ctx.conn.cancelIncoming();
  }

  // Another agent's cursor/* request is not Cursor's extension: it is answered as any unknown method.
  private cursorOnly(method: string, fn: RequestHandler): RequestHandler {
    return (params, extra) => (this.cursor() ? fn(params, extra) : this.unknown(method, params));
  }

  // A method not handled here is kept raw as an extension event, and answered -32601.
  private unknown(method: string, params: unknown): never {
    this.ctx.emit(extension(method, params));
    throw methodNotFound(method);
  }

  // session/request_permission: the rules and the policy decide at once, or a person is asked. The request
  // is judged with what is known of its tool: the kind it was announced with and what it names; one for a
  // tool that already finished is rejected (events/finished-ids.ts), whatever --output-format.
  private permission(params: unknown, signal: AbortSignal): unknown {
    // Before anything of this run's is looked at: another session's request touches none of its tools.
    const foreign = this.foreignRequest(params);
    if (foreign) return foreign;
    const tc = isRecord(params) && isRecord(params.toolCall) ? params.toolCall : undefined;
    // One id for one tool however it is written (7 and "7"): the store keys tools by idText too.
    const id = idText(tc?.toolCallId);
    const { tools } = this.ctx;
    const finished = tools.finishedIds.has(id);
    const held = tools.get(id);
    // A tool first seen in its own request has no announced kind: the request's is judged as it is.
    const fresh = !held && !finished && this.announceTool(tc);
    const announced = held ? tools.announcedKind(id) : undefined;
    // What the request is about (its command, paths, URL), read once for every judgement below.
    const subject = subjectOf(tc, fresh ? undefined : held);
    const req = readPermissionRequest(params, {
      announced: announced ? [announced] : [],
      title: held?.title,
      subject,
      finished,
    });
    const verdict = this.verdict(req, subject);
    if (verdict) return this.answerPermission(req, verdict);
    return this.askPermission(req, subject, held, signal, tc);
  }

  // cursor/update_todos: accepted at once, and shown.
  private todos(params: unknown): unknown {
    const todos = isRecord(params) && Array.isArray(params.todos) ? params.todos : [];
    this.ctx.emit(readTodos(params));
    return { outcome: { outcome: 'accepted', todos } };
  }

  // cursor/task, cursor/generate_image: a result at once; their content is shown as it came.
  private shown(method: string, params: unknown): unknown {
    this.ctx.emit(extension(method, params));
    return {};
  }

  // A permission request for a tool no tool_call announced still yields the tool, so its outcome shows, with
  // the kind the request is judged by. Returns whether it did.
  private announceTool(tc: Record<string, unknown> | undefined): boolean {
    if (!tc || (typeof tc.toolCallId !== 'string' && typeof tc.toolCallId !== 'number')) return false;
    // Its content is the agent's reason for asking, not the tool's output.
    const { content: _reason, ...call } = tc;
    const tool = this.ctx.tools.take({ ...call, kind: judgedKind(call.kind).kind });
    if (tool) this.ctx.emit(tool);
    return tool !== undefined;
  }

  // A permission request for a session that is not this run's (another id, none, or any before session/new
  // answered) is answered cancelled, never allowed, and is none of this run's business: no tool announced or
  // marked, nothing counted for --max-tool-calls, --strict or a denied end (found by review: another
  // session's requests cancelled the turn at --max-tool-calls 1, and made a `cancelled` end exit 7). It is
  // kept as an extension event with a warning once per session, as another session's updates are.
  // Undefined: it is this run's.
  private foreignRequest(params: unknown): unknown {
    const foreign = foreignSessionOf(this.ctx.sessionId?.(), isRecord(params) ? params.sessionId : undefined);
    if (!foreign) return undefined;
    if (this.foreignSeen.size < FOREIGN_WARNED && !this.foreignSeen.has(foreign.named)) {
      this.foreignSeen.add(foreign.named);
      this.ctx.emit({
        type: 'warning',
        code: 'foreign-session-update',
        message: `the agent asked permission for another session (${foreign.named}, ${foreign.was}): answered cancelled, kept as an extension event`,
      });
    }
    this.ctx.emit(extension('session/request_permission', params));
    return { outcome: { outcome: 'cancelled' } };
  }

  // The run's rules with their path globs resolved for the workspace, once (the file system is read here).
  private resolvedRules: { cwd: string; rules: RuleSet } | undefined;
  private pathRules(cwd: string): RuleSet {
    if (this.resolvedRules === undefined || this.resolvedRules.cwd !== cwd)
      this.resolvedRules = { cwd, rules: resolvePathRules(this.ctx.opts.rules ?? NO_RULES, cwd) };
    return this.resolvedRules.rules;
  }

  // Is the agent Cursor (the default when the run does not say)?
  private cursor(): boolean {
    return this.ctx.identity?.().cursor ?? true;
  }

  // How the agent is named in a question: Cursor, or its agentInfo.title.
  private who(): string {
    return this.ctx.identity?.().title ?? 'Cursor';
  }

  // The verdict of the rules and the policy; undefined: the person decides.
  private verdict(req: PermissionRequest, subject: Subject): Verdict | undefined {
    const { opts } = this.ctx;
    const rules = this.pathRules(opts.cwd);
    // Where a path through a symlink lands is judged too (only path rules read paths).
    const paths = [...rules.allow, ...rules.deny].some((r) => r.type === 'Read' || r.type === 'Write')
      ? withRealPaths(subject.paths, opts.cwd)
      : subject.paths;
    // A request a command in rawInput made execute is judged as the kind it was as well.
    const kinds = [req, ...(req.alsoKind !== undefined ? [{ ...req, kind: req.alsoKind }] : [])].map(
      requestKind,
    );
    const ruled = judgeByRules(kinds, { ...subject, paths }, rules, opts.cwd);
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
    return decided && req.kindNote ? { ...decided, reason: `${decided.reason}; ${req.kindNote}` } : decided;
  }

  // The person decides: what the question shows and offers is built in policy/prompts.ts; it shows what
  // the answer is judged on (the subject), read from the request and from what is known of its tool. A
  // withdrawn request says so as its question closes, and is never answered.
  private async askPermission(
    req: PermissionRequest,
    subject: Subject,
    known: Readonly<ToolEvent> | undefined,
    signal: AbortSignal,
    toolCall: unknown,
  ): Promise<unknown> {
    const inputs = [isRecord(toolCall) ? toolCall.rawInput : undefined, known?.input];
    const q = req.isQuestion
      ? permissionAsQuestion(req, this.who())
      : permissionQuestion(req, inputs, this.who(), subject);
    const choice = await this.questions.ask(q, signal, (why) => {
      if (why !== WITHDRAWN) return;
      this.ctx.emit(
        req.isQuestion
          ? questionEvent(req, { outcome: 'withdrawn' })
          : permissionEvent(req, {
              decision: { outcome: 'cancelled' },
              reason: 'withdrawn by the agent ($/cancel_request): not answered',
              decidedBy: 'withdrawn',
            }),
      );
    });
    unanswered(signal);
    const option = choice && req.options.find((o) => o.optionId === choice.value);
    if (!option) {
      const eof = choice === undefined && !this.cancelled;
      return this.answerPermission(req, {
        decision: { outcome: 'cancelled' },
        reason: eof ? 'end of input at the terminal' : 'the run was cancelled',
        decidedBy: 'cancel',
      });
    }
    return this.answerPermission(req, {
      decision: { optionId: option.optionId, kind: option.kind },
      reason: 'chosen at the terminal',
      decidedBy: 'person',
    });
  }

  // Shows the verdict (a question's answer, or the permission and the tool it stops) and returns the answer.
  private answerPermission(req: PermissionRequest, v: Verdict): unknown {
    if (req.isQuestion) {
      this.ctx.emit(questionEvent(req, questionAnswer(v)));
      return permissionResult(v);
    }
    this.ctx.emit(permissionEvent(req, v));
    // A finished tool's verdict is not kept: it is settled, and a flood of such requests would fill memory.
    if (isRejection(v) && req.toolCallId && !req.finished) {
      const tool = this.ctx.tools.markVerdict(
        req.toolCallId,
        'optionId' in v.decision ? 'rejected' : 'cancelled',
      );
      if (tool && tool.status !== 'pending' && tool.status !== 'in_progress') this.ctx.emit(tool);
    }
    return permissionResult(v);
  }

  // cursor/ask_question: skipped without a person; else its questions in turn.
  private question(params: unknown, signal: AbortSignal): unknown {
    const base = readQuestions(params);
    if (!this.canAsk() || base.questions.length === 0) return this.skipQuestions(base);
    return this.askQuestions(base, signal);
  }

  // Several questions are asked in turn; skipping one leaves it out, skipping all skips the request. A
  // withdrawn request says so as its question closes, and is never answered.
  private async askQuestions(base: QuestionBase, signal: AbortSignal): Promise<unknown> {
    const { questions } = base;
    const answers: Array<{ questionId: string | null; selectedOptionIds: string[] }> = [];
    for (const [i, q] of questions.entries()) {
      const choice = await this.questions.ask(
        askQuestion(base.title, q, i, questions.length),
        signal,
        (why) => {
          if (why === WITHDRAWN) this.ctx.emit({ ...base, answer: { outcome: 'withdrawn' } });
        },
      );
      unanswered(signal);
      if (choice === undefined) {
        this.ctx.emit({ ...base, answer: { outcome: 'cancelled' } });
        return { outcome: { outcome: 'cancelled' } };
      }
      if (choice.value !== '') answers.push({ questionId: q.id, selectedOptionIds: [choice.value] });
    }
    if (answers.length === 0) return this.skipQuestions(base);
    const answer = { outcome: 'answered', answers };
    this.ctx.emit({ ...base, answer });
    return { outcome: answer };
  }

  // The questions are skipped, with the reason the agent is given.
  private skipQuestions(base: QuestionBase): unknown {
    const answer = { outcome: 'skipped', reason: SKIP_QUESTION_REASON };
    this.ctx.emit({ ...base, answer });
    return { outcome: answer };
  }

  // cursor/create_plan: decided by --plan, the fence and the policy, or asked; the plan is shown either way.
  // After session/cancel it is answered cancelled, as a permission request is (found by review: it was
  // accepted under --permissions allow, the agent told to go ahead).
  private plan(params: unknown, signal: AbortSignal): unknown {
    const base = readPlan(params);
    if (this.cancelled) return this.answerPlan(base, { outcome: 'cancelled' }, 'cancel');
    const { policy, plan, fence } = this.ctx.opts;
    const decided = decidePlan(policy, plan, this.canAsk(), fence);
    if (decided) return this.answerPlan(base, decided, 'policy');
    return this.askPlan(base, signal);
  }

  // The person accepts or rejects the plan; a withdrawn request says so, and is never answered.
  private async askPlan(base: PlanBase, signal: AbortSignal): Promise<unknown> {
    const choice = await this.questions.ask(planQuestion(base), signal, (why) => {
      if (why === WITHDRAWN)
        this.ctx.emit({ ...base, answer: { outcome: 'withdrawn' }, decidedBy: 'withdrawn' });
    });
    unanswered(signal);
    if (choice === undefined) return this.answerPlan(base, { outcome: 'cancelled' }, 'cancel');
    const answer: PlanOutcome =
      choice.value === 'accept'
        ? { outcome: 'accepted' }
        : { outcome: 'rejected', reason: 'The person at the terminal rejected the plan.' };
    return this.answerPlan(base, answer, 'person');
  }

  // Shows the plan with its answer, and returns the answer.
  private answerPlan(base: PlanBase, a: PlanOutcome, decidedBy: PlanEvent['decidedBy']): unknown {
    this.ctx.emit({ ...base, answer: a, decidedBy });
    return { outcome: a };
  }

  // Can a person be asked now (under `ask`, at a terminal, before the run was cancelled)?
  private canAsk(): boolean {
    return (
      !this.cancelled &&
      this.ctx.opts.policy === 'ask' &&
      this.ctx.opts.interactive &&
      this.ctx.asker !== undefined
    );
  }
}

// A request withdrawn by the agent, or still open when the turn ended or the run was stopped, is never
// answered: its handler ends by rethrowing the abort reason, which the connection answers with nothing.
function unanswered(signal: AbortSignal): void {
  const r: unknown = signal.reason;
  if (r === WITHDRAWN || r === TURN_ENDED || r instanceof RunStopped) throw signal.reason;
}
