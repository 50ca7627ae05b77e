// Where a report path (-o, --summary-file) leads, and how it is written there.
import { resolve } from 'node:path';

// Another name for one of this process's file descriptors (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, a
// pid's or a thread's): the very file stdout may go to.
const FD_ALIAS =
  /^\/dev\/(?:std(?:in|out|err)|fd\/\d+)$|^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/\d+$/;

/** Is the path an alias of a file descriptor, written in place (never replaced, never truncated)? */
export const fdAlias = (path: string): boolean => FD_ALIAS.test(resolve(path));
