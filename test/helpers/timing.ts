// Shorter waits for a built CLI (RHO_CURSOR_TEST_TIMING), for tests that need the ladder to run, not to last.
import { TIMING_ENV, type Timing } from '../../src/lifecycle/timing.js';

/** Graces a hostile agent sits out in full: long enough to be a real wait, short enough not to cost seconds. */
export const SHORT_GRACE = { killGraceMs: 300, cancelGraceMs: 300 } as const;

// The environment entry that gives the CLI these waits instead of the product's.
export function testTiming(t: Partial<Timing>): Record<string, string> {
  return { [TIMING_ENV]: JSON.stringify(t) };
}
