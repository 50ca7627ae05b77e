// What the run's tool calls say about the workspace, gathered as their events pass (tool states themselves
// are let go once finished): the paths completed edits, deletes and moves name; the tools shown rejected
// and what they would have written; and shell commands the agent reports run though rho-cursor never
// allowed them.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative } from 'node:path';
import { PATH_KEYS } from '../events/path-keys.js';
import type { Event, ToolEvent } from '../events/types.js';

/** Tool kinds that change files and name the files they change. */
const WRITING: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);
/** How many tools of each list are kept by name (the rest are counted): memory stays flat. */
const KEPT = 1000;

// The workspace-relative paths a tool names (its locations, its diffs, its input's path fields); paths
// outside the workspace are left out.
export function toolPaths(tool: ToolEvent, roots: readonly string[]): string[] {
  const raw: unknown[] = tool.locations.map((l) => l.path);
  const out = tool.output;
  if (
    out &&
    typeof out === 'object' &&
    !Array.isArray(out) &&
    Array.isArray((out as { diffs?: unknown }).diffs)
  )
    for (const d of (out as { diffs: { path: unknown }[] }).diffs) raw.push(d.path);
  for (const k of PATH_KEYS) raw.push(tool.input[k]);
  if (Array.isArray(tool.input.paths)) raw.push(...(tool.input.paths as unknown[]));
  const paths = new Set<string>();
  for (const p of raw) {
    if (typeof p !== 'string' || p === '') continue;
    const rel = workspacePath(p, roots);
    if (rel !== undefined) paths.add(rel);
  }
  return [...paths];
}

// A path as the ledger names it (relative to the workspace, `/`-separated), or undefined outside it. An
// absolute path that names the workspace through a link (`/tmp/alias/keep.txt`, alias -> the workspace) is
// read where it really leads (`real`: its realpath, or its folder's for a file not there), so a rejected edit
// named that way is still seen as the file the ledger shows changed (found by review).
export function workspacePath(
  p: string,
  roots: readonly string[],
  real: (p: string) => string | undefined = realPath,
): string | undefined {
  if (!isAbsolute(p)) {
    const n = normalize(p).replace(/^(\.\/)+/, '');
    return n.startsWith('..') ? undefined : n;
  }
  const under = (q: string): string | undefined => {
    for (const root of roots) {
      const rel = relative(root, q);
      if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    }
    return undefined;
  };
  const direct = under(p);
  if (direct !== undefined) return direct;
  const resolved = real(p);
  return resolved === undefined || resolved === p ? undefined : under(resolved);
}

// Where a path really leads: its realpath, or its folder's and its name when the file is not there.
function realPath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    try {
      return join(realpathSync(dirname(p)), basename(p));
    } catch {
      return undefined;
    }
  }
}

/** A tool shown rejected, kept as it was last emitted, with the paths it would have written. */
export interface RejectedTool {
  tool: ToolEvent;
  paths: string[];
}

export class ToolAccount {
  /** Paths named by completed edit, delete and move calls. */
  private readonly accounted = new Set<string>();
  /** Tools whose latest state is `rejected`, of a writing kind. */
  readonly rejected = new Map<string, RejectedTool>();
  /** toolCallIds whose permission request rho-cursor allowed. */
  private readonly allowed = new Set<string>();
  /** Execute calls the agent reports run (in progress, or finished with output) though never allowed. */
  readonly shellRan = new Map<string, string>();
  private shellRanBeyond = 0;

  constructor(private readonly roots: readonly string[]) {}

  // Takes one event of the run.
  add(e: Event): void {
    if (e.type === 'permission') {
      const d = e.decision;
      if ('optionId' in d && d.kind.startsWith('allow')) this.allowed.add(e.toolCallId);
      return;
    }
    if (e.type !== 'tool') return;
    if (e.kind === 'execute') return this.shell(e);
    if (!WRITING.has(e.kind)) return;
    if (e.status === 'completed') for (const p of toolPaths(e, this.roots)) this.accounted.add(p);
    if (e.status !== 'rejected') this.rejected.delete(e.toolCallId);
    else if (this.rejected.size < KEPT || this.rejected.has(e.toolCallId))
      this.rejected.set(e.toolCallId, { tool: { ...e }, paths: toolPaths(e, this.roots) });
  }

  // Was this changed path named by a completed edit, delete or move?
  accounts(path: string): boolean {
    return this.accounted.has(path);
  }

  /** How many execute calls ran unallowed. */
  get shellRanCount(): number {
    return this.shellRan.size + this.shellRanBeyond;
  }

  // An execute call the agent reports run: in progress, or completed or failed with output.
  private shell(e: ToolEvent): void {
    const reported = e.reportedStatus ?? e.status;
    const ran =
      reported === 'in_progress' ||
      ((reported === 'completed' || reported === 'failed') && e.output !== null);
    if (!ran || this.allowed.has(e.toolCallId) || this.shellRan.has(e.toolCallId)) return;
    const command = typeof e.input.command === 'string' ? e.input.command : e.title;
    if (this.shellRan.size < KEPT) this.shellRan.set(e.toolCallId, command || e.toolCallId);
    else this.shellRanBeyond++;
  }
}
