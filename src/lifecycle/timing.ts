// The run's own waits in one place: every grace, backoff and quiet period, and the clock they are measured
// on. The defaults are the product's; RHO_CURSOR_TEST_TIMING lets the test suite shorten them for a built
// CLI, so a test that only needs "the ladder ran" does not wait seconds for it.

export interface Timing {
  /** The kill ladder's SIGTERM-to-SIGKILL grace; also how long a timed-out run waits on a reader. */
  killGraceMs: number;
  /** How long a cancelled turn may take to end before the run stops waiting for it. */
  cancelGraceMs: number;
  /** --retries: the wait after the first failed try; each later one doubles, up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A loaded session's replay is over once the agent is quiet this long (at most replayMaxMs). */
  replayQuietMs: number;
  replayMaxMs: number;
  /** doctor: how long `<agent> --version` may take before it is reported as failed. */
  versionTimeoutMs: number;
  /** --output-schema: how long the schema's compile (its worker's start included) may take. */
  schemaCompileMs: number;
  /** --output-schema: how long each check of an answer may take in its worker. */
  schemaCheckMs: number;
}

/** What the waits measure elapsed time with (Date.now unless a test gives its own). */
export type Clock = () => number;

export const DEFAULT_TIMING: Readonly<Timing> = Object.freeze({
  killGraceMs: 2000,
  cancelGraceMs: 2000,
  retryBaseMs: 1000,
  retryMaxMs: 30_000,
  replayQuietMs: 150,
  replayMaxMs: 5000,
  versionTimeoutMs: 5000,
  schemaCompileMs: 15_000,
  schemaCheckMs: 15_000,
});

/** A testing knob, not a user option: a JSON object of Timing fields, ignored unless it parses. */
export const TIMING_ENV = 'RHO_CURSOR_TEST_TIMING';

// The defaults with the overrides in text applied; anything but an object of known, non-negative
// finite numbers leaves every default as it is (a half-applied typo would be worse than none).
export function parseTiming(text: string | undefined, base: Readonly<Timing> = DEFAULT_TIMING): Timing {
  if (text === undefined || text === '') return { ...base };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ...base };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ...base };
  const entries = Object.entries(value as Record<string, unknown>);
  const valid = entries.every(
    ([k, v]) => Object.hasOwn(base, k) && typeof v === 'number' && Number.isFinite(v) && v >= 0,
  );
  return valid ? { ...base, ...(Object.fromEntries(entries) as Partial<Timing>) } : { ...base };
}

/** The timing of this process: the defaults, or the test suite's overrides. */
export const TIMING: Readonly<Timing> = Object.freeze(parseTiming(process.env[TIMING_ENV]));

export const systemClock: Clock = () => Date.now();

/** Milliseconds on a monotonic clock (only differences mean anything): process.hrtime, not the global
 * `performance`, whose first use loads node:perf_hooks and eight modules behind it (~2 ms of every start). */
export const monotonicMs: Clock = () => Number(process.hrtime.bigint()) / 1e6;

// A synchronous wait, for the exit hook and the end of the output, which cannot await.
const pause = new Int32Array(new SharedArrayBuffer(4));
export const sleepSync = (ms: number): void => void Atomics.wait(pause, 0, 0, ms);

// --retries: the wait before try attempt + 1, doubling from retryBaseMs (1 s, 2 s, 4 s...) up to retryMaxMs.
export function retryWaitMs(attempt: number, t: Readonly<Timing> = TIMING): number {
  return Math.min(t.retryMaxMs, t.retryBaseMs * 2 ** (attempt - 1));
}
