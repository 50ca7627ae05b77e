// The lifecycle of a command that is not a run (doctor, sessions), the same as a run's: the signals it
// answers and the exit hook, one teardown stack that releases the agent on every path, and one AbortSignal,
// aborted with the signal's error (exit 130, 143...), that every wait takes.
import { stopError } from '../stop.js';
import { onProcessExit, onStopSignals } from './signals.js';
import { Teardown } from './teardown.js';

export interface Lifecycle {
  teardown: Teardown;
  signal: AbortSignal;
}

// Runs body within the lifecycle; the teardown is drained when it settles, however it does.
export async function withLifecycle<T>(body: (life: Lifecycle) => Promise<T>): Promise<T> {
  const teardown = new Teardown();
  const abort = new AbortController();
  const offSignals = onStopSignals((s) => {
    // A second signal ends what is left at once.
    if (abort.signal.aborted) teardown.drainSync();
    else abort.abort(stopError(s));
  });
  const offExit = onProcessExit(() => teardown.drainSync());
  try {
    return await body({ teardown, signal: abort.signal });
  } finally {
    await teardown.drain();
    offExit();
    offSignals();
  }
}
