// Every test, and every rho-cursor and agent they start, makes its temporary files under one directory of
// this run's own (TMPDIR, which os.tmpdir() reads), removed when the run ends: thousands of test runs'
// worth of homes, config dirs and fixtures must not pile up in the machine's /tmp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'rho-vitest-'));
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
