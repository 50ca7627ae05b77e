// Pure: why a run was stopped before its turn ended, and the error (and exit code) each cause maps to.
import { constants } from 'node:os';
import { EXIT, RhoError, type ExitCode } from './errors.js';
import { MAX_HELD_TOOLS } from './events/tools.js';

/** Signals that cancel the turn (session/cancel, a grace, then the kill ladder). */
export const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/**
 * The other signals whose default action ends the process (signal(7)), as Node names them on Linux: no grace,
 * the agent is ended at once, the result still written. Not here: SIGKILL (nothing can catch it); SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL and SIGTRAP, which a fault raises in the thread that faulted (SIGTRAP by a trap
 * instruction, V8's own crash among them: `brk` on arm64), where a listener that returns runs the same
 * instruction again, so a crash would spin rather than end (Node's docs warn of the first four); SIGUSR1 and
 * SIGXFSZ, taken and ignored (lifecycle/signals.ts); SIGPIPE, which Node ignores; SIGIOT and SIGPOLL, other
 * names of SIGABRT and SIGIO (a listener on both would see each signal twice, a second signal). The
 * real-time signals have no name in Node, so no listener. SIGABRT is safe to answer: abort() in this
 * process still ends it (it raises SIGABRT again at its default once a handler returns).
 */
export const FATAL_SIGNALS = [
  'SIGQUIT',
  'SIGUSR2',
  'SIGALRM',
  'SIGXCPU',
  'SIGABRT',
  'SIGSTKFLT',
  'SIGVTALRM',
  'SIGPROF',
  'SIGIO',
  'SIGPWR',
  'SIGSYS',
] as const;
export type StopSignal = (typeof CANCEL_SIGNALS)[number] | (typeof FATAL_SIGNALS)[number];

// Node's flags that start V8's CPU profiler before any script runs: its samples are SIGPROF, many a second,
// delivered to this process. A listener subscribed after the profiler started takes the signal from it, and
// every sample would end the run (`node --cpu-prof bin/rho-cursor …` ended by SIGPROF at once, and no
// profile). A profiler started later (the inspector's) takes SIGPROF back from the listener, and gives it
// back when it stops, so it is no reason to leave SIGPROF. Nothing else sends SIGPROF to a process that is
// not profiling itself: answering it elsewhere costs nothing.
const PROFILER_FLAGS = ['--cpu-prof', '--prof', '--prof-cpp'];

/** The signals a run answers, given Node's flags (process.execArgv and NODE_OPTIONS's words). */
export function answeredSignals(nodeFlags: readonly string[]): StopSignal[] {
  // Node takes `_` for `-` in its flags' names.
  const profiled = nodeFlags.some((f) => PROFILER_FLAGS.includes(f.split('=')[0]!.replaceAll('_', '-')));
  const fatal = FATAL_SIGNALS.filter((s) => !(profiled && s === 'SIGPROF'));
  return [...CANCEL_SIGNALS, ...fatal];
}

export type StopCause =
  StopSignal | 'timeout' | 'idle' | 'epipe' | 'write_failed' | 'max_tool_calls' | 'tools_held';

export { MAX_HELD_TOOLS };

export interface StopFacts {
  timeoutMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  maxToolCalls?: number | undefined;
  /** Every tool is kept for the output (json), not only the unfinished ones. */
  keepsTools?: boolean | undefined;
  /** What could not be written, for write_failed. */
  writeFailure?: string | undefined;
}

// Does this cause end the run at once, with no grace for the agent to wind the turn down?
export const isImmediate = (cause: StopCause): boolean =>
  (FATAL_SIGNALS as readonly string[]).includes(cause);

// Is this cause a person's or a supervisor's signal (a second one ends the run at once)?
export const isSignal = (cause: StopCause): cause is StopSignal => cause.startsWith('SIG');

// Formats milliseconds the way the options take them.
export const fmtMs = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

// The shell's convention: 128 + the signal's number.
const signalExit = (s: StopSignal): ExitCode => (128 + (constants.signals[s] ?? 0)) as ExitCode;
// `1 tool call`, `2 tool calls`.
const toolCalls = (n: number): string => `${n} tool call${n === 1 ? '' : 's'}`;

export function stopError(cause: StopCause, facts: StopFacts | number = {}): RhoError {
  const f: StopFacts = typeof facts === 'number' ? { timeoutMs: facts } : facts;
  switch (cause) {
    case 'timeout':
      return new RhoError('run_timeout', `the run exceeded --timeout ${fmtMs(f.timeoutMs ?? 0)}`);
    case 'idle':
      return new RhoError(
        'idle_timeout',
        `the agent sent nothing for ${fmtMs(f.idleTimeoutMs ?? 0)} (--idle-timeout)`,
      );
    case 'epipe':
      return new RhoError('stdout_closed', 'stdout was closed');
    case 'max_tool_calls':
      return new RhoError(
        'max_tool_calls',
        `the turn started more than ${toolCalls(f.maxToolCalls ?? 0)} (--max-tool-calls)`,
      );
    case 'write_failed':
      return new RhoError('write_failed', f.writeFailure ?? 'cannot write the output');
    case 'tools_held':
      return new RhoError(
        'protocol',
        f.keepsTools
          ? `the agent made more than ${MAX_HELD_TOOLS} tool calls, each kept for the json output (stream-json keeps none once finished)`
          : `the agent left more than ${MAX_HELD_TOOLS} tool calls unfinished (pending, in progress, or completed with no output)`,
      );
    default: {
      const exitCode = cause === 'SIGINT' ? EXIT.sigint : signalExit(cause);
      const how = isImmediate(cause) ? 'ended' : 'cancelled';
      return new RhoError('cancelled', `${how} by ${cause}`, { exitCode });
    }
  }
}
