// Sees every event the run writes, in order, after the output drew it: the small facts, the ledger's account
// of what the tools say they changed, the head of the reply (API errors written as text), and the
// --max-tool-calls bound, which it returns as a stop request instead of acting on it.
import type { RunLedger } from '../changes/run.js';
import type { RunFacts } from '../events/facts.js';
import type { ToolStore } from '../events/tools.js';
import type { Event } from '../events/types.js';
import type { RunOptions } from '../options.js';
import { MAX_HELD_TOOLS, type StopCause } from '../stop.js';

/** 400: a key that starts within the 200 characters a message shows is whole in it, so it is masked. */
const REPLY_HEAD = 400;

export class RunObserver {
  /** The tool store's call count when the last event was seen (a change means a new call). */
  private toolCalls = 0;
  /** The start of the current turn's reply. */
  replyHead = '';
  private ledger: RunLedger | undefined;

  constructor(
    private readonly tools: ToolStore,
    private readonly facts: RunFacts,
    private readonly opts: Pick<RunOptions, 'maxToolCalls'>,
  ) {}

  // The ledger's account sees every event from when the workspace is open.
  watchWith(ledger: RunLedger): void {
    this.ledger = ledger;
  }

  // A new turn: its reply starts again (and its facts).
  newTurn(): void {
    this.replyHead = '';
    this.facts.newTurn();
  }

  // Takes one event; returns the stop it calls for, if any.
  observe(e: Event, phase: string): StopCause | undefined {
    if (e.type === 'message' && this.replyHead.length < REPLY_HEAD) this.replyHead += e.text;
    // A tool event that came with a new call in the store is a new tool call (a cheap count, no id set).
    const calls = this.tools.calls;
    const newTool = e.type === 'tool' && calls !== this.toolCalls;
    this.toolCalls = calls;
    this.facts.add(e, newTool);
    this.ledger?.observe(e);
    const max = this.opts.maxToolCalls;
    if (newTool && max !== undefined && phase === 'prompt' && this.facts.turnToolCalls > max)
      return 'max_tool_calls';
    if (newTool && this.tools.held > MAX_HELD_TOOLS) return 'tools_held';
    return undefined;
  }
}
