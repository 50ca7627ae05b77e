// A terminal closed under the run (its window closed: the kernel hangs it up and sends SIGHUP) must still
// end in the run's exit code. Node, exiting, restores the settings of every stdio fd that was a terminal at
// its start, and aborts (SIGABRT, a native stack on stderr) when that fails: on a hung-up terminal tcsetattr
// fails with EIO (nodejs/node#51519). Node skips an fd that is no longer the file it started with, so each
// hung-up one is put on /dev/null before the process exits.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';

// Replaces, at the process's exit, each of stdin, stdout and stderr that was a terminal now and is a hung-up
// one by then: isatty() is false on it (TCGETS fails) while it is still a character device. Everything was
// written by then (exiting waits for stdout and stderr); what the exit hooks write goes to /dev/null, as it
// would have gone nowhere. An ordinary run pays three isatty() now and, at a terminal, one more each at exit.
export function releaseHungUpTerminalsAtExit(): void {
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  process.once('exit', () => {
    for (const fd of terminals) {
      if (isatty(fd)) continue;
      try {
        if (!fstatSync(fd).isCharacterDevice()) continue;
        closeSync(fd);
      } catch {
        // closed already: Node skips a closed fd too
        continue;
      }
      // open takes the lowest free fd: the one just closed, unless a lower one was free (closed by someone
      // else); then that stays closed and so does this one, which Node skips as well.
      try {
        const got = openSync('/dev/null', fd === 0 ? 'r' : 'r+');
        if (got !== fd) closeSync(got);
      } catch {
        // no /dev/null: the fd stays closed, which Node skips
      }
    }
  });
}
