// Pure: the warnings that depend on which agent runs. Cursor's config warnings (approvalMode and its rules)
// are about Cursor alone; any other agent is fenced only by the answers to what it asks.
import type { Warning } from '../config/warnings.js';
import type { Fence } from '../options.js';
import type { AgentIdentity } from './identity.js';

export interface AgentWarningInput {
  identity: AgentIdentity;
  fence: Fence;
  /** The agent was started with the fence's private config dir (Cursor, told by its name at spawn). */
  privateDir: boolean;
  /** The warnings of the user's Cursor config under the run's policy (config/warnings.ts). */
  cursorWarnings: readonly Warning[];
}

/** What a fence exists to stop, which an agent may still do where it does not ask. */
const UNASKED: Record<Exclude<Fence, 'none'>, string> = {
  'no-shell': 'a shell command it runs without asking',
  'read-only': 'an edit, a delete or a shell command it runs without asking',
};

// Cursor's config warnings for Cursor; for any other agent, that the fence holds only through the answers.
export function agentWarnings(i: AgentWarningInput): Warning[] {
  const out = i.identity.cursor ? [...i.cursorWarnings] : [];
  if (i.fence === 'none' || (i.identity.cursor && i.privateDir)) return out;
  const who = i.identity.cursor
    ? "Cursor was started without the fence's private config dir (its executable is not named cursor-agent or agent, or --agent-arg was given)"
    : `${i.identity.title} is not Cursor`;
  out.push({
    code: 'fence-not-enforced-by-agent',
    message:
      `${who}, so --fence ${i.fence} holds only through permission answers (and the ledger checks what changed): ` +
      `${UNASKED[i.fence]} is not stopped; its own settings and mode decide what it asks`,
  });
  return out;
}
