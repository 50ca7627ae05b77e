// Where a report path (-o, --summary-file) leads: taken before the agent starts, and asked again just before
// the report is written. The agent may plant a link at the path, point a link of the user's elsewhere or put
// a link in place of a folder on the way; a report whose path no longer leads where it led is written
// nowhere. A link that was there before the run is the user's, and followed.
import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunOptions } from '../options.js';

// Another name for one of this process's file descriptors (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, a
// pid's or a thread's): the very file stdout may go to.
const FD_ALIAS =
  /^\/dev\/(?:std(?:in|out|err)|fd\/\d+)$|^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/\d+$/;

/** Is the path an alias of a file descriptor, written in place (never replaced, never truncated)? */
export const fdAlias = (path: string): boolean => FD_ALIAS.test(resolve(path));

/** As the kernel: this many links on the way, and the path is a loop. */
const MAX_LINKS = 40;

// Where a path leads: its folder's real path and its name, every link on the way followed (a link to
// nothing too: writing there makes its target); a file descriptor's alias is where it stops. Throws as a
// write there would (a missing folder, a loop, no permission).
export function realTarget(path: string): string {
  let p = resolve(path);
  for (let links = 0; links <= MAX_LINKS; links++) {
    if (fdAlias(p)) return p;
    const folder = realpathSync.native(dirname(p));
    p = join(folder, basename(p));
    if (fdAlias(p)) return p;
    const link = linkAt(p);
    if (link === undefined) return p;
    p = resolve(folder, link);
  }
  throw Object.assign(new Error(`too many links on the way: ${path}`), { code: 'ELOOP' });
}

// What the link at a path says; undefined when the path is no link or nothing is there.
function linkAt(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EINVAL' || code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Where a report path led before the agent started; null when it led nowhere (the write then fails anyway). */
export interface Pin {
  target: string | null;
}

/** The pins of the reports a run writes at its end. */
export interface ReportPins {
  last?: Pin;
  summary?: Pin;
  patch?: Pin;
}

function pin(path: string): Pin {
  try {
    return { target: realTarget(path) };
  } catch {
    return { target: null };
  }
}

// Where -o, the summary and --patch lead now: taken before the agent is spawned.
export function pinReports(
  opts: Pick<RunOptions, 'outputLastMessage' | 'summaryFile'> & { patch?: string },
): ReportPins {
  return {
    ...(opts.outputLastMessage ? { last: pin(opts.outputLastMessage) } : {}),
    ...(opts.summaryFile ? { summary: pin(opts.summaryFile) } : {}),
    ...(opts.patch ? { patch: pin(opts.patch) } : {}),
  };
}

// Where to write a report: where its path leads now, when that is where it led before the agent started (or
// nothing was pinned: no agent ran); else an Error naming the path and where it leads now.
export function checkedTarget(path: string, before: Pin | undefined): string {
  const now = realTarget(path);
  if (before === undefined || before.target === now) return now;
  // Where it led is said when that was not the path itself (a link of the user's).
  const was =
    before.target === null || before.target === resolve(path)
      ? ''
      : ` (it led to ${before.target} when the run started)`;
  throw new Error(`${path} was replaced during the run and now leads to ${now}${was}`);
}
