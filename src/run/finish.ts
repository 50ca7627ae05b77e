// The end of a run, however it went: every tool in a final state, what changed (the ledger), the outcome,
// the one `result` event (always last), the reports, and the error line on stderr.
import { deliverReports } from '../ci/deliver.js';
import type { WorktreeInfo } from '../changes/run.js';
import { RhoError, type ExitCode } from '../errors.js';
import type { ResultEvent } from '../events/types.js';
import { replyReadsAsError } from '../session.js';
import { stopError } from '../stop.js';
import { ANSWER_KEPT_MAX } from '../events/facts.js';
import { emit, endChunks, readerGiveUp, warn, type RunContext } from './context.js';
import { outcome, type Outcome, type OutcomeFacts } from './outcome.js';

/** What the ledger measured after the turn. */
interface Measured {
  breach: RhoError | undefined;
  /** The promise the run's own end kept the ledger from checking (its look ended), if any. */
  unchecked: string | undefined;
  changes: ResultEvent['changes'];
  patch: string | null;
}

/** `armEnd`: starts the end's bound (--timeout's deadline), once the agent is gone. */
export async function finish(
  ctx: RunContext,
  thrown: RhoError | undefined,
  armEnd: () => void = () => {},
): Promise<ExitCode> {
  const { out, opts, stop } = ctx;
  const a = ctx.attempt;
  ctx.phase = 'teardown';
  if (a) {
    a.accepting = false;
    // A question still open says how the run was stopped (a fatal signal: Ctrl-\ ends it with no cancel).
    a.requests.endQuestions(stop.error()?.message);
    a.conn.close(new RhoError('cancelled', 'the run is over'));
    // Nothing more is asked of the agent: its kill ladder starts now. Its step stays on the teardown stack,
    // which waits for it (and reports its failure) in turn.
    a.release().catch(() => {});
  }
  // A turn ends its held text itself; this covers a run that stopped mid-turn some other way.
  endChunks(ctx);
  closeTools(ctx);
  // The ledger looks (and a worktree's patch is taken), and the reports (-o, the summary, the step outputs)
  // are written, once the agent and everything it started are gone: its kill ladder done, the cgroup's
  // removal left to the teardown. A process of the agent that writes as it is told to end (a SIGTERM trap)
  // changed the workspace after a look taken while it died (found by review: a file written 0.3 s after the
  // SIGTERM, exit 0 under --fence read-only), and could replace a report written meanwhile.
  const ws = ctx.workspace;
  const looks = ctx.prompted && (ws?.ledger.looks === true || ws?.worktree !== undefined);
  const reports = Object.keys(ctx.reportPins ?? {}).length > 0 || opts.github;
  // Bounded by the ladder itself (its grace, then SIGKILL), by a second signal, and, for an agent that cannot
  // die (a process stuck in the kernel), twice the kill grace: it does not hold the result. Not by the grace a
  // timed-out run gives its readers (readerGiveUp): that ran out with the ladder's own grace, and the look then
  // raced the SIGKILL (found by review: files written after the look under --timeout, exit 124, no breach).
  if (a && (looks || reports)) {
    ctx.agentEnd = 'waiting';
    const bound = AbortSignal.timeout(2 * ctx.timing.killGraceMs);
    await untilAborted(a.agent.gone, AbortSignal.any([ctx.abandon.signal, bound]));
    ctx.agentEnd = undefined;
  }
  armEnd();
  // Measured once every tool has its final state, so a tool shown rejected that the ledger shows ran is
  // corrected.
  const measured = await closeLedger(ctx);
  await restoreRunnerFiles(ctx);
  const facts: OutcomeFacts = {
    stopReason: a?.stopReason ?? null,
    breach: measured.breach,
    stopped: stop.error(),
    thrown,
    side: ctx.sideFailure,
    unchecked: uncheckedError(ctx, measured.unchecked),
    strict: opts.strict ? strictFailure(ctx) : undefined,
  };
  if (ctx.facts.answerCut)
    warn(
      ctx,
      'answer-cut',
      `the answer passed ${ANSWER_KEPT_MAX / 1024 / 1024} MiB: -o is not written and --output-schema takes no value from it; the summary and json's text have its first ${ANSWER_KEPT_MAX / 1024 / 1024} MiB (text and stream-json wrote it whole to stdout)`,
    );
  let result = resultEvent(ctx, outcome(facts), measured);
  // The files a script or a CI job reads (-o, the summary, $GITHUB_OUTPUT): a failure to write them fails the run.
  const delivery = await deliverReports(
    opts,
    ctx.io.env,
    { result, facts: ctx.facts, structured: ctx.structured },
    readerGiveUp(ctx),
    ctx.reportPins,
  );
  if (delivery) {
    const o = outcome({ ...facts, delivery });
    result = resultEvent(ctx, o, measured);
    for (const e of o.alsoSay) out.line(`rho-cursor: ${e.message}`);
  }
  // --timeout and --idle-timeout bound the run, its last writes included, and so does a signal meanwhile: a
  // reader that takes nothing does not hold it past them.
  await out.close(result, readerGiveUp(ctx));
  // stdout failed while the result itself was written (json writes everything at the end), or did not take it
  // before the deadline or a signal: a failure (exit 1) unless the run had failed before.
  const written =
    out.failure?.kind === 'write_failed' ? new RhoError('write_failed', out.failure.message) : undefined;
  const { error, exitCode } = outcome({ ...facts, delivery, written });
  // What was dropped is said once: as the error line when it is the run's error, else as a warning.
  if (out.dropped && error !== written) out.line(`rho-cursor: warning: ${out.dropped}`);
  // Outside text mode the error is also one line on stderr; a closed stdout is a quiet end.
  const quiet = out.failure?.kind === 'epipe' || error?.code === 'stdout_closed';
  if (error && !quiet && (out.plan.stderrLines || out.failure))
    out.line(`rho-cursor: ${result.error?.message ?? error.message}`);
  if (error) out.annotateError(result.error?.message ?? error.message);
  return exitCode;
}

// The runner's file commands (GITHUB_ENV, GITHUB_PATH, ...) as they were before the agent: read once the
// agent and its processes are gone (its kill ladder waited for here, under GitHub Actions only), before
// rho-cursor writes its own outputs. A later step would have run with what the agent put there.
async function restoreRunnerFiles(ctx: RunContext): Promise<void> {
  if (!ctx.runnerFiles) return;
  await ctx.attempt?.release().catch(() => {});
  for (const c of ctx.runnerFiles.check()) {
    const what = `the agent wrote $${c.name}, the runner's file for later steps`;
    warn(
      ctx,
      'runner-file-written',
      c.restored
        ? `${what}: put back as it was before the run`
        : `${what}, and it could not be put back: ${c.path}`,
    );
    // A later step would read what the agent wrote: the run fails, so the job stops at this step.
    if (!c.restored)
      ctx.sideFailure ??= new RhoError('write_failed', `${what}, and it could not be put back`);
  }
}

// Every tool ends in a final state (the store says which): the same for an edit Codex reports in progress
// as for a pending shell command; one the agent left unfinished keeps its last word as reportedStatus, so the
// outputs can say the agent never finished it.
function closeTools(ctx: RunContext): void {
  const stopped = ctx.attempt?.stopReason === 'cancelled' || ctx.stop.cause !== undefined;
  for (const t of ctx.tools.close(stopped)) emit(ctx, t);
}

// After the turn: what changed (the ledger), the tools shown rejected that ran, the patch of a worktree;
// with the breach, if any.
async function closeLedger(ctx: RunContext): Promise<Measured> {
  const ws = ctx.workspace;
  if (!ws) return { breach: undefined, unchecked: undefined, changes: null, patch: null };
  const { opts, out } = ctx;
  const o = await ws.ledger.finish(opts, ctx.prompted, ws.worktree, readerGiveUp(ctx), ctx.reportPins?.patch);
  for (const t of o.corrected) emit(ctx, t);
  for (const w of o.warnings) warn(ctx, w.code, w.message);
  ctx.sideFailure ??= o.failure;
  if (ws.worktree && opts.keepWorktree && !opts.quiet)
    out.line(
      `rho-cursor: the worktree is kept at ${ws.worktree.dir} (a repository of its own: removing ${ws.worktree.tmp} removes it)`,
    );
  return { breach: o.breach, unchecked: o.unchecked, changes: o.changes ?? null, patch: o.patch ?? null };
}

// A promise only the ledger checks, its look ended by the run's own end: a run its stop had stopped ends as the
// stop (its error already); one whose turn was over when a signal or the --timeout deadline cut the look is not
// a success either (nothing was checked): it ends as that cut, naming what it kept from being checked.
function uncheckedError(ctx: RunContext, promise: string | undefined): RhoError | undefined {
  if (promise === undefined || ctx.stop.cause !== undefined || ctx.endCut === undefined) return undefined;
  const e = stopError(ctx.endCut, ctx.opts.timeoutMs);
  return new RhoError(e.code, `${e.message} before ${promise} could be checked`, { exitCode: e.exitCode });
}

// The one `result` event for the run as it stands.
function resultEvent(ctx: RunContext, { error, exitCode }: Outcome, m: Measured): ResultEvent {
  const a = ctx.attempt;
  const wt = ctx.workspace?.worktree;
  const worktree: WorktreeInfo | undefined = wt ? { path: wt.dir, kept: wt.kept === true } : undefined;
  return {
    type: 'result',
    stopReason: a?.stopReason ?? null,
    exitCode,
    sessionId: a?.sessionId ?? null,
    model: a?.update.model ?? null,
    mode: a?.update.mode ?? null,
    title: a?.update.title ?? null,
    durationMs: Math.round(ctx.io.now() - ctx.t0),
    timings: a?.timings ?? { initializeMs: null, sessionNewMs: null, promptMs: null },
    usage: a?.update.usage ?? null,
    structured: ctx.structured ?? null,
    changes: m.changes,
    patch: m.patch,
    ...(worktree ? { worktree } : {}),
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
function strictFailure(ctx: RunContext): RhoError | undefined {
  const apiError = replyReadsAsError(ctx.observer.replyHead);
  if (apiError)
    return new RhoError('reply_error', `the answer reads as an API error (--strict): ${apiError}`);
  if (ctx.facts.denied())
    return new RhoError('denied', 'a permission was rejected or a tool was blocked (--strict)');
  return undefined;
}

// Waits for the promise, or until the signal is aborted (at once if it is).
function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(), { once: true });
    void p.then(resolve);
  });
}
