// --idle-timeout: fires when the agent has sent nothing for a while. Each line from the agent touches it;
// the check decides whether the silence counts (it does not while a person is still deciding).
import { systemClock, type Clock } from './timing.js';

export class IdleTimer {
  private last: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** rho-cursor waits on itself (the ledger's snapshot before the prompt): the agent owes nothing meanwhile. */
  private paused = false;

  constructor(
    private readonly ms: number,
    /** Called after ms of silence; returns false to keep waiting (the silence did not count). */
    private readonly onIdle: () => boolean,
    /** What the silence is measured on; a test gives its own. */
    private readonly now: Clock = systemClock,
  ) {
    this.last = now();
    this.arm(ms);
  }

  // The agent spoke: the silence starts again. Cheap on the hot path: only a timestamp.
  touch(): void {
    this.last = this.now();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  // rho-cursor, not the agent, is what the run waits on: no silence counts until resume().
  pause(): void {
    this.paused = true;
    if (this.timer) clearTimeout(this.timer);
  }

  // The run waits on the agent again: its silence starts now.
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.last = this.now();
    this.arm(this.ms);
  }

  // Sleeps until the silence could have lasted ms, then checks it really did.
  private arm(delay: number): void {
    if (this.stopped || this.paused) return;
    this.timer = setTimeout(() => {
      const quiet = this.now() - this.last;
      if (quiet < this.ms) return this.arm(this.ms - quiet);
      if (this.onIdle()) this.stopped = true;
      else {
        this.last = this.now();
        this.arm(this.ms);
      }
    }, delay);
    this.timer.unref();
  }
}
