// The ledger's place in a run: the workspace (a worktree with --worktree) prepared and snapshotted before
// the prompt, its changes measured after the turn, the tools that ran though shown rejected corrected, the
// breach judged, the patch written. The worktree is released on the run's teardown stack.
import { lstatSync, promises as fsp, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { checkedTarget, type Pin } from '../ci/targets.js';
import { RhoError } from '../errors.js';
import { isPipe, writePipe } from '../files/pipes.js';
import { isTerminalPath } from '../files/terminal.js';
import { consolePath, guardedBlock, type FileId } from '../ci/console.js';
import { keyForms, redacted } from '../sanitize/cut.js';
import { terminalSafe } from '../sanitize/terminal.js';
import type { Event, ToolEvent } from '../events/types.js';
import type { Teardown } from '../lifecycle/teardown.js';
import type { RunOptions } from '../options.js';
import { ToolAccount, workspacePath } from './account.js';
import { breachOf, ledgerPromise, rejectedThatRan } from './breach.js';
import { changesOf, nameSome, type Changes } from './compare.js';
import { outsideWriteRules } from '../policy/judge.js';
import { resolvePathRules } from '../policy/real-paths.js';
import { changesSince, LookEnded, takeSnapshot, type Snapshot } from './snapshot.js';
import { worktreePatch } from './patch.js';
import { keepWorktree, makeWorktree, removeWorktree, removeWorktreeSync, type Worktree } from './worktree.js';

/** What the ledger reports at the end of a run. */
export interface LedgerOutcome {
  changes: Changes | null;
  warnings: { code: string; message: string }[];
  /** Tools shown rejected that the ledger shows ran, with their status set back to what the agent said. */
  corrected: ToolEvent[];
  breach: RhoError | undefined;
  /** The promise only the ledger checks (ledgerPromise) that the run's own end kept it from checking: the look
   * was ended by a signal or --timeout (a stop of the user's, never a breach). */
  unchecked: string | undefined;
  /** The patch file written (--patch), or null. */
  patch: string | null;
  /** A failure writing the patch. */
  failure: RhoError | undefined;
}

/** The worktree a run made, for the result (`worktree`) and the kept-worktree line. */
export interface WorktreeInfo {
  path: string;
  kept: boolean;
}

// --worktree: makes the worktree and registers its removal (unless --keep-worktree); the agent's workspace.
export async function openWorktree(
  opts: RunOptions,
  teardown: Teardown,
  signal?: AbortSignal,
): Promise<Worktree | undefined> {
  if (!opts.worktree) return undefined;
  const wt = await makeWorktree(opts.cwd, opts.keepWorktree, signal);
  // Removed unless kept: by --keep-worktree, or at the end for a patch that could not carry everything.
  teardown.defer({
    name: 'worktree',
    run: () => removeWorktree(wt),
    runSync: () => removeWorktreeSync(wt),
  });
  return wt;
}

// Is the regular file at path (not following a link) this file, under this one name?
function isFile(path: string, id: FileId): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.dev === id.dev && st.ino === id.ino && st.nlink === 1;
  } catch {
    return false;
  }
}

export class RunLedger {
  private snapshot: Promise<Snapshot | Error> | undefined;
  readonly account: ToolAccount;
  private readonly roots: string[];
  private readonly own: FileId[];

  /** The snapshot waits for `start()`; `measure` off leaves only the account. `own`: the regular files rho-cursor
   * writes during the turn, by identity: those its stdout and stderr were redirected to (`> plan.md`), and the
   * wire log (ownFile). */
  constructor(
    private readonly cwd: string,
    private readonly measure: boolean,
    own: readonly FileId[] = [],
    /** The run's stop: it ends the snapshot's listing, which the prompt has not been sent without. */
    private readonly stop?: AbortSignal,
  ) {
    this.own = [...own];
    this.roots = [cwd];
    try {
      const real = realpathSync(cwd);
      if (real !== cwd) this.roots.push(real);
    } catch {
      // the workspace is checked before the run: a vanished one shows in the snapshot
    }
    this.account = new ToolAccount(this.roots);
  }

  /** Does the ledger look at the workspace after the turn (false with --no-changes)? */
  get looks(): boolean {
    return this.measure;
  }

  // Another file rho-cursor writes during the turn (the wire log, once opened): left out as long as it is that
  // file. -o, the summary and --patch are not: they are written after the look, so whatever the ledger finds at
  // their paths is the agent's (found by review: a link the agent put at -o's path went unreported).
  ownFile(id: FileId): void {
    this.own.push(id);
  }

  // Is this changed path one of rho-cursor's own files: the path it was opened at, still that same regular
  // file, and its only name? A file the agent hard-links to it (`ln -f log.txt src/a.ts`, found by review) or
  // puts in its place (a link, another file) is a change like any other.
  private isOwn(path: string): boolean {
    return this.own.some(
      (c) =>
        c.path !== undefined && workspacePath(c.path, this.roots) === path && isFile(join(this.cwd, path), c),
    );
  }

  // Takes the snapshot (once): called once the agent is up, so it runs while the session is made instead of
  // delaying the agent's spawn or competing with its start-up; the prompt waits for it (`ready`).
  start(): void {
    if (this.measure && !this.snapshot) this.snapshot = takeSnapshot(this.cwd, this.stop).catch(asError);
  }

  // Every event of the run passes here: what its tools say they changed.
  observe(e: Event): void {
    this.account.add(e);
  }

  // Resolves once the snapshot is taken: the prompt waits for it. The hashes are taken during the turn, so
  // they take nothing from the agent's start-up, and start once the prompt is on its way (setImmediate).
  async ready(): Promise<void> {
    this.start();
    const s = await this.snapshot;
    if (s && !(s instanceof Error)) setImmediate(() => s.startHashing());
  }

  // After the turn: what changed, what no tool accounts for, the tools that ran though shown rejected, the
  // breach, and the patch of a worktree. `prompted`: false when no prompt was sent (nothing is measured).
  // `giveUp` bounds the look after the turn (its git ended there: the changes are then not measured) and the
  // wait on the reader of a --patch that is a FIFO or a pipe.
  async finish(
    opts: RunOptions,
    prompted: boolean,
    wt: Worktree | undefined,
    giveUp?: AbortSignal,
    patchPin?: Pin,
  ): Promise<LedgerOutcome> {
    const o: LedgerOutcome = {
      changes: null,
      warnings: [],
      corrected: [],
      breach: undefined,
      unchecked: undefined,
      patch: null,
      failure: undefined,
    };
    const before = await this.snapshot;
    if (!prompted) {
      // Nothing to measure: the second look's forked process goes unused, the private files are removed.
      if (before && !(before instanceof Error)) before.dispose();
      return o;
    }
    const since =
      before && !(before instanceof Error) ? await changesSince(before, giveUp).catch(asError) : before;
    if (since instanceof Error)
      o.warnings.push({
        code: 'ledger-failed',
        message: `the workspace's changes could not be measured: ${since.message}`,
      });
    else if (since) {
      const { changed, truncated, incomplete } = since;
      if (incomplete.length > 0)
        o.warnings.push({
          code: 'ledger-incomplete',
          message: `the ledger could not look at all of the workspace, so changes may be missing from the list: ${incomplete.join('; ')}`,
        });
      const kept = changed.filter((c) => !this.isOwn(c.path));
      o.changes = changesOf(kept, (p) => this.account.accounts(p), truncated);
      if (o.changes.unaccounted.length > 0)
        o.warnings.push({
          code: 'unaccounted-change',
          message: `changed, but named by no completed edit, delete or move of the agent (a shell command, or something it did not report): ${nameSome(o.changes.unaccounted)}`,
        });
    }
    const writeRules = [...opts.rules.allow, ...opts.rules.deny].some((r) => r.type === 'Write');
    // The look ended by the run's own stop (a second Ctrl-C, --timeout's grace) is the user's doing, not the
    // agent's: the changes are not measured (said so above), the stop decides the exit (found by review: a
    // second Ctrl-C under --plan was exit 8, the workspace changed, when nothing had).
    const ended = since instanceof LookEnded;
    if (ended) o.unchecked = ledgerPromise(opts.fence, writeRules);
    const ran = rejectedThatRan(this.account.rejected.values(), o.changes);
    for (const r of ran) {
      const kept = this.account.rejected.get(r.toolCallId)!.tool;
      // It ran: what the agent last said if that was a final status, else completed (its change is there).
      const said = kept.reportedStatus === 'failed' ? 'failed' : 'completed';
      const { reportedStatus: _, ...rest } = kept;
      o.corrected.push({ ...rest, status: said });
      o.warnings.push({
        code: 'rejected-tool-ran',
        message: `"${r.title}" was shown rejected, but the workspace changed where it writes (${nameSome(r.paths)}): it ran`,
      });
    }
    o.breach = breachOf({
      fence: opts.fence,
      changes: o.changes,
      shellRan: [...this.account.shellRan.values()],
      rejectedRan: ran,
      // The Write(...) rules' check (issue 21) joins the fence's here. With --worktree a changed path is
      // judged where the patch puts it, in the user's workspace: an absolute rule names the user's paths,
      // never the temporary worktree's. The rules' globs are read there, through symlinks too (real-paths.ts).
      outsideWriteRules: o.changes
        ? outsideWriteRules(
            changedPaths(o.changes),
            resolvePathRules(opts.rules, wt ? wt.userCwd : this.cwd),
            wt ? wt.userCwd : this.cwd,
          )
        : [],
      unmeasured: since instanceof Error && !ended,
      incomplete: since instanceof Error || !since ? [] : since.incomplete,
      writeRules,
    });
    if (wt && opts.patch) await this.writePatch(o, opts, wt, giveUp, patchPin);
    return o;
  }

  // --patch: written with everything it can carry; whatever it cannot (a repository of the agent's, a name git
  // refuses, a submodule's folder, any change the ledger lists that the patch does not hold), or the whole
  // patch when it cannot be written, is kept in the worktree, which is then not removed (found by review: a
  // `git init` in a new folder failed the patch, and the worktree went with the agent's other work in it).
  private async writePatch(
    o: LedgerOutcome,
    opts: RunOptions,
    wt: Worktree,
    giveUp: AbortSignal | undefined,
    pin: Pin | undefined,
  ): Promise<void> {
    const path = opts.patch!;
    const kept = (): string => {
      keepWorktree(wt);
      return `the worktree is kept at ${wt.dir} (a repository of its own: removing ${wt.tmp} removes it)`;
    };
    try {
      const taken = await worktreePatch(wt, o.changes, giveUp, keyForms());
      const patch = await forConsole(path, opts.github, taken.bytes);
      // Where the path led before the agent started, or nowhere (a link it planted there: ci/targets.ts).
      const target = checkedTarget(path, pin);
      await (isPipe(target) ? writePipe(target, patch, giveUp) : fsp.writeFile(target, patch));
      o.patch = path;
      if (taken.redacted)
        o.warnings.push({
          code: 'patch-redacted',
          message: `the key (CURSOR_API_KEY) was in what the patch would hold (a file the agent wrote, a name, a line of yours): the patch ${path} holds [redacted] in its place, so the hunks that held it do not reproduce it (and one whose context held it does not apply)`,
        });
      if (taken.leftOut.length > 0 || taken.refused !== '') {
        const what =
          taken.leftOut.length > 0
            ? `${nameSome(taken.leftOut)} (a folder ending in / holds a repository of its own, or is a submodule's, which the worktree never checks out; a file's change may be one git undid as it added it, end-of-line normalisation say)`
            : `what git could not add (${taken.refused})`;
        o.warnings.push({
          code: 'patch-incomplete',
          message: `the patch ${path} leaves out changes it could not carry: ${what}; ${kept()}`,
        });
      }
    } catch (e) {
      const why = `could not write the patch ${path}: ${(e as Error).message}; ${kept()}`;
      o.failure = new RhoError('write_failed', why);
      // Said as it happens, as a wire log that stops is: when a stop or a breach is the run's error, the
      // final line does not say it (found by review: a --timeout run ended with no patch and no word why).
      o.warnings.push({ code: 'patch-failed', message: why });
    }
  }
}

// A patch written to our own stdout or stderr (`--patch /dev/stderr`) or to a terminal is console output like
// any other: the key masked, on a terminal the agent's controls made visible, and under GitHub Actions behind
// its own guard, as ci/deliver.ts writes -o and the summary there (its lines are the agent's file contents and
// names: `+##[set-output ...]` would run, `+\e]52;...` would set the clipboard). A file keeps the bytes `git
// apply` needs, with the key masked in them as everywhere (patch.ts).
async function forConsole(path: string, github: boolean, patch: Buffer): Promise<Buffer | string> {
  const terminal = await isTerminalPath(path);
  const console = consolePath(path);
  if (!terminal && !console) return patch;
  const shown = redacted(patch.toString('utf8'));
  const visible = terminal ? terminalSafe(shown) : shown;
  return github && console ? guardedBlock(visible) : visible;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

// Every changed path, whatever the change.
function changedPaths(c: Changes): string[] {
  return [...c.added, ...c.modified, ...c.deleted];
}
