// One try (--retries makes more): a fresh agent joined to the run, its connection and requests, and what this
// try learns of its session and turn. A new try is a new Attempt: nothing is reset by hand, and what an
// earlier try's agent still sends is ignored (its Attempt is no longer the run's).
import type { Connection } from '../acp/connection.js';
import { isRecord } from '../acp/messages.js';
import { linkAgent } from '../agent/link.js';
import { AgentProcess } from '../agent/process.js';
import type { HistoryEvent, ResultEvent } from '../events/types.js';
import { eventsFromUpdate, extension, paramsExtra, type UpdateContext } from '../events/updates.js';
import { fenceTool, rulesTool } from '../fence/run.js';
import { IdleTimer } from '../lifecycle/idle.js';
import type { PromptCaps } from '../prompt/attach.js';
import { AgentRequests } from '../requests.js';
import { RhoError } from '../errors.js';
import { cutEnd, cutMiddle } from '../sanitize/cut.js';
import { emit, warn, type Prepared, type RunContext } from './context.js';
import type { Session } from './handshake.js';

/** A non-JSON line from the agent is quoted in its warning whole up to LINE_HEAD + LINE_TAIL characters; past
 * it, its start and its end with the middle said as cut. */
export const LINE_HEAD = 3072;
export const LINE_TAIL = 1024;

export class Attempt {
  readonly agent: AgentProcess;
  readonly conn: Connection;
  readonly requests: AgentRequests;
  /** The agent's release, on the run's teardown stack; run early before a retry. */
  readonly release: () => Promise<void>;
  private readonly idle: IdleTimer | undefined;
  /** The updates' context of this try: its session, mode, title, usage (the tool store is the run's). */
  readonly update: UpdateContext;
  readonly timings: ResultEvent['timings'] = { initializeMs: null, sessionNewMs: null, promptMs: null };
  /** The initialize answer, once it came. */
  initResult: Record<string, unknown> | undefined;
  /** What the agent takes in a prompt, from its initialize answer. */
  promptCaps: PromptCaps = { image: false, embeddedContext: false };
  /** The session the handshake opened. */
  session: Session | undefined;
  stopReason: string | null = null;
  /** When this try's first prompt was sent (0: none was); a schema follow-up does not move it. */
  firstPromptAt = 0;
  /** How long this try's first prompt took, once it ended. */
  firstPromptMs: number | undefined;
  /** True while what the agent sends belongs to this run's output; false once the turn's answer came. */
  accepting = true;
  /** True while a loaded session's history is replayed: its updates are `history` events, not the answer. */
  replaying = false;
  /** How many history events the load replayed. */
  replayed = 0;

  constructor(
    private readonly ctx: RunContext,
    prepared: Prepared,
    readonly n: number,
  ) {
    const { opts } = ctx;
    ctx.phase = 'spawn';
    const { path, args, env } = prepared.launch;
    const agent = new AgentProcess(path, args, opts.cwd, env);
    this.agent = agent;
    ctx.io.onAgentStarted();
    this.release = ctx.teardown.defer({
      name: 'agent',
      run: () => agent.terminate(ctx.timing.killGraceMs),
      runSync: () => agent.killNowAndRelease(),
    });
    // No session yet: until session/new answers, no update is this run's (events/updates.ts).
    this.update = { tools: ctx.tools, lastTodos: '', title: null, mode: null, sessionId: null };
    this.idle = opts.idleTimeoutMs
      ? new IdleTimer(opts.idleTimeoutMs, () => {
          // The agent owes nothing while a person is still deciding one of its questions (this try's or, until
          // the retry closed it, an earlier one's): the output holds what it sends, and may have paused it; nor
          // while its answer is checked against --output-schema (the check has bounds of its own).
          if (ctx.out.asking || ctx.phase === 'validation') return false;
          ctx.stop.stop('idle');
          return true;
        })
      : undefined;
    if (this.idle) {
      const idle = this.idle;
      ctx.teardown.defer({ name: 'idle timer', run: () => idle.stop() });
    }
    this.conn = this.link(prepared);
    this.requests = new AgentRequests({
      conn: this.conn,
      emit: (e) => emit(ctx, e),
      tools: ctx.tools,
      opts,
      asker: ctx.io.asker,
      screen: ctx.out,
      sessionId: () => this.sessionId,
      identity: () => ctx.identity,
      replaying: () => this.replaying,
      history: (e) => this.history(e),
    });
  }

  // A history event of the replay: counted (the replay is over once the count stops moving) and shown.
  private history(e: HistoryEvent): void {
    this.replayed++;
    this.idle?.touch();
    emit(this.ctx, e);
  }

  /** This try's session once known (null before). */
  get sessionId(): string | null {
    return this.update.sessionId ?? null;
  }

  // Is this the run's try (an earlier one's agent may still be talking)?
  private live(): boolean {
    return this.ctx.attempt === this;
  }

  // The agent spoke (or the run waits for it): the idle silence starts again.
  touch(): void {
    this.idle?.touch();
  }

  // rho-cursor waits on itself (the ledger's snapshot), not on the agent, until the returned resume is called:
  // the agent's silence meanwhile does not count against --idle-timeout.
  pauseIdle(): () => void {
    this.idle?.pause();
    return () => this.idle?.resume();
  }

  // The run is over, or this try is: no more silence counts.
  stopIdle(): void {
    this.idle?.stop();
  }

  // Asks the agent to end its turn: session/cancel, and `cancelled` for every request still waiting on us.
  cancelTurn(phase: string): boolean {
    if (phase !== 'prompt' || !this.sessionId || this.conn.isClosed) return false;
    this.conn.notify('session/cancel', { sessionId: this.sessionId });
    this.requests.cancelAll();
    return true;
  }

  // Joins the agent's stdio to a connection whose messages become the run's events while this try is live.
  private link(prepared: Prepared): Connection {
    const { ctx } = this;
    const { opts, out } = ctx;
    const accepting = (): boolean => this.accepting && this.live();
    return linkAgent(this.agent, {
      label: opts.agent,
      phase: () => ctx.phase,
      wire: prepared.wire,
      onActivity: () => this.idle?.touch(),
      accepting,
      // A bug of ours while answering a request: the agent got -32603, and the run fails (internal).
      onHandlerError: (method, e) => {
        ctx.sideFailure ??= new RhoError(
          'internal',
          `internal error while answering ${method}: ${errorText(e)}`,
        );
      },
      onNotification: (msg) => {
        if (!accepting()) return;
        if (msg.method === 'session/update' && this.replaying && isOwnUpdate(msg.params, this.sessionId)) {
          const params = msg.params as Record<string, unknown>;
          // The params' own other fields (a messageId, _meta) as a live update's: `params.<name>` in extra.
          const extra = paramsExtra(params);
          this.history({ type: 'history', update: params.update ?? null, ...(extra ? { extra } : {}) });
        } else if (msg.method === 'session/update')
          for (const e of eventsFromUpdate(msg.params, this.update))
            emit(
              ctx,
              // Only Cursor's own deny rules (fence or --deny) are known to stop a call it reports completed.
              prepared.privateDir && ctx.identity.cursor
                ? rulesTool(opts.rules, opts.cwd, ctx.tools, fenceTool(opts.fence, ctx.tools, e))
                : e,
            );
        // Anything else is kept raw (a $/cancel_request that withdrew an open request never comes here).
        else emit(ctx, extension(msg.method, msg.params));
      },
      onInvalid: (line, reason) => {
        if (accepting())
          warn(
            ctx,
            'agent-non-json',
            `the agent wrote a line that is not JSON-RPC (${reason}): ${cutEnd(line, 120)}`,
            // Quoted within a bound: each line is kept for the json output (the wire log has it whole).
            cutMiddle(line, LINE_HEAD, LINE_TAIL),
          );
      },
      onText: (e) => {
        if (!this.live()) return;
        if (this.replaying) {
          this.history({
            type: 'history',
            // As it came: a replayed thought stays a thought (found by review: it read as the agent's reply).
            update: {
              sessionUpdate: e.type === 'thought' ? 'agent_thought_chunk' : 'agent_message_chunk',
              content: { type: 'text', text: e.text },
            },
          });
        } else if (this.accepting) emit(ctx, e);
      },
      sessionId: () => this.sessionId,
      flush: (read) => out.flush(read),
      whenWritable: (go: () => void) => out.whenWritable(go),
    });
  }
}

// A session/update for this run's session (a replay from another session is not this one's history).
function isOwnUpdate(params: unknown, sessionId: string | null): boolean {
  return isRecord(params) && params.sessionId === sessionId;
}

// An error's message, whatever was thrown.
function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
