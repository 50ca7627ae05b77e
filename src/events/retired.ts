// Pure and bounded: what the permission judge needs of the tools the store let go once finished (text and
// stream-json keep no finished tool: tools.ts retireIfFinished), so a later request for one of their ids is
// judged as it would be with --output-format json, which keeps them all (found by review: a tool announced
// `rm -rf ~` that failed, then a request for its id claiming read, was judged as read in text mode only).
//
// Kept per tool: the kind it was announced with, its title, and the rawInput fields, locations and diff paths
// that name a command, a path or a URL (subject.ts reads nothing else). At most MAX_RETIRED tools and
// MAX_RETIRED_CHARS characters of them, the oldest let go first (one tool of more than a sixteenth of
// that is not kept at all); the ids let go are remembered in a fixed
// Bloom filter, so a request for one of them is known to be about a tool nothing is known of any more (it
// fails closed: requests.ts), while memory stays flat however many tools a turn runs.
import { ChurnMap } from './churn.js';
import { PATH_KEYS } from './path-keys.js';
import type { ToolEvent } from './types.js';

/** The most finished tools kept for the judge, and the most characters of theirs. */
export const MAX_RETIRED = 10_000;
export const MAX_RETIRED_CHARS = 1 << 20;

/** The bits of the filter of ids let go (1 MiB), and the bits each id sets: about 3% of ids never seen read
 * as let go once a million have been. */
const FILTER_BITS = 1 << 23;
const PROBES = 3;

// Every rawInput field subject.ts reads: a command, a URL, a path.
const KEPT_KEYS: readonly string[] = ['command', 'cmd', 'url', 'uri', ...PATH_KEYS];

export interface RetiredTool {
  /** The kind the tool was announced with (its first tool_call), as sent; undefined when none announced it. */
  announced: { kind: unknown } | undefined;
  /** The tool, cut to what the judge reads (its input's command, URL and path fields; its diffs' paths). */
  tool: ToolEvent;
}

interface Kept extends RetiredTool {
  chars: number;
  /** Its place in `order`, so an entry kept again is let go by its newer place only. */
  seq: number;
}

// The characters a value holds, strings and arrays of strings counted (anything else counts one).
function charsOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + charsOf(x), 1);
  return 1;
}

// 32-bit FNV-1a of the id, salted per probe.
function hash(id: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export class RetiredTools {
  // A ChurnMap: one tool is let go for each one kept once the bounds are reached (churn.ts says why).
  private readonly kept = new ChurnMap<string, Kept>();
  /** The ids in the order they were kept, from `head` (oldest) on; an id kept again appears twice. */
  private order: string[] = [];
  private head = 0;
  private seq = 0;
  private chars = 0;
  private filter: Uint8Array | undefined;

  constructor(
    private readonly maxTools = MAX_RETIRED,
    private readonly maxChars = MAX_RETIRED_CHARS,
  ) {}

  // Keeps what the judge needs of a tool let go; the oldest kept ones go past the bounds.
  keep(tool: Readonly<ToolEvent>, announced: { kind: unknown } | undefined): void {
    const input: Record<string, unknown> = {};
    let chars = tool.toolCallId.length + tool.title.length;
    for (const k of KEPT_KEYS)
      if (Object.hasOwn(tool.input, k)) {
        input[k] = tool.input[k];
        chars += charsOf(input[k]);
      }
    const locations = tool.locations.map((l) => ({ path: l.path }));
    for (const l of locations) chars += l.path.length;
    const out = tool.output as { diffs?: unknown } | null;
    const diffs = Array.isArray(out?.diffs)
      ? out.diffs.map((d: { path?: unknown }) => ({ path: typeof d.path === 'string' ? d.path : '' }))
      : undefined;
    for (const d of diffs ?? []) chars += d.path.length;
    const cut: ToolEvent = {
      type: 'tool',
      toolCallId: tool.toolCallId,
      kind: tool.kind,
      title: tool.title,
      status: tool.status,
      input,
      output: diffs ? { diffs } : null,
      locations,
    };
    this.drop(tool.toolCallId);
    // One tool of more than a sixteenth of the bound is not kept, rather than letting go of all the others.
    if (chars > this.maxChars / 16) return this.forget(tool.toolCallId);
    this.kept.set(tool.toolCallId, { announced, tool: cut, chars, seq: this.seq + this.order.length });
    this.order.push(tool.toolCallId);
    this.chars += chars;
    while (this.kept.size > 0 && (this.kept.size > this.maxTools || this.chars > this.maxChars)) {
      const at = this.seq + this.head;
      const oldest = this.order[this.head++]!;
      // An id kept again since is let go from its newer place, not this one.
      if (this.kept.get(oldest)?.seq !== at) continue;
      this.drop(oldest);
      this.forget(oldest);
    }
    // The queue's spent and stale entries go once they outnumber the live ones: each id is copied O(1)
    // times on average, and the queue stays bounded however often one id is kept again.
    if (this.order.length > 2 * this.kept.size + 1024) this.compact();
  }

  // What is kept of a tool let go, if anything.
  get(toolCallId: string): RetiredTool | undefined {
    return this.kept.get(toolCallId);
  }

  // May this id be one of a tool let go past the bounds, of which nothing is kept? (Never wrongly false.)
  forgot(toolCallId: string): boolean {
    const f = this.filter;
    if (!f) return false;
    for (let p = 0; p < PROBES; p++) {
      const bit = hash(toolCallId, p) & (FILTER_BITS - 1);
      if ((f[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  /** How many tools are kept. */
  get size(): number {
    return this.kept.size;
  }

  private drop(toolCallId: string): void {
    const k = this.kept.get(toolCallId);
    if (!k) return;
    this.kept.delete(toolCallId);
    this.chars -= k.chars;
  }

  // The queue with only the place of each tool kept, from 0.
  private compact(): void {
    const live: string[] = [];
    for (let i = this.head; i < this.order.length; i++) {
      const id = this.order[i]!;
      const k = this.kept.get(id);
      // An id's live place is its last one: its earlier ones are stale, and checked before it is renumbered.
      if (k?.seq !== this.seq + i) continue;
      k.seq = live.length;
      live.push(id);
    }
    this.order = live;
    this.head = 0;
    this.seq = 0;
  }

  private forget(toolCallId: string): void {
    const f = (this.filter ??= new Uint8Array(FILTER_BITS >>> 3));
    for (let p = 0; p < PROBES; p++) {
      const bit = hash(toolCallId, p) & (FILTER_BITS - 1);
      f[bit >>> 3]! |= 1 << (bit & 7);
    }
  }
}
