// What lives as long as the run: its options and I/O, the output, the teardown stack, the stop spine, the
// tools and facts every try adds to, and the try under way. A try's own state is its Attempt (attempt.ts).
import { cursorAtSpawn, identify, type AgentIdentity } from '../agent/identity.js';
import { Cancel } from '../cancel.js';
import type { LoadedConfig } from '../config/load.js';
import type { Warning } from '../config/warnings.js';
import type { RhoError } from '../errors.js';
import { RunFacts } from '../events/facts.js';
import { KeyChunks } from '../events/key-chunks.js';
import { ToolStore } from '../events/tools.js';
import type { Event } from '../events/types.js';
import { Teardown } from '../lifecycle/teardown.js';
import { TIMING, type Timing } from '../lifecycle/timing.js';
import type { RunOptions } from '../options.js';
import type { Asker } from '../policy/ask.js';
import { Output } from '../render/output.js';
import { planOutput } from '../render/plan.js';
import { fmtMs, type StopSignal } from '../stop.js';
import type { SchemaChecker } from '../structured/checker.js';
import type { RunLedger } from '../changes/run.js';
import type { FileId } from '../ci/console.js';
import type { Worktree } from '../changes/worktree.js';
import type { RunnerFiles } from '../ci/runner-files.js';
import type { ReportPins } from '../ci/targets.js';
import type { WireLog } from '../wirelog.js';
import type { Attempt } from './attempt.js';
import { RunObserver } from './observer.js';

export interface RunIO {
  env: NodeJS.ProcessEnv;
  home: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  now: () => number;
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
  /** The regular files stdout and stderr go to (`> plan.md`): rho-cursor's own output, not the agent's changes. */
  consoleFiles?: readonly FileId[];
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
  | 'validation'
  | 'teardown';

/** What the run's first steps settle, once, for every try: read before anything is spawned. */
export interface Prepared {
  config: LoadedConfig;
  /** --output-schema, compiled in its worker. */
  schema: SchemaChecker | undefined;
  /** How the agent is started, for every try. */
  launch: { path: string; args: string[]; env: NodeJS.ProcessEnv };
  /** The agent got Cursor's private config dir for the fence and the rules (Cursor by its name at spawn). */
  privateDir: boolean;
  /** --model went on the command line (`--model M`, Cursor by its name at spawn). */
  modelFlag: boolean;
  wire: WireLog | undefined;
}

/** The workspace once open: what the ledger measures and, with --worktree, where the agent works. */
export interface Workspace {
  /** What the agent changed, measured: snapshotted before the prompt, compared after the turn. */
  ledger: RunLedger;
  worktree: Worktree | undefined;
}

export interface RunContext {
  /** The run's options; with --worktree, its cwd is the worktree's once that is made (openWorkspace). */
  opts: RunOptions;
  readonly io: RunIO;
  readonly t0: number;
  /** The run's waits (graces, backoff, quiet periods): the product's defaults unless a test injects its own. */
  readonly timing: Readonly<Timing>;
  readonly out: Output;
  readonly teardown: Teardown;
  /** The stop spine: every stop cause, the grace, and the races every wait runs against. */
  readonly stop: Cancel;
  /** Aborted by a signal during teardown (its reason: `before SIGINT`, say): every wait on a reader that takes
   * nothing stops (readerGiveUp). */
  readonly abandon: AbortController;
  /** Aborted the kill grace after the --timeout deadline, when it passes during the end (armDeadline). */
  readonly deadline: AbortController;
  /** What first cut the end's waits in a run no stop had stopped (its turn over): a signal during teardown, or
   * the --timeout deadline; how the run ended is not changed by it, only what it keeps from being done. */
  endCut: StopSignal | 'timeout' | undefined;
  /** The end waits for the agent to be gone before it looks (finish): 'waiting' while it does, 'hurried' once
   * a signal meanwhile only hurried the agent's end (onSignal). */
  agentEnd: 'waiting' | 'hurried' | undefined;
  readonly tools: ToolStore;
  /** Small facts about the run for what is reported after the turn (summary, -o, --strict). */
  readonly facts: RunFacts;
  /** Sees every event once it is drawn: the facts, the ledger's account, --max-tool-calls. */
  readonly observer: RunObserver;
  /** The key masked in streamed text across chunks, before the output or the observer sees it. */
  readonly keyChunks: KeyChunks;
  /** Warnings found before the output opened, shown once the handshake starts. */
  readonly warnings: Warning[];
  /** The warnings of the user's Cursor config: shown only once the agent is known to be Cursor. */
  cursorWarnings: Warning[];
  phase: Phase;
  /** Is the agent Cursor? The guess from its name at spawn, then what initialize says. */
  identity: AgentIdentity;
  /** The workspace once open (openWorkspace); the end measures it however far the run got. */
  workspace: Workspace | undefined;
  /** The try under way (--retries); undefined before the first agent is spawned. */
  attempt: Attempt | undefined;
  /** A failure that does not stop the turn but fails the run (the wire log could not be written). */
  sideFailure: RhoError | undefined;
  /** The value validated against --output-schema; undefined until one matched (a valid value may be null). */
  structured: unknown;
  /** The exit code once decided (for the wire log's closing row). */
  exitCode: number | undefined;
  /** A prompt was sent in this run (by any try): the agent may have changed something since. */
  prompted: boolean;
  /** Under GitHub Actions, the runner's file commands as they were before the first agent started. */
  runnerFiles: RunnerFiles | undefined;
  /** Where -o and the summary led before the first agent started (undefined until then: none started). */
  reportPins: ReportPins | undefined;
}

export function newRunContext(opts: RunOptions, io: RunIO, timing: Readonly<Timing> = TIMING): RunContext {
  const plan = planOutput({ ...opts, stdoutIsFile: io.stdoutIsFile });
  // Only the json output prints finished tools; text and stream-json let them go (memory flat in a turn).
  const tools = new ToolStore(plan.collect);
  const keepAnswer = Boolean(opts.outputLastMessage || opts.summaryFile || opts.outputSchema);
  const facts = new RunFacts(keepAnswer);
  const out = new Output({
    plan,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    style: opts,
    discardInput: opts.interactive,
  });
  const ctx: RunContext = {
    opts,
    io,
    t0: io.now(),
    timing,
    out,
    teardown: new Teardown(),
    stop: new Cancel({
      graceMs: timing.cancelGraceMs,
      timeoutMs: opts.timeoutMs,
      facts: () => ({
        idleTimeoutMs: opts.idleTimeoutMs,
        maxToolCalls: opts.maxToolCalls,
        keepsTools: plan.collect,
        writeFailure: out.failure?.kind === 'write_failed' ? out.failure.message : undefined,
      }),
      killNow: () => ctx.attempt?.agent.killNow(),
      cancelTurn: () => {
        out.stopSpinner();
        return ctx.attempt?.cancelTurn(ctx.phase) ?? false;
      },
    }),
    abandon: new AbortController(),
    deadline: new AbortController(),
    endCut: undefined,
    agentEnd: undefined,
    tools,
    facts,
    observer: new RunObserver(tools, facts, opts),
    keyChunks: new KeyChunks(io.env.CURSOR_API_KEY),
    warnings: [],
    cursorWarnings: [],
    phase: 'config',
    identity: identify(cursorAtSpawn(opts.agent, opts.agentArgs)),
    workspace: undefined,
    attempt: undefined,
    sideFailure: undefined,
    structured: undefined,
    exitCode: undefined,
    prompted: false,
    runnerFiles: undefined,
    reportPins: undefined,
  };
  // A stdout that fails (a reader gone, a full disk) stops the run; the output only reports it.
  void out.failed.then((f) => ctx.stop.stop(f.kind));
  return ctx;
}

// Every event of the run passes here, one way: with a key set, its streamed text is masked across chunks
// first (events/key-chunks.ts); the output draws it and returns it as drawn (surrogates joined; nothing for
// what it dropped), the observer takes that, and a stop it asks for is acted on last.
export function emit(ctx: RunContext, e: Event): void {
  if (!ctx.keyChunks.active) return pass(ctx, e);
  for (const masked of ctx.keyChunks.take(e)) pass(ctx, masked);
}

// The end of a turn: what the key's masking held back of the streamed text is the turn's too.
export function endChunks(ctx: RunContext): void {
  if (ctx.keyChunks.active) for (const held of ctx.keyChunks.drain()) pass(ctx, held);
}

function pass(ctx: RunContext, e: Event): void {
  const seen = ctx.out.emit(e);
  const stop = seen && ctx.observer.observe(seen, ctx.phase);
  if (stop) ctx.stop.stop(stop);
}

// A warning: an event, and outside text mode also a line on stderr (the output decides where it goes).
export function warn(ctx: RunContext, code: string, message: string, line?: string): void {
  const seen = ctx.out.warn(code, message, line);
  if (seen) ctx.observer.observe(seen, ctx.phase);
}

// When to stop waiting on a reader that takes nothing (stdout, or a FIFO or pipe the wire log or a report goes
// to): at a signal during teardown (the abort's reason says which); in a run that timed out (--timeout or
// --idle-timeout), once the kill grace from the wait's start is spent; and in a run whose turn ended in time,
// the kill grace after its --timeout deadline (ctx.deadline): the deadline bounds the whole run.
export function readerGiveUp(ctx: RunContext): AbortSignal {
  const timedOut = ctx.stop.cause === 'timeout' || ctx.stop.cause === 'idle';
  if (!timedOut) return AbortSignal.any([ctx.abandon.signal, ctx.deadline.signal]);
  const ms = ctx.timing.killGraceMs;
  const grace = new AbortController();
  setTimeout(() => grace.abort(`within ${fmtMs(ms)} of the timeout`), ms).unref();
  return AbortSignal.any([ctx.abandon.signal, grace.signal]);
}
