// One run, as a table of contents: config -> spawn -> handshake -> plan mode -> prompt -> result -> teardown.
// Each step takes the run's state record; every resource is released by one teardown stack that the normal
// end, every signal and the exit hook drain; the output closes itself at `result`.
import {
  authError,
  checkInitialize,
  initializeError,
  initializeParams,
  isAuthError,
  readStopReason,
  stepTimeoutError,
} from './acp/answers.js';
import { rpcErrorText, RpcRequestError, type Connection } from './acp/connection.js';
import { cursorAtSpawn, identify, type AgentIdentity } from './agent/identity.js';
import { linkAgent } from './agent/link.js';
import { AgentProcess } from './agent/process.js';
import { resolveAgent } from './agent/resolve.js';
import { agentWarnings } from './agent/warnings.js';
import { Cancel } from './cancel.js';
import { loadConfig, type LoadedConfig } from './config/load.js';
import { configWarnings, type Warning } from './config/warnings.js';
import { exitForStopReason, RhoError, stopReasonError, toRhoError, type ExitCode } from './errors.js';
import { RunFacts } from './events/facts.js';
import { ToolStore } from './events/tools.js';
import type { ResultEvent } from './events/types.js';
import { eventsFromUpdate, extension, type UpdateContext } from './events/updates.js';
import { configUnderRules } from './fence/rules.js';
import { rulesWarnings } from './policy/judge.js';
import { fenceEnv, fenceTool, rulesTool } from './fence/run.js';
import { fenceSummary } from './fence/summary.js';
import { IdleTimer } from './lifecycle/idle.js';
import { osLimitError } from './os-limits.js';
import { Teardown } from './lifecycle/teardown.js';
import { retryWaitMs, TIMING } from './lifecycle/timing.js';
import type { RunOptions } from './options.js';
import type { Asker } from './policy/ask.js';
import { cursorRules, needsCursorRules, rulesJson } from './policy/rules.js';
import { Output } from './render/output.js';
import { AgentRequests } from './requests.js';
import { readSession, replyReadsAsError, sessionCaps, workspaceSessions } from './session.js';
import { modelSetting, modeSetting, readChoices, type Setting } from './session-choices.js';
import { isRecord } from './acp/messages.js';
import type { StopSignal } from './stop.js';
import { cutEnd, useSecret } from './sanitize/cut.js';
import { WireLog } from './wirelog.js';
import { extractJson } from './structured/extract.js';
import { loadOutputSchema, retryPrompt, schemaInstruction, type OutputSchema } from './structured/schema.js';
import {
  promptBlocks,
  promptCaps,
  refuseUntaken,
  type ContentBlock,
  type PromptCaps,
} from './prompt/attach.js';
import { deliverReports } from './ci/deliver.js';
import { openWorktree, RunLedger, type WorktreeInfo } from './changes/run.js';
import type { Worktree } from './changes/worktree.js';

export interface RunIO {
  env: NodeJS.ProcessEnv;
  home: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  now(): number;
  /** Subscribes to the signals a run handles, for as long as the process lives; returns the unsubscribe. */
  onSignal(handler: (signal: StopSignal) => void): () => void;
  /** Runs fn synchronously if the process exits before the run released everything. */
  onExit(fn: () => void): () => void;
  asker: Asker | undefined;
  version: string;
  /** Called after each agent is spawned: start-up is over, what follows is the turn. */
  onAgentStarted(): void;
  /** stdout is a regular file (`> answer.md`): under GitHub Actions the runner never reads it. */
  stdoutIsFile?: boolean;
}

export type Phase =
  | 'config'
  | 'spawn'
  | 'initialize'
  | 'session/new'
  | 'session/list'
  | 'session/load'
  | 'session/set_mode'
  | 'session/set_model'
  | 'session/set_config_option'
  | 'prompt'
  | 'teardown';

/** Everything one run knows, passed from step to step. */
interface RunState {
  /** The run's options; with --worktree, its cwd becomes the worktree's once it is made. */
  opts: RunOptions;
  readonly io: RunIO;
  readonly t0: number;
  readonly out: Output;
  readonly teardown: Teardown;
  readonly cancel: Cancel;
  readonly tools: ToolStore;
  readonly ctx: UpdateContext;
  readonly timings: ResultEvent['timings'];
  /** Small facts about the run for what is reported after the turn (summary, -o, --strict). */
  readonly facts: RunFacts;
  schema?: OutputSchema;
  /** What the agent takes in a prompt, from its initialize answer. */
  promptCaps: PromptCaps;
  /** The value validated against --output-schema; undefined until one matched (a valid value may be null). */
  structured: unknown;
  phase: Phase;
  /** True while what the agent sends belongs to this run's output; false once the turn's answer came. */
  accepting: boolean;
  /** True while a loaded session's history is replayed: its updates are `history` events, not the answer. */
  replaying: boolean;
  /** How many history events the load replayed. */
  replayed: number;
  /** The session was loaded, not created. */
  resumed: boolean;
  config?: LoadedConfig;
  warnings: Warning[];
  /** The warnings of the user's Cursor config: shown only once the agent is known to be Cursor. */
  cursorWarnings: Warning[];
  /** Is the agent Cursor? The guess from its name at spawn, then what initialize says. */
  identity: AgentIdentity;
  /** The agent got Cursor's private config dir for the fence (Cursor by its name at spawn). */
  privateDir: boolean;
  /** --model went on the command line (`--model M`, Cursor by its name at spawn). */
  modelFlag: boolean;
  /** The initialize answer of the current try. */
  initResult?: Record<string, unknown>;
  /** The models and modes session/new offered. */
  choices?: ReturnType<typeof readChoices>;
  agent?: AgentProcess;
  conn?: Connection;
  requests?: AgentRequests;
  wire?: WireLog;
  idle?: IdleTimer;
  sessionId: string | null;
  model: string | null;
  modes: string[];
  stopReason: string | null;
  promptSentAt: number;
  replyHead: string;
  exitCode?: ExitCode;
  /** The tool store's call count when the last event was taken (a change means a new call). */
  toolCalls: number;
  /** The try under way (--retries): 1, then one more for each fresh agent. */
  attempt: number;
  /** How the agent is started: resolved once, for every try. */
  launch?: { path: string; args: string[]; env: NodeJS.ProcessEnv };
  /** Ends the current agent now (its teardown step, run early before a retry). */
  releaseAgent?: () => Promise<void>;
  /** A failure that does not stop the turn but fails the run (the wire log could not be written). */
  sideFailure?: RhoError;
  /** What the agent changed, measured: snapshotted before the prompt, compared after the turn. */
  ledger?: RunLedger;
  /** --worktree: where the agent works. */
  worktree?: Worktree;
  changes?: ResultEvent['changes'];
  patch?: string | null;
}

const CANCEL_GRACE_MS = TIMING.cancelGraceMs;
/** A loaded session's replay is over once the agent is quiet this long (at most REPLAY_MAX_MS). */
const REPLAY_QUIET_MS = TIMING.replayQuietMs;
const REPLAY_MAX_MS = TIMING.replayMaxMs;
const KILL_GRACE_MS = TIMING.killGraceMs;

export async function run(opts: RunOptions, io: RunIO): Promise<number> {
  // Every cut of text that may carry the key masks it first.
  useSecret(io.env.CURSOR_API_KEY);
  const s = newState(opts, io);
  const offSignal = io.onSignal((signal) => onSignal(s, signal));
  const offExit = io.onExit(() => s.teardown.drainSync());
  const runTimer = opts.timeoutMs ? setTimeout(() => s.cancel.stop('timeout'), opts.timeoutMs) : undefined;
  let error: RhoError | undefined;
  try {
    await readConfig(s);
    await openLedger(s);
    await prepareAgent(s);
    await firstTurn(s);
    if (s.schema && s.stopReason === 'end_turn') await structuredAnswer(s, s.schema);
  } catch (e) {
    // The machine out of files, processes or memory anywhere in the run is named, never `internal`.
    error = osLimitError(e, `the run's ${s.phase} step`) ?? toRhoError(e);
  } finally {
    if (runTimer) clearTimeout(runTimer);
    s.idle?.stop();
  }
  const exitCode = await report(s, error);
  s.exitCode = exitCode;
  await s.teardown.drain((name, e) => s.out.line(`rho-cursor: could not release the ${name}: ${String(e)}`));
  s.out.endStderr();
  offExit();
  offSignal();
  // A write that failed after the result was sent still fails the run.
  return s.out.failure?.kind === 'write_failed' && exitCode === 0 ? 1 : exitCode;
}

function newState(opts: RunOptions, io: RunIO): RunState {
  // Only the json output prints finished tools; text and stream-json let them go (memory flat in a turn).
  const tools = new ToolStore(opts.format === 'json');
  const keepAnswer = Boolean(opts.outputLastMessage || opts.summaryFile || opts.outputSchema);
  const s: RunState = {
    opts,
    io,
    t0: io.now(),
    teardown: new Teardown(),
    out: new Output({
      format: opts.format,
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env,
      style: opts,
      onFailure: (f) => s.cancel.stop(f.kind),
      onEvent: (e) => onEvent(s, e),
      answerToStderr: opts.outputSchema !== undefined,
      github: opts.github,
      stdoutIsFile: io.stdoutIsFile,
      asking: () => s.requests?.asking() ?? false,
      silenced: opts.silenced,
      discardInput: opts.interactive,
    }),
    cancel: new Cancel({
      graceMs: CANCEL_GRACE_MS,
      timeoutMs: opts.timeoutMs,
      facts: () => ({
        idleTimeoutMs: opts.idleTimeoutMs,
        maxToolCalls: opts.maxToolCalls,
        writeFailure: s.out.failure?.kind === 'write_failed' ? s.out.failure.message : undefined,
      }),
      killNow: () => s.agent?.killNow(),
      cancelTurn: () => cancelTurn(s),
    }),
    tools,
    ctx: { tools, lastTodos: '', title: null, mode: null },
    timings: { initializeMs: null, sessionNewMs: null, promptMs: null },
    facts: new RunFacts(keepAnswer),
    structured: undefined,
    promptCaps: { image: false, embeddedContext: false },
    replaying: false,
    replayed: 0,
    resumed: false,
    phase: 'config',
    accepting: true,
    warnings: [],
    cursorWarnings: [],
    identity: identify(cursorAtSpawn(opts.agent, opts.agentArgs)),
    privateDir: false,
    modelFlag: false,
    sessionId: null,
    model: null,
    modes: [],
    stopReason: null,
    promptSentAt: 0,
    replyHead: '',
    attempt: 1,
    toolCalls: 0,
  };
  return s;
}

// Every event the run writes passes here: the small facts, and the --max-tool-calls bound.
function onEvent(s: RunState, e: Parameters<Output['emit']>[0]): void {
  // A tool event that came with a new call in the store is a new tool call (a cheap count, no id set).
  const calls = s.tools.calls;
  const newTool = e.type === 'tool' && calls !== s.toolCalls;
  s.toolCalls = calls;
  s.facts.add(e, newTool);
  s.ledger?.observe(e);
  const max = s.opts.maxToolCalls;
  if (newTool && max !== undefined && s.phase === 'prompt' && s.facts.turnToolCalls > max)
    s.cancel.stop('max_tool_calls');
}

// A signal before the end cancels (or, when fatal, ends) the run; during teardown it ends the agent now.
function onSignal(s: RunState, signal: StopSignal): void {
  // In teardown a signal ends what is left at once: the agent, and a wait for a stdout nobody reads.
  if (s.phase === 'teardown') {
    s.agent?.killNow();
    s.out.giveUp();
  } else s.cancel.stop(signal);
}

// Asks the agent to end its turn: session/cancel, and `cancelled` for every request still waiting on us.
function cancelTurn(s: RunState): boolean {
  s.out.stopSpinner();
  if (s.phase !== 'prompt' || !s.conn || !s.sessionId || s.conn.isClosed) return false;
  s.conn.notify('session/cancel', { sessionId: s.sessionId });
  s.requests?.cancelAll();
  return true;
}

// 1. Config, read before anything is spawned; the warnings say where the policy cannot hold.
async function readConfig(s: RunState): Promise<void> {
  const { opts, io } = s;
  s.config = loadConfig(io.env, io.home, opts.cwd);
  s.cursorWarnings = configWarnings({
    // With rules, Cursor gets the private dir's config (allowlist and the rules): that is what is judged.
    config: configUnderRules(s.config.effective, 'none', cursorRules(opts.rules)),
    // Ask with nobody at the terminal rejects, so the warnings judge it as reject.
    policy: opts.policy === 'ask' && !opts.interactive ? 'reject' : opts.policy,
    allow: opts.allow,
    plan: opts.plan,
    fence: opts.fence,
    configFile: s.config.user.path,
  }).concat(rulesWarnings(opts.rules));
  if (opts.outputSchema) s.schema = await loadOutputSchema(opts.outputSchema);
  if (opts.policy === 'ask' && !opts.interactive) {
    s.warnings.push({
      code: 'ask-without-terminal',
      message: 'no terminal to ask at: permission requests are rejected',
    });
  }
  s.warnings.push(...opts.notices);
}

// 2a. The workspace: with --worktree a temporary worktree (released by the teardown stack, after the agent),
// then the ledger, whose snapshot starts once the agent has answered initialize (handshake); the prompt waits
// for it.
async function openLedger(s: RunState): Promise<void> {
  const { opts } = s;
  s.worktree = await openWorktree(opts, s.teardown);
  if (s.worktree) s.opts = { ...opts, cwd: s.worktree.cwd };
  // rho-cursor's own files are not the agent's changes.
  const own = [opts.wireLog, opts.outputLastMessage, opts.summaryFile, opts.patch];
  s.ledger = new RunLedger(s.opts.cwd, opts.changes, own);
}

// 2. Spawn the agent and join it to a connection; its release goes on the teardown stack at once.
async function prepareAgent(s: RunState): Promise<void> {
  const { opts, io, out } = s;
  s.phase = 'spawn';
  const agentPath = resolveAgent(opts.agent, io.env, opts.cwd);
  if (opts.wireLog) {
    const wire = new WireLog(opts.wireLog, io.now, s.t0, io.env.CURSOR_API_KEY, (message) => {
      // An event, so the stream says when the log stopped; the final error line says it on stderr.
      s.sideFailure ??= new RhoError('write_failed', message);
      out.emit({ type: 'warning', code: 'wire-log-failed', message });
    });
    s.wire = wire;
    s.teardown.defer({ name: 'wire log', run: () => closeWireLog(s, wire) });
  }
  // Cursor's arguments unless --agent-arg gives the agent's own; --model is a flag for Cursor only, and so
  // is the private config dir of the fence and the rules.
  const cursor = s.identity.cursor;
  const rules = cursorRules(opts.rules);
  s.modelFlag = cursor && opts.model !== undefined;
  s.privateDir = cursor && (opts.fence !== 'none' || needsCursorRules(rules));
  const args =
    opts.agentArgs.length > 0
      ? opts.agentArgs
      : ['--trust', ...(s.modelFlag ? ['--model', opts.model!] : []), 'acp'];
  const env = cursor ? fenceEnv(opts.fence, s.config!, io.env, s.teardown, rules) : io.env;
  s.launch = { path: agentPath, args, env };
}

// Starts one agent and joins it to the run. Each try (--retries) has its own; what an earlier one still
// sends is ignored.
function spawnAgent(s: RunState): void {
  const { opts, out } = s;
  s.phase = 'spawn';
  const { path, args, env } = s.launch!;
  const agent = new AgentProcess(path, args, opts.cwd, env);
  s.agent = agent;
  s.io.onAgentStarted();
  s.releaseAgent = s.teardown.defer({
    name: 'agent',
    run: () => agent.terminate(KILL_GRACE_MS),
    runSync: () => agent.killNowAndRelease(),
  });
  const attempt = s.attempt;
  const live = (): boolean => s.attempt === attempt;
  s.idle?.stop();
  if (opts.idleTimeoutMs) {
    s.idle = new IdleTimer(opts.idleTimeoutMs, () => {
      // The agent owes nothing while a person is still deciding one of its questions.
      if (s.requests?.asking()) return false;
      s.cancel.stop('idle');
      return true;
    });
  }
  const conn = linkAgent(agent, {
    label: opts.agent,
    phase: () => s.phase,
    wire: s.wire,
    onActivity: () => s.idle?.touch(),
    onRequest: (msg) => {
      if (s.accepting && live()) s.requests!.handle(msg);
    },
    onNotification: (msg) => {
      if (!s.accepting || !live()) return;
      if (msg.method === 'session/update' && s.replaying && isOwnUpdate(msg.params, s.sessionId)) {
        s.replayed++;
        s.idle?.touch();
        emit(s, { type: 'history', update: (msg.params as { update?: unknown }).update ?? null });
      } else if (msg.method === 'session/update')
        for (const e of eventsFromUpdate(msg.params, s.ctx))
          emit(
            s,
            // Only Cursor's own deny rules (fence or --deny) are known to stop a call it reports completed.
            s.privateDir && s.identity.cursor
              ? rulesTool(opts.rules, opts.cwd, s.tools, fenceTool(opts.fence, s.tools, e))
              : e,
          );
      // A withdrawn request a person is deciding closes unanswered (and says so); any other is kept raw.
      else if (msg.method !== '$/cancel_request' || !s.requests?.withdraw(msg.params))
        emit(s, extension(msg.method, msg.params));
    },
    onInvalid: (line, reason) => {
      if (s.accepting && live())
        out.warn(
          'agent-non-json',
          `the agent wrote a line that is not JSON-RPC (${reason}): ${cutEnd(line, 120)}`,
          line,
        );
    },
    onText: (e) => {
      if (!live()) return;
      if (s.replaying) {
        s.replayed++;
        emit(s, {
          type: 'history',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } },
        });
      } else if (s.accepting) emit(s, e);
    },
    sessionId: () => s.sessionId,
    flush: () => out.flush(),
    whenWritable: (go: () => void) => out.whenWritable(go),
  });
  s.conn = conn;
  s.requests = new AgentRequests({
    conn,
    emit: (e) => emit(s, e),
    tools: s.tools,
    opts,
    asker: s.io.asker,
    settle: () => s.out.settle(),
    sessionId: () => s.sessionId,
    identity: () => s.identity,
  });
}

// A session/update for this run's session (a replay from another session is not this one's history).
function isOwnUpdate(params: unknown, sessionId: string | null): boolean {
  return isRecord(params) && params.sessionId === sessionId;
}

// Every event of the run passes here: the head of the reply is kept to spot API errors written as text.
function emit(s: RunState, e: Parameters<Output['emit']>[0]): void {
  // 400: a key that starts within the 200 characters a message shows is whole in it, so it is masked.
  if (e.type === 'message' && s.replyHead.length < 400) s.replyHead += e.text;
  s.out.emit(e);
}

// Sends one handshake request, bounded by --step-timeout and by a stop.
function step<T>(
  s: RunState,
  method: Exclude<Phase, 'config' | 'spawn' | 'prompt' | 'teardown'>,
  params: unknown,
): Promise<T> {
  s.phase = method;
  const ms = s.opts.stepTimeoutMs;
  const timeout = { ms, error: () => stepTimeoutError(method, ms) };
  return s.cancel.race(s.conn!.request<T>(method, params, timeout));
}

// 3. initialize, then session/new; never authenticate. The renderer loads while the agent starts.
async function handshake(s: RunState): Promise<void> {
  const { out, io, opts } = s;
  s.idle?.touch();
  let t = io.now();
  const init = step<unknown>(s, 'initialize', initializeParams(io.version));
  // It is awaited below; until then a fast failure must not count as an unhandled rejection.
  init.catch(() => {});
  await out.open();
  // The config's warnings, once: a retry's handshake does not repeat them.
  for (const w of s.warnings.splice(0)) out.warn(w.code, w.message);
  out.flush();
  if (!s.cancel.cause) await out.startSpinner(`starting ${opts.agent}`);
  let initResult: Record<string, unknown> | undefined;
  try {
    initResult = checkInitialize(
      await init.catch((e: unknown) => {
        throw initializeError(e);
      }),
    );
  } finally {
    knowAgent(s, initResult);
  }
  s.timings.initializeMs = Math.round(io.now() - t);
  // The ledger's snapshot runs while the session is made (not during the agent's own start-up, which it
  // would slow on a small machine); the prompt waits for it.
  s.ledger?.start();
  // An image for an agent that takes none is refused now, before a session is made (exit 2).
  s.promptCaps = promptCaps(initResult);
  refuseUntaken(opts.attachments, s.promptCaps);
  t = io.now();
  let session: unknown;
  try {
    session = await openSession(s, initResult);
  } catch (e) {
    throw isAuthError(e) ? authError(e, initResult, opts.agent, s.identity.cursor) : e;
  }
  s.timings.sessionNewMs = Math.round(io.now() - t);
  const facts = readSession(initResult, session);
  s.choices = readChoices(session);
  s.sessionId = facts.sessionId;
  s.ctx.sessionId = facts.sessionId;
  s.model = (await chooseModel(s, session)) ?? facts.model;
  s.modes = facts.modes;
  s.ctx.mode = facts.mode;
  const config = s.config!;
  emit(s, {
    type: 'session',
    sessionId: facts.sessionId,
    model: s.model,
    mode: facts.mode,
    modes: facts.modes,
    configDir: config.configDir,
    configDirSource: config.configDirSource,
    approvalMode: config.effective.approvalMode,
    permissions: opts.policy,
    allow: opts.allow,
    rules: rulesJson(opts.rules),
    cwd: opts.cwd,
    agent: { ...facts.agent, cursor: s.identity.cursor },
    fence: fenceSummary(opts.fence, s.privateDir && s.identity.cursor),
    resumed: s.resumed,
    replayed: s.replayed,
  });
  out.flush();
}

// Once initialize answered (or failed), the agent is known: Cursor's behaviour applies only to Cursor, and the
// warnings that depend on it are shown, once.
function knowAgent(s: RunState, initResult: Record<string, unknown> | undefined): void {
  s.initResult = initResult;
  if (initResult) s.identity = identify(cursorAtSpawn(s.opts.agent, s.opts.agentArgs), initResult);
  const warnings = agentWarnings({
    identity: s.identity,
    fence: s.opts.fence,
    privateDir: s.privateDir,
    cursorWarnings: s.cursorWarnings.splice(0),
  });
  for (const w of warnings) s.out.warn(w.code, w.message);
}

// --model for an agent that did not take it as a flag: session/set_model or its model config option; a model
// it does not offer is exit 2, and one it offers no way to set a `model-not-settable` warning. Returns the
// model now in use, or undefined when unchanged.
async function chooseModel(s: RunState, session: unknown): Promise<string | null | undefined> {
  const model = s.opts.model;
  if (model === undefined || (s.modelFlag && s.identity.cursor)) return undefined;
  const setting = modelSetting(readChoices(session), s.sessionId!, model);
  if (!setting) {
    s.out.warn(
      'model-not-settable',
      `${s.identity.title} offers no model to choose (no models in session/new, no model config option): --model ${model} is not applied`,
    );
    return undefined;
  }
  return (await applySetting(s, setting)).currentModel ?? model;
}

// Sends one session setting (model or mode), an error naming what the agent said; what it reports after.
async function applySetting(s: RunState, setting: Setting): Promise<ReturnType<typeof readChoices>> {
  try {
    return readChoices(await step<unknown>(s, setting.method, setting.params));
  } catch (e) {
    if (!(e instanceof RpcRequestError)) throw e;
    if (s.opts.plan && (setting.params.modeId === 'plan' || setting.params.value === 'plan'))
      throw new RhoError('plan_refused', `the agent refused plan mode: ${rpcErrorText(e.rpc)}`);
    throw new RhoError('rpc_error', `${setting.method} failed: ${rpcErrorText(e.rpc)}`);
  }
}

// session/new, or with --resume/--continue session/load; resolves with what session/new would answer.
async function openSession(s: RunState, initResult: Record<string, unknown>): Promise<unknown> {
  const { opts, out } = s;
  let id = opts.resume;
  if (opts.continueLast) {
    id = await newestSessionId(s, initResult);
    if (id === undefined)
      out.warn('no-session-to-continue', `the agent lists no session for ${opts.cwd}: starting a new one`);
  }
  if (id === undefined) {
    out.spinnerText('creating a session');
    return step(s, 'session/new', { cwd: opts.cwd, mcpServers: [] });
  }
  if (!sessionCaps(initResult).load)
    throw new RhoError(
      'capability_missing',
      `the agent cannot load a session (no agentCapabilities.loadSession in its initialize answer): cannot resume ${id}`,
    );
  out.spinnerText(`loading session ${id}`);
  s.sessionId = id;
  s.ctx.sessionId = id;
  s.resumed = true;
  s.replaying = true;
  let loaded: unknown;
  try {
    loaded = await step(s, 'session/load', { sessionId: id, cwd: opts.cwd, mcpServers: [] });
  } catch (e) {
    s.replaying = false;
    if (isAuthError(e) || !(e instanceof RpcRequestError)) throw e;
    throw new RhoError('rpc_error', `session/load ${id} failed: ${rpcErrorText(e.rpc)}`);
  }
  // Cursor may go on replaying after its answer: the history has ended once the agent is quiet a moment.
  await s.cancel.race(quiet(s, REPLAY_QUIET_MS, REPLAY_MAX_MS));
  s.replaying = false;
  return { ...(isRecord(loaded) ? loaded : {}), sessionId: id };
}

// --continue: the newest of the workspace's sessions (session/list, every page), or undefined.
async function newestSessionId(
  s: RunState,
  initResult: Record<string, unknown>,
): Promise<string | undefined> {
  if (!sessionCaps(initResult).list)
    throw new RhoError(
      'capability_missing',
      'the agent cannot list sessions (no agentCapabilities.sessionCapabilities.list): --continue needs it; use --resume <sessionId>',
    );
  s.out.spinnerText('finding the newest session');
  const sessions = await workspaceSessions((params) => step(s, 'session/list', params), s.opts.cwd);
  return sessions[0]?.sessionId;
}

// Resolves once the agent has sent nothing for `ms` (or after `max`): the end of a session's replay.
function quiet(s: RunState, ms: number, max: number): Promise<void> {
  return new Promise((resolve) => {
    const start = s.io.now();
    let seen = s.replayed;
    const tick = (): void => {
      if (s.replayed === seen || s.io.now() - start >= max) return resolve();
      seen = s.replayed;
      setTimeout(tick, ms);
    };
    setTimeout(tick, ms);
  });
}

// 3-5 with --retries: a try that fails before any tool started is made again with a fresh agent, after
// 1 s, 2 s, 4 s... (at most 30 s). A stop (a signal, --timeout) is never retried, nor is a failure once a
// tool started: it may have changed something.
async function firstTurn(s: RunState): Promise<void> {
  const { opts } = s;
  for (;;) {
    try {
      spawnAgent(s);
      await handshake(s);
      const mode = opts.plan ? 'plan' : opts.mode;
      if (mode !== undefined) await enterMode(s, mode);
      const text = s.schema ? opts.prompt + '\n' + schemaInstruction(s.schema) : opts.prompt;
      await s.cancel.race(s.ledger!.ready());
      await promptTurn(s, promptBlocks(text, opts.attachments, s.promptCaps));
      // Under --retries such an answer is a failure: retried while tries are left, then the run's error.
      const apiError = s.stopReason === 'end_turn' ? replyReadsAsError(s.replyHead) : undefined;
      if (!apiError || opts.retries === 0) return;
      throw new RhoError('reply_error', `the answer reads as an API error (--retries): ${apiError}`);
    } catch (e) {
      const error = toRhoError(e);
      if (s.attempt > opts.retries || !retriable(s, error)) throw e;
      const retryInMs = retryWaitMs(s.attempt);
      emit(s, {
        type: 'attempt',
        attempt: s.attempt,
        error: { code: error.code, message: error.message },
        retryInMs,
      });
      s.out.flush();
      await s.releaseAgent?.();
      await s.cancel.race(new Promise((resolve) => setTimeout(resolve, retryInMs)));
      nextAttempt(s);
    }
  }
}

// No tool call was announced in this try: nothing it did can have changed anything.
function beforeAnyTool(s: RunState): boolean {
  return s.facts.turnToolCalls === 0 && s.tools.all().length === 0;
}

// What --retries tries again: the agent gone, the prompt answered with an error, or an answer that reads as
// an API error; only before any tool started, and never what a stop caused.
function retriable(s: RunState, e: RhoError): boolean {
  if (s.cancel.cause !== undefined || !beforeAnyTool(s)) return false;
  if (e.code === 'agent_exited' || e.code === 'agent_closed' || e.code === 'reply_error') return true;
  return e.code === 'rpc_error' && s.phase === 'prompt';
}

// Forgets the failed try's agent and session; the run's own state (output, facts, fence, wire log) stays.
function nextAttempt(s: RunState): void {
  s.attempt++;
  s.conn = undefined;
  s.requests = undefined;
  s.agent = undefined;
  s.releaseAgent = undefined;
  s.sessionId = null;
  s.model = null;
  s.modes = [];
  s.stopReason = null;
  s.replyHead = '';
  s.accepting = true;
  s.replaying = false;
  s.replayed = 0;
  s.resumed = false;
  Object.assign(s.ctx, { sessionId: null, mode: null, title: null, usage: null, lastTodos: '' });
  Object.assign(s.timings, { initializeMs: null, sessionNewMs: null, promptMs: null });
}

// 4. The mode (--plan is --mode plan), confirmed by the agent, before the prompt: session/set_mode, or the mode
// config option where only that offers it (Codex).
async function enterMode(s: RunState, mode: string): Promise<void> {
  const after = await applySetting(s, modeSetting(s.choices!, s.sessionId!, mode, s.opts.plan));
  const now = after.currentMode ?? mode;
  if (s.ctx.mode !== now) {
    s.ctx.mode = now;
    emit(s, { type: 'mode', mode: now });
  }
  s.out.flush();
}

// 5. One prompt turn: updates stream as they arrive, requests are answered by policy. A later feature may
// call it again in the same session (a follow-up prompt).
async function promptTurn(s: RunState, prompt: ContentBlock[]): Promise<void> {
  const { io } = s;
  s.phase = 'prompt';
  s.accepting = true;
  s.facts.newTurn();
  s.replyHead = '';
  s.promptSentAt = io.now();
  let answer: unknown;
  try {
    answer = await s.cancel.race(
      s.conn!.request(
        'session/prompt',
        { sessionId: s.sessionId, prompt },
        undefined,
        // What the agent sends after the turn's answer, even in the same read, is not this run's output.
        () => (s.accepting = false),
      ),
    );
  } catch (e) {
    // Claude's adapter without a key answers the prompt, not session/new, with auth_required: exit 3 all the same.
    throw isAuthError(e) ? authError(e, s.initResult, s.opts.agent, s.identity.cursor) : e;
  } finally {
    s.timings.promptMs = Math.round(io.now() - s.promptSentAt);
    // What the agent sends after the turn's answer is not this run's output: `result` is always last.
    s.accepting = false;
  }
  // An unknown stopReason, or `cancelled` we did not ask for, is the agent breaking the protocol.
  const { stopReason, error } = readStopReason(answer, s.cancel.cause !== undefined, s.facts.rejectedLast());
  s.stopReason = stopReason;
  if (error) throw error;
  // Cursor reports some API failures as reply text and still ends the turn normally: say so.
  const failure = replyReadsAsError(s.replyHead);
  if (failure && stopReason === 'end_turn') {
    s.out.warn(
      'reply-looks-like-error',
      `the turn ended normally but the reply reads as an error: ${failure}`,
    );
  }
}

// --output-schema: extract the answer's JSON value and validate it; on a mismatch, ask again in the same
// session, up to --schema-retries times. Each check is a `validation` event.
async function structuredAnswer(s: RunState, schema: OutputSchema): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const found = extractJson(s.facts.answer);
    const errors = found.ok ? schema.validate(found.value) : [found.reason];
    s.out.emit({ type: 'validation', attempt, valid: errors.length === 0, errors });
    if (found.ok && errors.length === 0) {
      s.structured = found.value;
      return;
    }
    if (attempt > s.opts.schemaRetries)
      throw new RhoError(
        'schema_mismatch',
        `the answer did not match ${schema.path} after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${errors.slice(0, 3).join('; ')}`,
      );
    await promptTurn(s, [{ type: 'text', text: retryPrompt(errors) }]);
    if (s.stopReason !== 'end_turn') return;
  }
}

// 6. The result: the exit code, the one `result` event (always last), and the error line on stderr.
async function report(s: RunState, thrown: RhoError | undefined): Promise<ExitCode> {
  const { out, opts, cancel } = s;
  s.phase = 'teardown';
  s.accepting = false;
  s.requests?.endQuestions();
  s.conn?.close(new RhoError('cancelled', 'the run is over'));
  // Nothing more is asked of the agent: its kill ladder runs while the result is written, not after it.
  // Its step stays on the teardown stack, which waits for it (and reports its failure) in turn.
  s.releaseAgent?.().catch(() => {});
  // Every tool ends in a final state. One whose request rho-cursor rejected did not run: rejected (the same
  // for an edit Codex reports in progress as for a pending shell command). Any other one still running when
  // the run was stopped was cancelled; one the agent left pending or in progress when its turn ended (or it
  // died) is too, its last word kept as reportedStatus so the outputs can say the agent never finished it.
  const stopped = s.stopReason === 'cancelled' || cancel.cause !== undefined;
  for (const t of s.tools.all()) {
    if (t.status === 'pending' || t.status === 'in_progress') {
      const verdict = s.tools.verdictOf(t.toolCallId) === 'rejected' ? 'rejected' : 'cancelled';
      if (verdict === 'rejected' || !stopped) t.reportedStatus = t.status;
      t.status = verdict;
      out.emit(t);
    }
  }
  // A breach outranks everything: the workspace changed where the run promised it could not. Measured once
  // every tool has its final state, so a tool shown rejected that the ledger shows ran is corrected.
  const breach = await closeLedger(s);
  // A stop (a signal, a timeout, a closed stdout) decides the exit code, even if the agent failed meanwhile.
  let error = breach ?? cancel.error() ?? thrown;
  error ??= s.sideFailure;
  if (!error && opts.strict && s.stopReason === 'end_turn') error = strictFailure(s);
  error ??= stopReasonError(s.stopReason);
  let result = resultEvent(s, error);
  // The files a script or a CI job reads (-o, the summary, $GITHUB_OUTPUT): a failure to write them fails the run.
  const failed = await deliverReports(opts, s.io.env, { result, facts: s.facts, structured: s.structured });
  if (failed && !error) {
    error = failed;
    result = resultEvent(s, error);
  } else if (failed) out.line(`rho-cursor: ${failed.message}`);
  let exitCode = result.exitCode as ExitCode;
  // --timeout and --idle-timeout bound the run: a reader that takes nothing does not hold it past them.
  const timedOut = cancel.cause === 'timeout' || cancel.cause === 'idle';
  await out.close(result, timedOut ? KILL_GRACE_MS : undefined);
  // stdout failed while the result itself was written (json writes everything at the end).
  if (!error && out.failure?.kind === 'write_failed') {
    error = new RhoError('write_failed', out.failure.message);
    exitCode = error.exitCode as ExitCode;
  }
  // Outside text mode the error is also one line on stderr; a closed stdout is a quiet end.
  const quiet = out.failure?.kind === 'epipe' || error?.code === 'stdout_closed';
  if (error && !quiet && (opts.format !== 'text' || out.failure))
    out.line(`rho-cursor: ${result.error?.message ?? error.message}`);
  if (error) out.annotateError(result.error?.message ?? error.message);
  return exitCode;
}

// 6a. After the turn, however it ended: what changed (the ledger), the tools shown rejected that ran, the
// patch of a worktree; returns the breach, if any.
async function closeLedger(s: RunState): Promise<RhoError | undefined> {
  if (!s.ledger) return undefined;
  const o = await s.ledger.finish(s.opts, s.promptSentAt > 0, s.worktree);
  for (const t of o.corrected) s.out.emit(t);
  for (const w of o.warnings) s.out.warn(w.code, w.message);
  s.changes = o.changes;
  s.patch = o.patch;
  s.sideFailure ??= o.failure;
  if (s.worktree && s.opts.keepWorktree && !s.opts.quiet)
    s.out.line(
      `rho-cursor: the worktree is kept at ${s.worktree.dir} (git worktree remove --force ${s.worktree.dir} removes it)`,
    );
  return o.breach;
}

// With --worktree: where the agent worked, and whether it stays.
function worktreeInfo(s: RunState): WorktreeInfo | undefined {
  return s.worktree ? { path: s.worktree.dir, kept: s.opts.keepWorktree } : undefined;
}

// The one `result` event for the run as it stands.
function resultEvent(s: RunState, error: RhoError | undefined): ResultEvent {
  return {
    type: 'result',
    stopReason: s.stopReason,
    exitCode: error ? error.exitCode : exitForStopReason(s.stopReason ?? ''),
    sessionId: s.sessionId,
    model: s.model,
    mode: s.ctx.mode,
    title: s.ctx.title,
    durationMs: Math.round(s.io.now() - s.t0),
    timings: s.timings,
    usage: s.ctx.usage ?? null,
    structured: s.structured ?? null,
    changes: s.changes ?? null,
    patch: s.patch ?? null,
    ...(s.worktree ? { worktree: worktreeInfo(s) } : {}),
    ...(error
      ? {
          error: {
            code: error.code,
            message: error.hint ? `${error.message} (${error.hint})` : error.message,
          },
        }
      : {}),
  };
}

// --strict: an answer that reads as an API error, or a run in which anything was refused, is a failure.
function strictFailure(s: RunState): RhoError | undefined {
  const apiError = replyReadsAsError(s.replyHead);
  if (apiError)
    return new RhoError('reply_error', `the answer reads as an API error (--strict): ${apiError}`);
  if (s.facts.denied())
    return new RhoError('denied', 'a permission was rejected or a tool was blocked (--strict)');
  return undefined;
}

// The wire log's closing row, then the file is closed.
async function closeWireLog(s: RunState, wire: WireLog): Promise<void> {
  const { timings, promptSentAt, t0 } = s;
  wire.summary({
    initialize_ms: timings.initializeMs,
    session_new_ms: timings.sessionNewMs,
    prompt0_ms: promptSentAt ? Math.round(promptSentAt - t0) : null,
    prompt0_end_ms:
      timings.promptMs !== null && promptSentAt ? Math.round(promptSentAt - t0 + timings.promptMs) : null,
    stop_reason: s.stopReason,
    exit_code: s.exitCode ?? null,
  });
  await wire.close();
}
