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
  private stopNow: (e: RhoError) => void = () => {};

  constructor(private readonly hooks: CancelHooks) {
    this.stopped = new Promise<never>((_, reject) => {
      this.stopNow = reject;
    });
    this.stopped.catch(() => {});
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
