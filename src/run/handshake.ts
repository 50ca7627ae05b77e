// A try's handshake: initialize, then session/new (or, with --resume/--continue, session/list and
// session/load), the model chosen; never authenticate. Returns the Session the rest of the try works in.
import {
  authError,
  checkInitialize,
  initializeError,
  initializeParams,
  isAuthError,
  stepTimeoutError,
} from '../acp/answers.js';
import { rpcErrorText, RpcRequestError } from '../acp/connection.js';
import { isRecord } from '../acp/messages.js';
import { cursorAtSpawn, identify } from '../agent/identity.js';
import { agentWarnings } from '../agent/warnings.js';
import { RhoError } from '../errors.js';
import { noteMode } from '../events/updates.js';
import { fenceSummary } from '../fence/summary.js';
import { rulesJson } from '../policy/rules.js';
import { promptCaps, refuseUntaken } from '../prompt/attach.js';
import { worktreeSessions } from '../changes/worktree.js';
import { readSession, sessionCaps, sessionsOf, workspaceSessions } from '../session.js';
import { modelSetting, readChoices, type Setting } from '../session-choices.js';
import type { Attempt } from './attempt.js';
import { emit, warn, type Phase, type Prepared, type RunContext } from './context.js';

/** The session a handshake opened: what the rest of the try works in. */
export interface Session {
  sessionId: string;
  model: string | null;
  mode: string | null;
  modes: string[];
  /** The models and modes session/new offered. */
  choices: ReturnType<typeof readChoices>;
  /** The session was loaded (--resume, --continue), not created. */
  resumed: boolean;
}

/** The methods a handshake step sends. */
export type StepMethod = Exclude<Phase, 'config' | 'spawn' | 'prompt' | 'teardown'>;

// Sends one handshake request, bounded by --step-timeout and by a stop.
export function step<T>(
  ctx: RunContext,
  a: Attempt,
  method: StepMethod,
  params: unknown,
  answered?: (result: unknown) => void,
): Promise<T> {
  ctx.phase = method;
  const ms = ctx.opts.stepTimeoutMs;
  const timeout = { ms, error: () => stepTimeoutError(method, ms) };
  return ctx.stop.race(a.conn.request<T>(method, params, timeout, answered));
}

// initialize, then the session; the renderer loads while the agent starts.
export async function shakeHands(ctx: RunContext, a: Attempt, prepared: Prepared): Promise<Session> {
  const { out, io, opts } = ctx;
  a.touch();
  let t = io.now();
  const init = step<unknown>(ctx, a, 'initialize', initializeParams(io.version));
  // It is awaited below; until then a fast failure must not count as an unhandled rejection.
  init.catch(() => {});
  await out.open();
  // The config's warnings, once: a retry's handshake does not repeat them.
  for (const w of ctx.warnings.splice(0)) warn(ctx, w.code, w.message);
  out.flush();
  if (!ctx.stop.cause) await out.startSpinner(`starting ${opts.agent}`);
  let initResult: Record<string, unknown> | undefined;
  try {
    initResult = checkInitialize(
      await init.catch((e: unknown) => {
        // An agent may ask for authentication as soon as it starts (Gemini's adapter can): exit 3 there too.
        throw isAuthError(e) ? authError(e, undefined, opts.agent, ctx.identity.cursor) : initializeError(e);
      }),
    );
  } finally {
    knowAgent(ctx, a, prepared, initResult);
  }
  a.timings.initializeMs = Math.round(io.now() - t);
  // An image for an agent that takes none is refused now, before a session is made (exit 2).
  a.promptCaps = promptCaps(initResult);
  refuseUntaken(opts.attachments, a.promptCaps);
  t = io.now();
  const opening = openSession(ctx, a, initResult);
  opening.catch(() => {});
  // The ledger's snapshot runs while the session is made (not during the agent's own start-up, which it
  // would slow on a small machine), started once session/new is sent: its git's fork (~8 ms) does not delay
  // the request. The prompt waits for it.
  ctx.workspace?.ledger.start();
  let opened: Opened;
  try {
    opened = await opening;
  } catch (e) {
    throw isAuthError(e) ? authError(e, initResult, opts.agent, ctx.identity.cursor) : e;
  }
  a.timings.sessionNewMs = Math.round(io.now() - t);
  const { answer, resumed } = opened;
  const facts = readSession(initResult, answer);
  a.update.sessionId = facts.sessionId;
  const session: Session = {
    sessionId: facts.sessionId,
    model: facts.model,
    mode: facts.mode,
    modes: facts.modes,
    choices: readChoices(answer),
    resumed,
  };
  a.session = session;
  a.update.model = (await chooseModel(ctx, a, prepared, answer)) ?? facts.model;
  noteMode(a.update, facts.mode);
  const config = prepared.config;
  emit(ctx, {
    type: 'session',
    sessionId: facts.sessionId,
    model: a.update.model,
    mode: facts.mode,
    modes: facts.modes,
    configDir: config.configDir,
    configDirSource: config.configDirSource,
    approvalMode: config.effective.approvalMode,
    permissions: opts.policy,
    allow: opts.allow,
    rules: rulesJson(opts.rules),
    cwd: opts.cwd,
    agent: { ...facts.agent, cursor: ctx.identity.cursor },
    fence: fenceSummary(opts.fence, prepared.privateDir && ctx.identity.cursor),
    resumed: session.resumed,
    replayed: a.replayed,
  });
  out.flush();
  return session;
}

// Once initialize answered (or failed), the agent is known: Cursor's behaviour applies only to Cursor, and the
// warnings that depend on it are shown, once.
function knowAgent(
  ctx: RunContext,
  a: Attempt,
  prepared: Prepared,
  initResult: Record<string, unknown> | undefined,
): void {
  a.initResult = initResult;
  if (initResult) ctx.identity = identify(cursorAtSpawn(ctx.opts.agent, ctx.opts.agentArgs), initResult);
  const warnings = agentWarnings({
    identity: ctx.identity,
    fence: ctx.opts.fence,
    privateDir: prepared.privateDir,
    cursorWarnings: ctx.cursorWarnings.splice(0),
  });
  for (const w of warnings) warn(ctx, w.code, w.message);
}

// --model for an agent that did not take it as a flag: session/set_model or its model config option; a model
// it does not offer is exit 2, one it answers for but does not take exit 1, and one it offers no way to set a
// `model-not-settable` warning. Returns the model now in use, or undefined when unchanged.
async function chooseModel(
  ctx: RunContext,
  a: Attempt,
  prepared: Prepared,
  answer: unknown,
): Promise<string | null | undefined> {
  const model = ctx.opts.model;
  if (model === undefined || (prepared.modelFlag && ctx.identity.cursor)) return undefined;
  const setting = modelSetting(readChoices(answer), a.sessionId!, model);
  if (!setting) {
    warn(
      ctx,
      'model-not-settable',
      `${ctx.identity.title} offers no model to choose (no models in session/new, no model config option): --model ${model} is not applied`,
    );
    return undefined;
  }
  // As for --mode (turn.ts enterMode): an answer that still holds another model did not switch, and the run
  // must not go on with it (found by review: exit 0 with the old model).
  const now = (await applySetting(ctx, a, setting)).currentModel ?? model;
  if (now !== model)
    throw new RhoError(
      'protocol',
      `the agent answered ${setting.method}, but its model is still '${now}': --model ${model} was not applied`,
    );
  return now;
}

// Sends one session setting (model or mode), an error naming what the agent said; what it reports after.
export async function applySetting(
  ctx: RunContext,
  a: Attempt,
  setting: Setting,
): Promise<ReturnType<typeof readChoices>> {
  try {
    return readChoices(await step<unknown>(ctx, a, setting.method, setting.params));
  } catch (e) {
    if (!(e instanceof RpcRequestError)) throw e;
    const failed: unknown = e;
    if (isAuthError(failed)) throw authError(failed, a.initResult, ctx.opts.agent, ctx.identity.cursor);
    if (ctx.opts.plan && (setting.params.modeId === 'plan' || setting.params.value === 'plan'))
      throw new RhoError('plan_refused', `the agent refused plan mode: ${rpcErrorText(e.rpc)}`);
    throw new RhoError('rpc_error', `${setting.method} failed: ${rpcErrorText(e.rpc)}`);
  }
}

/** What session/new answered (or what it would have, for a loaded session), and whether one was loaded. */
interface Opened {
  answer: unknown;
  resumed: boolean;
}

// session/new, or with --resume/--continue session/load.
async function openSession(
  ctx: RunContext,
  a: Attempt,
  initResult: Record<string, unknown>,
): Promise<Opened> {
  const { opts, out } = ctx;
  let id = opts.resume;
  if (opts.continueLast) {
    id = await newestSessionId(ctx, a, initResult);
    const where = ctx.workspace?.worktree?.userCwd ?? opts.cwd;
    if (id === undefined)
      warn(ctx, 'no-session-to-continue', `the agent lists no session for ${where}: starting a new one`);
  }
  if (id === undefined) {
    out.spinnerText('creating a session');
    // The session is known as the answer is read, so an update in the same read after it is this run's
    // (before it, every update is another session's: events/updates.ts).
    const known = (r: unknown): void => {
      if (isRecord(r) && typeof r.sessionId === 'string') a.update.sessionId = r.sessionId;
    };
    const answer = await step(ctx, a, 'session/new', { cwd: opts.cwd, mcpServers: [] }, known);
    return { answer, resumed: false };
  }
  if (!sessionCaps(initResult).load)
    throw new RhoError(
      'capability_missing',
      `the agent cannot load a session (no agentCapabilities.loadSession in its initialize answer): cannot resume ${id}`,
    );
  out.spinnerText(`loading session ${id}`);
  a.update.sessionId = id;
  a.replaying = true;
  let loaded: unknown;
  try {
    loaded = await step(ctx, a, 'session/load', { sessionId: id, cwd: opts.cwd, mcpServers: [] });
  } catch (e) {
    a.replaying = false;
    if (isAuthError(e) || !(e instanceof RpcRequestError)) throw e;
    throw new RhoError('rpc_error', `session/load ${id} failed: ${rpcErrorText(e.rpc)}`);
  }
  // Cursor may go on replaying after its answer: the history has ended once the agent is quiet a moment.
  const unfinished = await ctx.stop.race(quiet(ctx, a));
  a.replaying = false;
  // Past the cap the prompt goes out while the agent still replays: nothing marks an update as the old
  // conversation's, so what it replays from now on reads as this turn's; the run says so (found by review).
  if (unfinished)
    warn(
      ctx,
      'replay-unfinished',
      `the agent was still replaying session ${id} after ${ctx.timing.replayMaxMs} ms: the prompt is sent, and what it replays after this is read as this turn's answer`,
    );
  return { answer: { ...(isRecord(loaded) ? loaded : {}), sessionId: id }, resumed: true };
}

// --continue: the newest of the workspace's sessions (session/list, every page), or undefined.
async function newestSessionId(
  ctx: RunContext,
  a: Attempt,
  initResult: Record<string, unknown>,
): Promise<string | undefined> {
  if (!sessionCaps(initResult).list)
    throw new RhoError(
      'capability_missing',
      'the agent cannot list sessions (no agentCapabilities.sessionCapabilities.list): --continue needs it; use --resume <sessionId>',
    );
  ctx.out.spinnerText('finding the newest session');
  // Under --worktree the agent works in a new directory: the workspace's sessions are the user's own and
  // those of its earlier worktrees.
  const wt = ctx.workspace?.worktree;
  const scope = wt ? worktreeSessions(wt) : sessionsOf(ctx.opts.cwd);
  const sessions = await workspaceSessions(
    (params) => step(ctx, a, 'session/list', params),
    scope,
    (why) => warn(ctx, 'sessions-truncated', why),
  );
  return sessions[0]?.sessionId;
}

// Resolves once the agent has sent nothing for the quiet period (or after the longest replay): the end of a
// session's replay. True: the longest replay passed while the agent was still replaying.
function quiet(ctx: RunContext, a: Attempt): Promise<boolean> {
  const { replayQuietMs: ms, replayMaxMs: max } = ctx.timing;
  return new Promise((resolve) => {
    const start = ctx.io.now();
    let seen = a.replayed;
    const tick = (): void => {
      if (a.replayed === seen) return resolve(false);
      if (ctx.io.now() - start >= max) return resolve(true);
      seen = a.replayed;
      setTimeout(tick, ms);
    };
    setTimeout(tick, ms);
  });
}
