// Every test, and every rho-cursor and agent they start, makes its temporary files under one directory of
// this run's own (TMPDIR, which os.tmpdir() reads), removed when the run ends: thousands of test runs'
// worth of homes, config dirs and fixtures must not pile up in the machine's /tmp. Nor does any of them load
// extra CA certificates (below).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'rho-vitest-'));
  process.env.TMPDIR = dir;
  // Every Node process started with NODE_EXTRA_CA_CERTS set reads and parses that bundle of certificates
  // before running a line (~24 ms of CPU each where it names the system's whole CA bundle, as on this
  // project's machines). No process of the suite speaks TLS, and the suite starts about a thousand of them.
  const caCerts = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (caCerts !== undefined) process.env.NODE_EXTRA_CA_CERTS = caCerts;
    rmSync(dir, { recursive: true, force: true });
  };
}
