// Runs a command on a pseudo-terminal through test/helpers/pty-driver.py, playing a script of waits and keys.
import { execa } from 'execa';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './agent-path.js';

const DRIVER = join(REPO_ROOT, 'test', 'helpers', 'pty-driver.py');

// The system's Python 3 by its path: a version manager's `python3` on PATH (pyenv's shim) is a shell script
// that costs ~300 ms of CPU before Python starts.
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'].find((p) => existsSync(p));

/** Python 3 is there to drive a pty (its pty module); tests skip cleanly without it. */
export const hasPty = PYTHON !== undefined;

/**
 * Wait until the screen (after the last match) shows text, or until a file contains text; let a duration
 * the test asserts pass (milliseconds); type keys; signal the child's process group; close the terminal
 * (the last step: the driver then only waits for the child's end).
 */
export type PtyStep =
  | { wait: string; timeout?: number }
  | { file: string; contains: string; timeout?: number }
  | { pause: number }
  | { send: string }
  | { signal: string }
  | { hangup: true };

export interface PtyRun {
  /** Everything the terminal showed, ANSI sequences included, with \r\n line ends. */
  screen: string;
  code: number;
  /** The wait that never matched, if any. */
  failed: { step: number; wait: string } | null;
}

// Plays steps against argv on a cols x rows terminal; the watchdog is per wait (the driver's own timeout).
export async function onPty(
  argv: string[],
  steps: PtyStep[],
  o: { env?: Record<string, string | null>; cols?: number; rows?: number } = {},
): Promise<PtyRun> {
  const r = await execa(PYTHON ?? 'python3', [DRIVER], {
    input: JSON.stringify({
      argv,
      steps,
      env: o.env ?? {},
      cols: o.cols ?? 120,
      rows: o.rows ?? 40,
      timeout: 15,
    }),
    reject: false,
    timeout: 60_000,
  });
  if (r.exitCode !== 0) throw new Error(`pty driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PtyRun;
}

// A fresh dir for a run's config and replay log.
export function ptyDir(): string {
  return mkdtempSync(join(tmpdir(), 'rho-pty-'));
}
