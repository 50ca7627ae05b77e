// What the small commands (sessions, doctor) and a failure's error line write where GitHub Actions' runner
// reads, made inert as `run` makes its own: they carry agent text (session ids and titles, the agent's
// version and model, an error's message). The process's stdout and stderr are the edge; the rest is pure.
// They carry the key too where the agent put it there: masked here, as run's Output masks its streams.
import { fstatSync, readlinkSync, statSync } from 'node:fs';
import { redacted } from '../sanitize/cut.js';
import { safeJson } from '../sanitize/json.js';
import { guardToken, inertJson, resumeCommands, stopCommands } from '../sanitize/workflow.js';

// Pure: text between its own `::stop-commands::<token>` line and the line that resumes, written in one go
// so no other block can fall inside it. Empty text stays empty.
export function guardedBlock(text: string, token = guardToken()): string {
  if (text === '') return text;
  return stopCommands(token) + (text.endsWith('\n') ? text : text + '\n') + resumeCommands(token);
}

// Pure: a JSON line well-formed, inert for a terminal and a line reader (safeJson), and under GitHub Actions
// for the runner's legacy `##[command]` syntax as well.
const consoleJson = (json: string, github: boolean): string =>
  github ? inertJson(safeJson(json)) : safeJson(json);

const underActions = (env: NodeJS.ProcessEnv): boolean => env.GITHUB_ACTIONS === 'true';

// Is the file descriptor a regular file (`> out.txt`), which the runner never reads?
export function regularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** A file's identity (device and inode numbers), and the path it was opened at where that is known. */
export interface FileId {
  dev: number;
  ino: number;
  path?: string;
}

// The regular files among these descriptors (`> plan.md`, `2> log.txt`): their identity and, where the
// system says it (/proc/self/fd on Linux), the path they were opened at.
export function regularFileIds(fds: readonly number[]): FileId[] {
  const ids: FileId[] = [];
  for (const fd of fds) {
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) continue;
      let path: string | undefined;
      try {
        path = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        // no /proc: the path is not known, and the file is not left out
      }
      ids.push({ dev: st.dev, ino: st.ino, ...(path === undefined ? {} : { path }) });
    } catch {
      // closed or unreadable: nothing to leave out
    }
  }
  return ids;
}

// Text for stdout (1) or stderr (2), the key masked (useSecret): guarded under GitHub Actions unless it goes
// to a regular file.
export function consoleText(text: string, fd: 1 | 2, env: NodeJS.ProcessEnv = process.env): string {
  const t = redacted(text);
  return underActions(env) && !regularFile(fd) ? guardedBlock(t) : t;
}

// One JSON value for stdout, as consoleJson writes it, the key masked in every form JSON can spell it, with
// its newline.
export const consoleJsonLine = (value: unknown, env: NodeJS.ProcessEnv = process.env): string =>
  redacted(consoleJson(JSON.stringify(value), underActions(env))) + '\n';

// Is the path this process's own stdout or stderr, where the runner reads (`-o /dev/stdout`, `--wire-log
// /dev/stderr`, /proc/self/fd/2, a link to either): the same file, and not a regular one?
export function consolePath(path: string): boolean {
  try {
    const st = statSync(path);
    if (st.isFile()) return false;
    return [1, 2].some((fd) => {
      try {
        const f = fstatSync(fd);
        return f.dev === st.dev && f.ino === st.ino;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
