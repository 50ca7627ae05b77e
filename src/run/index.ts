// One run, as a table of contents: config -> workspace -> launch plan -> tries (spawn, handshake, mode,
// prompt) -> the structured answer -> the end (outcome, result, reports) -> teardown. What lives as long as
// the run is its RunContext; each try is an Attempt; every resource is released by the one teardown stack
// that the normal end, every signal and the exit hook drain; the output closes itself at `result`.
import { RunnerFiles, withoutRunnerFiles } from '../ci/runner-files.js';
import { pinReports } from '../ci/targets.js';
import { realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { notCursorAtSpawn } from '../agent/identity.js';
import { resolveAgent } from '../agent/resolve.js';
import { openWorktree, RunLedger } from '../changes/run.js';
import { configIgnoredWarning, loadConfig } from '../config/load.js';
import { configWarnings } from '../config/warnings.js';
import { RhoError, toRhoError } from '../errors.js';
import { configUnderRules, needsPrivateDir } from '../fence/rules.js';
import { fenceEnv } from '../fence/run.js';
import type { RunOptions } from '../options.js';
import { osLimitError } from '../os-limits.js';
import { retryWaitMs, TIMING, type Timing } from '../lifecycle/timing.js';
import { rulesWarnings } from '../policy/judge.js';
import { cursorRules } from '../policy/rules.js';
import { attachedFile, inWorktree, promptBlocks } from '../prompt/attach.js';
import { useSecret } from '../sanitize/cut.js';
import { replyReadsAsError } from '../session.js';
import { fmtMs, isSignal, type StopSignal } from '../stop.js';
import { SchemaChecker } from '../structured/checker.js';
import { readOutputSchema, schemaInstruction } from '../structured/schema.js';
import { WireLog } from '../wirelog.js';
import { Attempt } from './attempt.js';
import {
  emit,
  newRunContext,
  readerGiveUp,
  type Prepared,
  type RunContext,
  type RunIO,
  type Workspace,
} from './context.js';
import { finish } from './finish.js';
import { shakeHands } from './handshake.js';
import { afterTeardown } from './outcome.js';
import { enterMode, promptTurn, structuredAnswer } from './turn.js';

export type { RunIO } from './context.js';

export async function run(opts: RunOptions, io: RunIO, timing: Readonly<Timing> = TIMING): Promise<number> {
  // Every cut of text that may carry the key masks it first.
  useSecret(io.env.CURSOR_API_KEY);
  const ctx = newRunContext(opts, io, timing);
  const { out, teardown } = ctx;
  // Registered first, so released last: a signal during the rest of the teardown still ends the agent at once.
  teardown.defer({ name: 'signal handlers', run: io.onSignal((signal) => onSignal(ctx, signal)) });
  teardown.defer({ name: 'exit hook', run: io.onExit(() => teardown.drainSync()) });
  // stderr ends once every release that may still report on it is done.
  teardown.defer({ name: 'stderr', run: () => out.endStderr() });
  if (opts.timeoutMs) ctx.stop.stopAfter(opts.timeoutMs, 'timeout');
  let thrown: RhoError | undefined;
  try {
    const { prepared, workspace } = await prepare(ctx);
    const a = await tryUntilAnswered(ctx, prepared, workspace);
    if (prepared.schema && a.stopReason === 'end_turn') await structuredAnswer(ctx, a, prepared.schema);
  } catch (e) {
    // The machine out of files, processes or memory anywhere in the run is named, never `internal`.
    thrown = osLimitError(e, `the run's ${ctx.phase} step`) ?? toRhoError(e);
  } finally {
    // The run's steps are over: a timeout from now on no longer changes how it ended, but still bounds the
    // waits on readers of what it writes (readerGiveUp).
    ctx.stop.settle();
    ctx.attempt?.stopIdle();
  }
  // The end's bound (--timeout's deadline and the kill grace) starts once the agent is gone: its kill ladder,
  // which the end waits for, has a bound of its own (found by review: a ladder that took the grace made a
  // turn that had ended in time a timeout).
  let deadline: NodeJS.Timeout | undefined;
  let exitCode;
  try {
    exitCode = await finish(ctx, thrown, () => (deadline = armDeadline(ctx)));
    ctx.exitCode = exitCode;
  } finally {
    await teardown.drain((name, e) => out.line(`rho-cursor: could not release the ${name}: ${String(e)}`));
    clearTimeout(deadline);
  }
  // A write that failed after the result was decided (stdout, or the wire log, cut at the deadline or by a
  // signal) still fails the run.
  return afterTeardown(
    exitCode,
    out.failure?.kind === 'write_failed' || ctx.sideFailure?.code === 'write_failed',
  );
}

// --timeout bounds the whole run, its last writes included: when the deadline passes during the end (the turn
// ended in time), every wait on a reader that takes nothing gets the kill grace, then gives up (ctx.deadline).
function armDeadline(ctx: RunContext): NodeJS.Timeout | undefined {
  const { opts, timing } = ctx;
  if (opts.timeoutMs === undefined || ctx.stop.cause !== undefined) return undefined;
  const left = Math.max(0, ctx.t0 + opts.timeoutMs - ctx.io.now());
  const why = `within ${fmtMs(timing.killGraceMs)} of the timeout`;
  return setTimeout(() => {
    ctx.endCut ??= 'timeout';
    ctx.deadline.abort(why);
  }, left + timing.killGraceMs).unref();
}

// A signal before the end cancels (or, when fatal, ends) the run; during teardown it ends the agent now, and
// any wait for a stdout nobody reads.
function onSignal(ctx: RunContext, signal: StopSignal): void {
  if (ctx.phase === 'teardown') {
    ctx.attempt?.agent.killNow();
    // A turn that ended well, its end waiting for the agent to die: the first signal only hurries that (the
    // look, safe once the agent is gone, still runs: found by review, a Ctrl-C there hid a breach on disk).
    if (ctx.agentEnd === 'waiting' && ctx.stop.cause === undefined) {
      ctx.agentEnd = 'hurried';
      return;
    }
    const cause = ctx.stop.cause;
    if (cause === undefined) ctx.endCut ??= signal;
    ctx.abandon.abort(cause !== undefined && isSignal(cause) ? 'before a second signal' : `before ${signal}`);
  } else ctx.stop.stop(signal);
}

// What every try shares, settled before anything is spawned: the config and its warnings, the output schema,
// the workspace (a worktree, the ledger), the agent's launch.
async function prepare(ctx: RunContext): Promise<{ prepared: Prepared; workspace: Workspace }> {
  // Where -o, the summary and --patch lead, before any agent could change it (ci/targets.ts).
  ctx.reportPins = pinReports(ctx.opts);
  const { config, schema } = await readConfig(ctx);
  const workspace = await openWorkspace(ctx);
  return { prepared: { config, schema, ...planLaunch(ctx, config) }, workspace };
}

// Config, read before anything is spawned; the warnings say where the policy cannot hold.
async function readConfig(ctx: RunContext): Promise<Pick<Prepared, 'config' | 'schema'>> {
  const { opts, io } = ctx;
  // Cursor's files are Cursor's: whether they are its is told at spawn (its initialize comes too late).
  const { config, ignored } = loadConfig(io.env, io.home, opts.cwd, ctx.identity.cursor);
  for (const why of ignored)
    ctx.warnings.push(configIgnoredWarning(notCursorAtSpawn(opts.agent, opts.agentArgs), why));
  ctx.cursorWarnings = configWarnings({
    // With rules, Cursor gets the private dir's config (allowlist and the rules): that is what is judged.
    config: configUnderRules(config.effective, 'none', cursorRules(opts.rules)),
    // Ask with nobody at the terminal rejects, so the warnings judge it as reject.
    policy: opts.policy === 'ask' && !opts.interactive ? 'reject' : opts.policy,
    allow: opts.allow,
    plan: opts.plan,
    fence: opts.fence,
    configFile: config.user.path,
  }).concat(rulesWarnings(opts.rules));
  const schema = opts.outputSchema ? await openOutputSchema(ctx, opts.outputSchema) : undefined;
  if (opts.policy === 'ask' && !opts.interactive) {
    ctx.warnings.push({
      code: 'ask-without-terminal',
      message: 'no terminal to ask at: permission requests are rejected',
    });
  }
  ctx.warnings.push(...opts.notices);
  return { config, schema };
}

// --output-schema: read and refused at load if it cannot be one (here, on the main thread, nothing that
// recurses over it), then compiled in its worker, which the stop spine and the teardown end.
async function openOutputSchema(ctx: RunContext, path: string): Promise<SchemaChecker> {
  const checker = new SchemaChecker(readOutputSchema(path), {
    compileMs: ctx.timing.schemaCompileMs,
    checkMs: ctx.timing.schemaCheckMs,
  });
  ctx.teardown.defer({ name: 'schema check', run: () => checker.close() });
  await ctx.stop.race(checker.start(ctx.stop.signal));
  return checker;
}

// The workspace: with --worktree a temporary worktree (released by the teardown stack, after the agent), and
// the ledger, whose snapshot starts once the agent has answered initialize; the prompt waits for it.
async function openWorkspace(ctx: RunContext): Promise<Workspace> {
  const { opts } = ctx;
  // A signal or --timeout during a long checkout ends it (the stop's error is thrown).
  const worktree = await openWorktree(opts, ctx.teardown, ctx.stop.signal);
  if (worktree)
    ctx.opts = {
      ...opts,
      cwd: worktree.cwd,
      attachments: opts.attachments.map((a) =>
        inWorktree(a, worktree, a.kind === 'text' ? knownAs(attachedFile(a)) : []),
      ),
    };
  // The files rho-cursor writes during the turn are not the agent's changes (the wire log joins them once open).
  const ledger = new RunLedger(ctx.opts.cwd, opts.changes, ctx.io.consoleFiles, ctx.stop.signal);
  ctx.workspace = { ledger, worktree };
  ctx.observer.watchWith(ledger);
  return { ledger, worktree };
}

// The paths a file is known by: as given, and with its links resolved (when it still is there).
function knownAs(file: string): string[] {
  try {
    return [file, realpathSync(file)];
  } catch {
    return [file];
  }
}

// How the agent is started (every try alike): its path, Cursor's arguments unless --agent-arg gives the
// agent's own, and the environment (Cursor's private config dir for the fence and the rules). The wire log
// opens here too; both are released by the teardown stack.
function planLaunch(
  ctx: RunContext,
  config: Prepared['config'],
): Pick<Prepared, 'launch' | 'privateDir' | 'modelFlag' | 'wire'> {
  const { opts, io } = ctx;
  ctx.phase = 'spawn';
  const path = resolveAgent(opts.agent, io.env, opts.cwd);
  const wire = opts.wireLog ? openWireLog(ctx, opts.wireLog) : undefined;
  if (wire?.file) ctx.workspace?.ledger.ownFile(wire.file);
  // --model is a flag for Cursor only, and so is the private config dir of the fence and the rules.
  const cursor = ctx.identity.cursor;
  const rules = cursorRules(opts.rules);
  const modelFlag = cursor && opts.model !== undefined;
  const privateDir = cursor && needsPrivateDir(opts.fence, rules);
  const args =
    opts.agentArgs.length > 0
      ? opts.agentArgs
      : ['--trust', ...(modelFlag ? ['--model', opts.model!] : []), 'acp'];
  // The runner's file commands are rho-cursor's step's: the agent is not told where they are, and what it
  // writes there anyway is put back once it is gone (finish).
  ctx.runnerFiles = opts.github ? RunnerFiles.watch(io.env) : undefined;
  const own = agentConfigDir(withoutRunnerFiles(io.env), config.configDir);
  const env = cursor ? fenceEnv(opts.fence, config, own, ctx.teardown, rules) : own;
  return { launch: { path, args, env }, privateDir, modelFlag, wire };
}

// A relative $CURSOR_CONFIG_DIR is handed to the agent as the directory rho-cursor read and judged: the agent
// runs in a --worktree, where the same relative path names another directory, most often none (found by
// review: the agent ran under Cursor's default, unrestricted, where the session line said allowlist).
function agentConfigDir(env: NodeJS.ProcessEnv, configDir: string): NodeJS.ProcessEnv {
  const given = env.CURSOR_CONFIG_DIR;
  return given && !isAbsolute(given) ? { ...env, CURSOR_CONFIG_DIR: configDir } : env;
}

// --wire-log: every line both ways, and a closing row of timings; a failure to write it fails the run but
// not the turn.
function openWireLog(ctx: RunContext, path: string): WireLog {
  const { io } = ctx;
  const wire = new WireLog(
    path,
    io.now,
    ctx.t0,
    io.env.CURSOR_API_KEY,
    (message) => {
      // An event, so the stream says when the log stopped; the final error line says it on stderr. Once the
      // output is closed (the log cut at its close, after the result), the line on stderr alone says it, and
      // the run's exit still fails (run, afterTeardown).
      ctx.sideFailure ??= new RhoError('write_failed', message);
      if (ctx.out.isClosed) ctx.out.line(`rho-cursor: ${message}`);
      else emit(ctx, { type: 'warning', code: 'wire-log-failed', message });
    },
    ctx.opts.github,
  );
  ctx.teardown.defer({ name: 'wire log', run: () => closeWireLog(ctx, wire) });
  return wire;
}

// The wire log's closing row (the last try's first prompt), then the file is closed.
async function closeWireLog(ctx: RunContext, wire: WireLog): Promise<void> {
  const a = ctx.attempt;
  const sentAt = a?.firstPromptAt ?? 0;
  wire.summary({
    initialize_ms: a?.timings.initializeMs ?? null,
    session_new_ms: a?.timings.sessionNewMs ?? null,
    prompt0_ms: sentAt ? Math.round(sentAt - ctx.t0) : null,
    prompt0_end_ms:
      sentAt && a?.firstPromptMs !== undefined ? Math.round(sentAt - ctx.t0 + a.firstPromptMs) : null,
    stop_reason: a?.stopReason ?? null,
    exit_code: ctx.exitCode ?? null,
  });
  await wire.close(readerGiveUp(ctx));
}

// The tries (--retries): a try that fails before any tool started is made again with a fresh agent, after
// 1 s, 2 s, 4 s... (at most 30 s). A stop (a signal, --timeout) is never retried, nor is a failure once a
// tool started: it may have changed something. Resolves with the try that answered.
async function tryUntilAnswered(ctx: RunContext, prepared: Prepared, ws: Workspace): Promise<Attempt> {
  const { opts, timing } = ctx;
  for (let n = 1; ; n++) {
    ctx.attempt?.stopIdle();
    const a = new Attempt(ctx, prepared, n);
    ctx.attempt = a;
    // The answer kept for -o and the summary is this try's: a try that fails before its prompt leaves none, not
    // the failed try's partial text (found by review: the summary showed it as the answer).
    ctx.observer.newTurn();
    try {
      await answerOnce(ctx, a, prepared, ws);
      return a;
    } catch (e) {
      const error = toRhoError(e);
      if (n > opts.retries || !retriable(ctx, error)) throw e;
      // A question of this try still on the screen closes now: its agent is gone, and the output it holds
      // would otherwise hold the next try (found by review: its reader stopped for good past the bound).
      a.requests.endQuestions();
      const retryInMs = retryWaitMs(n, timing);
      emit(ctx, {
        type: 'attempt',
        attempt: n,
        error: { code: error.code, message: error.message },
        retryInMs,
      });
      ctx.out.flush();
      // The wait before the next try is rho-cursor's, and this try's agent is gone: its silence counts no more.
      a.stopIdle();
      await a.release();
      await ctx.stop.race(sleep(retryInMs, undefined, { signal: ctx.stop.signal }));
    }
  }
}

// One try: the handshake, the mode, then the prompt once the ledger's snapshot is taken. Under --retries an
// answer that reads as an API error is a failure: retried while tries are left, then the run's error.
async function answerOnce(ctx: RunContext, a: Attempt, prepared: Prepared, ws: Workspace): Promise<void> {
  const { opts } = ctx;
  await shakeHands(ctx, a, prepared);
  const mode = opts.plan ? 'plan' : opts.mode;
  if (mode !== undefined) await enterMode(ctx, a, mode);
  const text = prepared.schema ? opts.prompt + '\n' + schemaInstruction(prepared.schema) : opts.prompt;
  // The snapshot is rho-cursor's own wait (a large workspace takes seconds): not the agent's silence (found
  // by review: --idle-timeout fired before the prompt was sent).
  const resumeIdle = a.pauseIdle();
  try {
    await ctx.stop.race(ws.ledger.ready());
  } finally {
    resumeIdle();
  }
  await promptTurn(ctx, a, promptBlocks(text, opts.attachments, a.promptCaps));
  const apiError = a.stopReason === 'end_turn' ? replyReadsAsError(ctx.observer.replyHead) : undefined;
  if (!apiError || opts.retries === 0) return;
  throw new RhoError('reply_error', `the answer reads as an API error (--retries): ${apiError}`);
}

// What --retries tries again: the agent gone, the prompt answered with an error, or an answer that reads as
// an API error; only before any tool started and before any request was allowed (a permission's allow
// option, a plan accepted: what it allowed may have run, with or without a toolCallId, found by review), so
// nothing it did can have changed anything; never what a stop caused.
function retriable(ctx: RunContext, e: RhoError): boolean {
  if (ctx.stop.cause !== undefined) return false;
  if (ctx.facts.turnToolCalls !== 0 || ctx.tools.held !== 0 || ctx.facts.allowed !== 0) return false;
  if (e.code === 'agent_exited' || e.code === 'agent_closed' || e.code === 'reply_error') return true;
  return e.code === 'rpc_error' && ctx.phase === 'prompt';
}
