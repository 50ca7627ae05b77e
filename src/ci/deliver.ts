// The files a run hands to scripts and CI once its result is known: -o (the final answer, atomically),
// the Markdown summary (appended), and GitHub's step outputs. The key never reaches any of them.
import { constants } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RhoError } from '../errors.js';
import { isPipe, writePipe } from '../files/pipes.js';
import { isTerminalPath } from '../files/terminal.js';
import { ANSWER_KEPT_MAX, type RunFacts } from '../events/facts.js';
import type { ResultEvent } from '../events/types.js';
import { MIN_SECRET_LENGTH, redact, secretForms } from '../lifecycle/secrets.js';
import type { RunOptions } from '../options.js';
import { safeJson } from '../sanitize/json.js';
import { terminalSafe } from '../sanitize/terminal.js';
import { knownStopReason, outputLines, plainToken, shellInertJson } from './github.js';
import { summaryMarkdown } from './summary.js';
import { consolePath, guardedBlock } from './console.js';
import { checkedTarget, fdAlias, realTarget, type ReportPins } from './targets.js';

// node:fs/promises, loaded only when a report is written: ~2 ms of start-up that most runs never need.
const fsp = (): Promise<typeof FsPromises> => import('node:fs/promises');
// Appends, or writes to a FIFO or pipe without blocking on it (files/pipes.ts); `giveUp` bounds the wait on
// a pipe's reader.
const appendFile = async (path: string, text: string, giveUp?: AbortSignal): Promise<void> =>
  isPipe(path) ? writePipe(path, text, giveUp) : (await fsp()).appendFile(path, text);

// Appends a report to where its path leads (realTarget): a file descriptor's alias as it is, any other file
// opened without following a link at its end (one there now was put there since it was resolved).
async function appendReport(target: string, text: string, giveUp?: AbortSignal): Promise<void> {
  if (fdAlias(target) || isPipe(target)) return appendFile(target, text, giveUp);
  const { O_APPEND, O_CREAT, O_NOFOLLOW, O_WRONLY } = constants;
  const file = await (await fsp()).open(target, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o666);
  try {
    await file.writeFile(text);
  } finally {
    await file.close();
  }
}

export interface Delivered {
  result: ResultEvent;
  facts: RunFacts;
  /** The value that matched --output-schema; undefined when none did (null is a value). */
  structured: unknown;
}

/** How writeAtomically writes. */
export interface AtomicWrite {
  /** Stops waiting for the reader of a FIFO or a pipe. */
  giveUp?: AbortSignal;
  /** The temporary file's path beside the target (tempName unless a test names its own). */
  tempName?: (target: string) => Promise<string>;
}

// A temporary name beside the target that nobody can guess, so nothing can be put there in advance (and
// what is there anyway is refused: it is made with O_EXCL). node:crypto, ~3 ms, only once -o is written.
export async function tempName(target: string): Promise<string> {
  const { randomBytes } = await import('node:crypto');
  return join(dirname(target), `.${basename(target)}.rho-${randomBytes(8).toString('hex')}.tmp`);
}

// Writes a whole file so a reader never sees half of it: a temporary file beside it, then a rename. A
// symlink is followed (its target is replaced, the link kept; a link to nothing gets its target made). A device, a FIFO, a socket, or another name
// for a file descriptor (`-o /dev/stdout`, whose target may be the very file stdout goes to) is written in
// place and appended to, never replaced nor truncated. An existing file's mode is kept; a new one gets 0666
// less the umask.
export async function writeAtomically(path: string, text: string, o: AtomicWrite = {}): Promise<void> {
  const { open, rename, stat, unlink } = await fsp();
  const target = realTarget(path);
  if (fdAlias(target)) return appendFile(target, text, o.giveUp);
  let mode: number | undefined;
  try {
    const st = await stat(target);
    if (!st.isFile()) return await appendFile(target, text, o.giveUp);
    mode = st.mode & 0o7777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const tmp = await (o.tempName ?? tempName)(target);
  // 'wx' is O_CREAT | O_EXCL: a new file or nothing, never one already there nor a link's target.
  const file = await open(tmp, 'wx', 0o666);
  try {
    try {
      await file.writeFile(text);
      // Set outright, since open's mode passes through the umask; on the file opened, never through a name.
      if (mode !== undefined) await file.chmod(mode);
    } finally {
      await file.close();
    }
    await rename(tmp, target);
  } catch (e) {
    // Only the file made above: what another put at the name was refused by the open, and stays.
    await unlink(tmp).catch(() => {});
    throw e;
  }
}

// Writes every report the options ask for; returns the first failure as a write_failed error. `giveUp`
// stops waiting for the reader of a report that is a FIFO or a pipe. -o and the summary are written only
// where their paths led before the agent started (`pins`: a link it put there since leads nowhere).
export async function deliverReports(
  opts: RunOptions,
  env: NodeJS.ProcessEnv,
  d: Delivered,
  giveUp?: AbortSignal,
  pins: ReportPins = {},
): Promise<RhoError | undefined> {
  const secret = env.CURSOR_API_KEY;
  const masked = (text: string): string =>
    secret && secret.length >= MIN_SECRET_LENGTH ? redact(text, secretForms(secret)) : text;
  // A report written to a terminal (`-o /dev/tty`) is drawn by it as any line rho-cursor writes there: the
  // agent's controls made visible. One written to our own stdout or stderr under GitHub Actions (`-o
  // /dev/stdout`) is read by the runner as the console is: the agent's text in it goes behind its own guard
  // (ci/console.ts). A file keeps the bytes.
  const forPath = async (path: string, text: string): Promise<string> => {
    const shown = (await isTerminalPath(path)) ? terminalSafe(masked(text)) : masked(text);
    return opts.github && consolePath(path) ? guardedBlock(shown) : shown;
  };
  const tasks: Array<[string, () => Promise<void>]> = [];
  const matched = opts.outputSchema !== undefined && d.structured !== undefined;
  // -o: whenever a turn ended, also when the run failed after it (the structured value where one matched,
  // else the last turn's answer); otherwise the file is left as it was.
  if (opts.outputLastMessage && d.result.stopReason !== null) {
    const text = matched ? safeJson(JSON.stringify(d.structured, null, 2)) + '\n' : d.facts.answer;
    const path = opts.outputLastMessage;
    tasks.push([
      `the last message to ${path}`,
      async () => {
        // Never a part of the answer taken for the whole (events/facts.ts ANSWER_KEPT_MAX); no value matched
        // then either (the check takes none from a cut answer), so the warning's "-o is not written" holds.
        if (d.facts.answerCut)
          throw new Error(`the answer passed ${ANSWER_KEPT_MAX / 1024 / 1024} MiB: it is not written`);
        const target = checkedTarget(path, pins.last);
        await writeAtomically(target, await forPath(target, text), { giveUp });
      },
    ]);
  }
  if (opts.summaryFile) {
    const path = opts.summaryFile;
    const md = summaryMarkdown({ result: d.result, facts: d.facts, fence: opts.fence });
    tasks.push([
      `the summary to ${path}`,
      async () => {
        const target = checkedTarget(path, pins.summary);
        await appendReport(target, await forPath(target, md), giveUp);
      },
    ]);
  }
  const ghOutput = opts.github ? env.GITHUB_OUTPUT : undefined;
  if (ghOutput) {
    const values: Record<string, string> = {
      'exit-code': String(d.result.exitCode),
      // Values a workflow may put in a script: only the ones ACP defines, and an id that is a plain token.
      'stop-reason': knownStopReason(d.result.stopReason),
      'session-id': plainToken(d.result.sessionId),
    };
    if (opts.outputSchema)
      values.structured = matched ? shellInertJson(safeJson(JSON.stringify(d.structured))) : '';
    tasks.push([
      `the step outputs to ${ghOutput}`,
      () => appendFile(ghOutput, masked(outputLines(values)), giveUp),
    ]);
  }
  // Every report is tried, whichever failed before it; the error names each one that failed.
  const failures: string[] = [];
  for (const [what, write] of tasks) {
    try {
      await write();
    } catch (e) {
      failures.push(`cannot write ${what}: ${(e as Error).message}`);
    }
  }
  return failures.length > 0 ? new RhoError('write_failed', failures.join('; ')) : undefined;
}
