// Pure: the run's error and exit code from what happened, in one place, ranked. Called as the facts come in
// (after the turn, after the reports were written, after stdout took the result), never decided by the order
// of statements elsewhere.
import type { RhoError } from '../errors.js';
import { EXIT, exitForStopReason, stopReasonError, type ExitCode } from '../errors.js';

/** Everything the run's end knows that can decide its error; each absent when it did not happen. */
export interface OutcomeFacts {
  /** The turn's stopReason; null when no turn ended with one. */
  stopReason: string | null;
  /** The workspace changed where the run promised it could not (a fence, a rejected tool that ran). */
  breach?: RhoError | undefined;
  /** A stop: a signal, a timeout, a closed stdout, --max-tool-calls. */
  stopped?: RhoError | undefined;
  /** What the run's steps threw. */
  thrown?: RhoError | undefined;
  /** A failure beside the turn that did not stop it (the wire log, the patch). */
  side?: RhoError | undefined;
  /** A promise only the ledger checks (--fence read-only, Write rules) left unchecked: a signal or the --timeout
   * deadline after the turn ended the look (the stop's error: exit 130, 124...), in a run nothing stopped. */
  unchecked?: RhoError | undefined;
  /** --strict's verdict on a turn that ended normally. */
  strict?: RhoError | undefined;
  /** The reports (-o, the summary, $GITHUB_OUTPUT) could not be written. */
  delivery?: RhoError | undefined;
  /** stdout failed to take the output once the result was written to it. */
  written?: RhoError | undefined;
}

export interface Outcome {
  error: RhoError | undefined;
  exitCode: ExitCode;
  /** A failure that did not become the error (it lost to a higher one) but must still be said. */
  alsoSay: RhoError[];
}

// The ranking: a breach outranks everything; a stop decides the exit even if the agent failed meanwhile; then
// what was thrown, a side failure, a promise left unchecked, --strict, the stopReason's own error (refusal,
// max_tokens); the reports and the result's write fail only a run that had no error before them.
export function outcome(f: OutcomeFacts): Outcome {
  const strict = f.stopReason === 'end_turn' ? f.strict : undefined;
  const before =
    f.breach ?? f.stopped ?? f.thrown ?? f.side ?? f.unchecked ?? strict ?? stopReasonError(f.stopReason);
  const error = before ?? f.delivery ?? f.written;
  const alsoSay = before && f.delivery ? [f.delivery] : [];
  return { error, exitCode: error ? error.exitCode : exitForStopReason(f.stopReason ?? ''), alsoSay };
}

// A run whose output could not be written after its result went out still fails (exit 1, never 0).
export function afterTeardown(exitCode: ExitCode, stdoutWriteFailed: boolean): ExitCode {
  return stdoutWriteFailed && exitCode === EXIT.ok ? EXIT.agentFailed : exitCode;
}
