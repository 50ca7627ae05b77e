// One run, as a table of contents: config -> spawn -> handshake -> plan mode -> prompt -> teardown.
import { RpcRequestError, type Connection } from './acp/connection.js';
import { linkAgent } from './agent/link.js';
import { AgentProcess } from './agent/process.js';
import { resolveAgent } from './agent/resolve.js';
import { loadConfig, type LoadedConfig } from './config/load.js';
import { configWarnings } from './config/warnings.js';
import { exitForStopReason, RhoError, toRhoError } from './errors.js';
import { RunSummary } from './events/collect.js';
import { ToolStore } from './events/tools.js';
import type { Event, ResultEvent } from './events/types.js';
import { eventsFromUpdate, type UpdateContext } from './events/updates.js';
import type { RunOptions } from './options.js';
import type { Asker } from './policy/ask.js';
import { makeRenderer, startSpinner, type Spinner } from './render/index.js';
import type { Renderer, Writer } from './render/writer.js';
import { AgentRequests } from './requests.js';
import { readSession, replyReadsAsError } from './session.js';
import { Cancel } from './cancel.js';
import { fmtMs } from './stop.js';
import { WireLog } from './wirelog.js';

export interface RunIO {
  env: NodeJS.ProcessEnv;
  home: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  now(): number;
  /** Subscribes to SIGINT and SIGTERM; returns the unsubscribe. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  asker: Asker | undefined;
  version: string;
}

const CANCEL_GRACE_MS = 2000;
const AUTH_HINT = 'set CURSOR_API_KEY or run `cursor-agent login`';

// Is this JSON-RPC error Cursor's authRequired?
function isAuthError(err: unknown): boolean {
  return err instanceof RpcRequestError && (err.rpc.code === -32000 || /auth/i.test(err.rpc.message));
}

export async function run(opts: RunOptions, io: RunIO): Promise<number> {
  const t0 = io.now();
  const since = (t: number): number => Math.round(io.now() - t);
  const out: Writer = { write: (s) => io.stdout.write(s), isTTY: io.stdout.isTTY === true };
  const err: Writer = { write: (s) => io.stderr.write(s), isTTY: io.stderr.isTTY === true };

  const timings: ResultEvent['timings'] = { initializeMs: null, sessionNewMs: null, promptMs: null };
  const tools = new ToolStore();
  const ctx: UpdateContext = { tools, lastTodos: '', title: null, mode: null };
  const summary = opts.format === 'json' ? new RunSummary() : undefined;
  let renderer: Renderer | undefined;
  let spinner: Spinner | undefined;
  let outputClosed = false;
  const early: Event[] = [];
  let sessionId: string | null = null;
  let model: string | null = null;
  let stopReason: string | null = null;
  let phase = 'start';
  let promptSentAt = 0;

  let replyHead = '';
  const emit = (e: Event): void => {
    if (e.type === 'message' && replyHead.length < 200) replyHead += e.text;
    if (spinner && e.type !== 'extension') {
      spinner.stop();
      spinner = undefined;
    }
    summary?.add(e);
    if (renderer) renderer.emit(e);
    else early.push(e);
  };
  // Warnings go to stderr in every format, and as events.
  const warn = (code: string, message: string, line?: string): void => {
    emit({ type: 'warning', code, message, ...(line === undefined ? {} : { line }) });
    if (opts.format !== 'text') io.stderr.write(`rho-cursor: warning: ${message}\n`);
  };

  let agent: AgentProcess | undefined;
  let conn: Connection | undefined;
  let requests: AgentRequests | undefined;
  let wire: WireLog | undefined;
  let error: RhoError | undefined;
  const killOnExit = (): void => agent?.killNow();
  process.once('exit', killOnExit);

  // Cancellation: a first stop asks the agent to end the turn; the stopped promise ends the wait.
  const cancel = new Cancel({
    graceMs: CANCEL_GRACE_MS,
    timeoutMs: opts.timeoutMs,
    killNow: () => agent?.killNow(),
    cancelTurn: () => {
      spinner?.stop();
      spinner = undefined;
      if (phase !== 'prompt' || !conn || !sessionId || conn.isClosed) return false;
      conn.notify('session/cancel', { sessionId });
      requests?.cancelAll();
      return true;
    },
  });
  const offSignal = io.onSignal((s) => cancel.stop(s));
  const runTimer = opts.timeoutMs ? setTimeout(() => cancel.stop('timeout'), opts.timeoutMs) : undefined;
  io.stdout.on('error', () => {
    outputClosed = true;
    cancel.stop('epipe');
  });

  const step = <T>(method: string, params: unknown): Promise<T> => {
    phase = method;
    const timeout = {
      ms: opts.stepTimeoutMs,
      error: () =>
        new RhoError(
          'step_timeout',
          `${method} got no answer within ${fmtMs(opts.stepTimeoutMs)} (--step-timeout)`,
        ),
    };
    return cancel.race(conn!.request<T>(method, params, timeout));
  };

  let config: LoadedConfig | undefined;
  try {
    // 1. Config, read before anything is spawned.
    config = await loadConfig(io.env, io.home, opts.cwd);
    const warnings = configWarnings({
      config: config.effective,
      // Ask with nobody at the terminal rejects, so the warnings judge it as reject.
      policy: opts.policy === 'ask' && !opts.interactive ? 'reject' : opts.policy,
      allow: opts.allow,
      plan: opts.plan,
    });
    if (opts.policy === 'ask' && !opts.interactive) {
      warnings.push({
        code: 'ask-without-terminal',
        message: 'no terminal to ask at: permission requests are rejected',
      });
    }
    const agentPath = resolveAgent(opts.agent, io.env, opts.cwd);
    if (opts.wireLog) wire = new WireLog(opts.wireLog, io.now, t0, io.env.CURSOR_API_KEY);

    // 2. Spawn as early as possible; the renderer loads while the agent starts.
    const args = ['--trust', ...(opts.model ? ['--model', opts.model] : []), 'acp'];
    agent = new AgentProcess(agentPath, args, opts.cwd, io.env);
    conn = linkAgent(agent, {
      label: opts.agent,
      phase: () => phase,
      wire,
      onRequest: (msg) => requests!.handle(msg),
      onNotification: (msg) => {
        if (msg.method === 'session/update') for (const e of eventsFromUpdate(msg.params, ctx)) emit(e);
        else emit({ type: 'extension', method: msg.method, params: msg.params });
      },
      onInvalid: (line, reason) =>
        warn(
          'agent-non-json',
          `the agent wrote a line that is not JSON-RPC (${reason}): ${line.slice(0, 120)}`,
          line,
        ),
      onText: emit,
      flush: () => !renderer || renderer.flush() || outputClosed,
      drainTarget: () => (io.stdout.writableNeedDrain ? io.stdout : io.stderr),
    });
    requests = new AgentRequests({ conn, emit, tools, opts, asker: io.asker });

    // 3. Handshake: initialize, then session/new; never authenticate.
    let t = io.now();
    const init = step<Record<string, unknown>>('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'rho-cursor', version: io.version },
    });
    // It is awaited below; until then a fast failure must not count as an unhandled rejection.
    init.catch(() => {});
    renderer = await makeRenderer(opts.format, out, err, io.env);
    for (const e of early.splice(0)) renderer.emit(e);
    for (const w of warnings) warn(w.code, w.message);
    renderer.flush();
    // A terminal of zero columns (a pty nobody sized) makes ora redraw without end: no spinner there.
    if (opts.format === 'text' && err.isTTY && (io.stderr.columns ?? 0) > 0 && !cancel.cause)
      spinner = await startSpinner(io.stderr, 'starting cursor-agent');
    const initResult = await init;
    timings.initializeMs = since(t);
    spinner?.text('creating a session');
    t = io.now();
    let session: unknown;
    try {
      session = await step('session/new', { cwd: opts.cwd, mcpServers: [] });
    } catch (e) {
      if (isAuthError(e))
        throw new RhoError(
          'auth_required',
          `cursor-agent is not authenticated: ${(e as RpcRequestError).rpc.message}`,
          { hint: AUTH_HINT },
        );
      throw e;
    }
    timings.sessionNewMs = since(t);
    const facts = readSession(initResult, session);
    sessionId = facts.sessionId;
    model = facts.model;
    ctx.mode = facts.mode;
    const available = facts.modes;
    emit({
      type: 'session',
      sessionId,
      model,
      mode: ctx.mode,
      modes: available,
      configDir: config.configDir,
      configDirSource: config.configDirSource,
      approvalMode: config.effective.approvalMode,
      permissions: opts.policy,
      allow: opts.allow,
      cwd: opts.cwd,
      agent: facts.agent,
    });
    renderer.flush();

    // 4. Plan mode, confirmed by the agent, before the prompt.
    if (opts.plan) {
      if (!available.includes('plan')) {
        throw new RhoError(
          'plan_refused',
          `the agent offers no plan mode (modes: ${available.join(', ') || 'none'})`,
        );
      }
      try {
        await step('session/set_mode', { sessionId, modeId: 'plan' });
      } catch (e) {
        if (e instanceof RpcRequestError)
          throw new RhoError('plan_refused', `the agent refused plan mode: ${e.rpc.message}`);
        throw e;
      }
      if (ctx.mode !== 'plan') {
        ctx.mode = 'plan';
        emit({ type: 'mode', mode: 'plan' });
      }
      renderer.flush();
    }

    // 5. The prompt; updates stream as they arrive, requests are answered by policy.
    phase = 'prompt';
    promptSentAt = io.now();
    const result = await cancel.race(
      conn.request<Record<string, unknown>>('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: opts.prompt }],
      }),
    );
    timings.promptMs = since(promptSentAt);
    stopReason = typeof result.stopReason === 'string' ? result.stopReason : null;
    if (stopReason === null) throw new RhoError('protocol', 'session/prompt answered without a stopReason');
    // Cursor reports some API failures as reply text and still ends the turn normally: say so.
    const failure = replyReadsAsError(replyHead);
    if (failure && stopReason === 'end_turn') {
      warn('reply-looks-like-error', `the turn ended normally but the reply reads as an error: ${failure}`);
    }
  } catch (e) {
    error = toRhoError(e);
  } finally {
    offSignal();
    if (runTimer) clearTimeout(runTimer);
    spinner?.stop();
  }

  // 6. Teardown: the agent never exits on its own after a turn.
  phase = 'teardown';
  if (timings.promptMs === null && promptSentAt) timings.promptMs = since(promptSentAt);
  conn?.close(new RhoError('cancelled', 'the run is over'));
  const teardown = agent?.terminate();

  // A cancel decides the exit code, even if the agent failed while it wound down.
  error = cancel.error() ?? error;
  if (stopReason === 'cancelled' || cancel.cause) {
    for (const t of tools.all()) {
      if (t.status === 'pending' || t.status === 'in_progress') {
        t.status = 'cancelled';
        emit(t);
      }
    }
  }
  const exitCode = error ? error.exitCode : exitForStopReason(stopReason ?? '');
  const resultEvent: ResultEvent = {
    type: 'result',
    stopReason,
    exitCode,
    sessionId,
    model,
    mode: ctx.mode,
    title: ctx.title,
    durationMs: since(t0),
    timings,
    usage: null,
    ...(error
      ? {
          error: {
            code: error.code,
            message: error.hint ? `${error.message} (${error.hint})` : error.message,
          },
        }
      : {}),
  };
  if (!renderer) {
    renderer = await makeRenderer(opts.format, out, err, io.env);
    for (const e of early.splice(0)) renderer.emit(e);
  }
  if (!outputClosed) {
    renderer.emit(resultEvent);
    renderer.finish((summary ?? new RunSummary()).output(resultEvent));
  }
  if (error && opts.format !== 'text' && !outputClosed) {
    io.stderr.write(`rho-cursor: ${resultEvent.error?.message ?? error.message}\n`);
  }
  await teardown;
  process.removeListener('exit', killOnExit);
  if (wire) {
    wire.summary({
      initialize_ms: timings.initializeMs,
      session_new_ms: timings.sessionNewMs,
      prompt0_ms: promptSentAt ? Math.round(promptSentAt - t0) : null,
      prompt0_end_ms:
        timings.promptMs !== null && promptSentAt ? Math.round(promptSentAt - t0 + timings.promptMs) : null,
      stop_reason: stopReason,
      exit_code: exitCode,
    });
    await wire.close();
  }
  return exitCode;
}
