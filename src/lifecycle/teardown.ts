// One teardown stack for a run: every resource registers how it is released, and the normal end, every
// signal and the process exit hook all drain the same stack, so nothing is released twice or forgotten.

export interface TeardownStep {
  /** For error messages: what this step releases ("agent", "fence dir", "wire log"). */
  name: string;
  /** The normal release; may wait (the kill ladder, flushing a file). */
  run(): Promise<void> | void;
  /** A synchronous last resort for the process exit hook, where nothing can be awaited. */
  runSync?(): void;
}

export class Teardown {
  private readonly steps: TeardownStep[] = [];
  private draining: Promise<void> | undefined;
  /** The step drain() is waiting on, off the stack but not yet released: the exit hook must still see it. */
  private running: TeardownStep | undefined;

  // Registers a release; steps run last-registered first. Returns a function that runs this step now, once.
  defer(step: TeardownStep): () => Promise<void> {
    let done: Promise<void> | undefined;
    let finished = false;
    const once: TeardownStep = {
      name: step.name,
      run: () =>
        (done ??= Promise.resolve()
          .then(() => step.run())
          .finally(() => {
            finished = true;
          })),
      // Also while run() is still waiting (a kill ladder in its grace): the exit hook cannot wait for it.
      runSync: () => {
        if (finished) return;
        finished = true;
        done ??= Promise.resolve();
        step.runSync?.();
      },
    };
    this.steps.push(once);
    return () => once.run() as Promise<void>;
  }

  // Runs every step, newest first; one failing step never keeps the others from running.
  drain(onError: (name: string, err: unknown) => void = () => {}): Promise<void> {
    this.draining ??= (async () => {
      while (this.steps.length > 0) {
        const step = this.steps.pop()!;
        this.running = step;
        try {
          await step.run();
        } catch (err) {
          onError(step.name, err);
        } finally {
          this.running = undefined;
        }
      }
    })();
    return this.draining;
  }

  // The exit hook's path: only what can be done synchronously, for every step not yet released.
  drainSync(): void {
    const pending = [...this.steps].reverse();
    if (this.running) pending.unshift(this.running);
    for (const step of pending) {
      try {
        step.runSync?.();
      } catch {
        // the process is going down: nothing better to do
      }
    }
    this.steps.length = 0;
  }
}
