// Is a path a terminal (`-o /dev/tty`, `--patch /dev/stderr` with stderr on one, a /dev/pts/N)? What goes
// there is drawn by the terminal like every line rho-cursor writes to one, so it must be made visible first.
// The path is opened for writing without blocking and without becoming the controlling terminal, asked, and
// closed; node:tty is loaded only then (most runs never ask).
import { closeSync, constants, openSync, statSync } from 'node:fs';

const PROBE_FLAGS = constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

export async function isTerminalPath(path: string): Promise<boolean> {
  try {
    if (!statSync(path).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty } = await import('node:tty');
  let fd: number;
  try {
    fd = openSync(path, PROBE_FLAGS);
  } catch {
    // no terminal to open (/dev/tty without one): the write fails as it would have
    return false;
  }
  try {
    return isatty(fd);
  } finally {
    closeSync(fd);
  }
}
