// The cancel ladder of a run: a first stop asks the agent to end its turn and allows a grace; a second
// signal, a fatal signal, or a stop outside a turn ends every wait at once.
import type { RhoError } from './errors.js';
import { isImmediate, isSignal, stopError, type StopCause, type StopFacts } from './stop.js';

export interface CancelHooks {
  /** Asks the agent to end the turn (session/cancel and pending answers); false when no turn is running. */
  cancelTurn(): boolean;
  /** Ends the agent now, for a second signal. */
  killNow(): void;
  graceMs: number;
  timeoutMs?: number | undefined;
  facts?: () => StopFacts;
}

export class Cancel {
  cause: StopCause | undefined;
  /** Rejects with the stop's error once waiting should end. */
  readonly stopped: Promise<never>;
  /** Aborted once waiting should end (with the stop's error as its reason): every wait of the run takes it. */
  readonly signal: AbortSignal;
  private readonly aborter = new AbortController();
  private stopNow: (e: RhoError) => void = () => {};
  /** The timers that stop the run (--timeout): cleared once the run's steps are over. */
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly hooks: CancelHooks) {
    this.signal = this.aborter.signal;
    this.stopped = new Promise<never>((_, reject) => {
      this.stopNow = (e) => {
        reject(e);
        this.aborter.abort(e);
      };
    });
    this.stopped.catch(() => {});
  }

  // Stops the run with `cause` after ms, unless its steps are over first (settle).
  stopAfter(ms: number, cause: StopCause): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.stop(cause);
    }, ms);
    this.timers.add(t);
  }

  // The run's steps are over: no timer stops it any more (its end is reported as it stands).
  settle(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // Waits for p unless the run is stopped first.
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.stopped]);
  }

  // The error and exit code the stop maps to, once there was one.
  error(): RhoError | undefined {
    if (this.cause === undefined) return undefined;
    return stopError(this.cause, { timeoutMs: this.hooks.timeoutMs, ...this.hooks.facts?.() });
  }

  stop(cause: StopCause): void {
    if (this.cause !== undefined) {
      // A second signal ends it at once; a later timeout or write failure changes nothing.
      if (isSignal(cause)) {
        this.hooks.killNow();
        this.stopNow(this.error()!);
      }
      return;
    }
    this.cause = cause;
    if (isImmediate(cause)) {
      this.hooks.killNow();
      this.stopNow(this.error()!);
    } else if (this.hooks.cancelTurn()) {
      setTimeout(() => this.stopNow(this.error()!), this.hooks.graceMs).unref();
    } else {
      this.stopNow(this.error()!);
    }
  }
}
