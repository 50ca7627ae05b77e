// Pure: was a promise about effects broken? One function joins every check: the fence's (read-only: any
// change; no-shell: a shell command the agent reports run that rho-cursor never allowed), a tool shown
// rejected whose change the ledger shows, and the `Write(...)` rules' (the paths outside them, which the
// rules' own module computes: `outsideWriteRules(paths, rules)`, issue 21).
import { RhoError } from '../errors.js';
import type { Fence } from '../options.js';
import { listSome, nameSome, signedPaths, type Changes } from './compare.js';

export interface BreachFacts {
  fence: Fence;
  /** null when the ledger is off (--no-changes) or no prompt was sent. */
  changes: Changes | null;
  /** Commands (or titles) of execute calls the agent reports run though rho-cursor never allowed them. */
  shellRan: readonly string[];
  /** Tools shown rejected whose change the ledger shows: they ran. */
  rejectedRan: readonly { title: string; paths: readonly string[] }[];
  /** Changed paths outside the run's `Write(...)` allow rules (empty without such rules). */
  outsideWriteRules: readonly string[];
  /** The ledger was on and a prompt was sent, but the workspace's changes could not be measured, for a reason
   * of the workspace's (not the run's own stop ending the look: that is no breach, see ledgerPromise). */
  unmeasured?: boolean;
  /** Why the look after the turn could not see all of the workspace (snapshot.ts's Measured): a promise only
   * the ledger checks is not kept by it either. */
  incomplete?: readonly string[];
  /** The run has `Write(...)` rules (allow or deny), which only the ledger holds for Cursor. */
  writeRules?: boolean;
}

// The breach, as the run's error (exit 8, fence_breached), or undefined when every promise held.
export function breachOf(f: BreachFacts): RhoError | undefined {
  const reasons: string[] = [];
  const changed = f.changes ? signedPaths(f.changes) : [];
  if (f.fence === 'read-only' && changed.length > 0)
    reasons.push(`--fence read-only: the workspace changed: ${listSome(changed)}`);
  if (f.fence === 'no-shell' && f.shellRan.length > 0) {
    const also =
      f.changes && f.changes.unaccounted.length > 0
        ? `; unaccounted changes: ${nameSome(f.changes.unaccounted)}`
        : '';
    reasons.push(
      `--fence no-shell: the agent reports shell commands run that rho-cursor never allowed: ${nameSome(f.shellRan)}${also}`,
    );
  }
  for (const t of f.rejectedRan)
    reasons.push(
      `"${t.title}" was rejected but ran: the workspace changed where it writes: ${nameSome(t.paths)}`,
    );
  if (f.outsideWriteRules.length > 0)
    reasons.push(`changes outside the Write(...) rules: ${nameSome(f.outsideWriteRules)}`);
  // A promise only the ledger checks is not kept by a ledger that could not look (the agent broke the
  // index, moved .git away, pointed core.worktree elsewhere): never a success.
  const promise = ledgerPromise(f.fence, f.writeRules === true);
  if (f.unmeasured && promise) reasons.push(`${promise}: the workspace's changes could not be measured`);
  if (f.incomplete?.length && promise)
    reasons.push(`${promise}: the ledger could not look at all of the workspace: ${f.incomplete.join('; ')}`);
  if (reasons.length === 0) return undefined;
  return new RhoError('fence_breached', `fence breached: ${reasons.join('; ')}`);
}

// The promise only the ledger checks, named for a message, or undefined: --fence read-only (nothing changes),
// else the Write(...) rules (changes only inside them); no-shell is judged by what the agent reports.
export function ledgerPromise(fence: Fence, writeRules: boolean): string | undefined {
  if (fence === 'read-only') return '--fence read-only';
  return writeRules ? 'the Write(...) rules' : undefined;
}

// The tools shown rejected that the ledger shows ran: each one's paths that changed.
export function rejectedThatRan(
  rejected: Iterable<{ tool: { title: string; toolCallId: string }; paths: readonly string[] }>,
  changes: Changes | null,
): { toolCallId: string; title: string; paths: string[] }[] {
  if (!changes) return [];
  const changed = new Set([...changes.added, ...changes.modified, ...changes.deleted]);
  const ran: { toolCallId: string; title: string; paths: string[] }[] = [];
  for (const r of rejected) {
    const paths = r.paths.filter((p) => changed.has(p));
    if (paths.length > 0)
      ran.push({ toolCallId: r.tool.toolCallId, title: r.tool.title || r.tool.toolCallId, paths });
  }
  return ran;
}
