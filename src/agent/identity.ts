// Pure: is the agent Cursor? What is Cursor's alone (the private config dir, the cursor/* extensions, the
// approvalMode warnings, the "Cursor:" labels, the login hint, --model as a flag) applies only when it is.
import { basename } from 'node:path';
import { isRecord, str } from '../acp/messages.js';

/** The names Cursor's agent is installed under (newer installs add `agent`). */
export const CURSOR_NAMES = ['cursor-agent', 'agent'] as const;

export interface AgentIdentity {
  /** The agent is Cursor's: told at spawn, then from its initialize answer, which wins. */
  cursor: boolean;
  /** How the agent is named in lines shown to a person: `Cursor`, else its agentInfo.title (or name). */
  title: string;
}

/** What a run calls an agent that does not name itself. */
export const UNNAMED_AGENT = 'the agent';

// Before anything is said: Cursor is an executable named cursor-agent or agent, started without --agent-arg.
export function cursorAtSpawn(command: string, agentArgs: readonly string[]): boolean {
  return agentArgs.length === 0 && (CURSOR_NAMES as readonly string[]).includes(basename(command));
}

// Why an agent is not Cursor at spawn, for a line that says so (only called when cursorAtSpawn is false).
export function notCursorAtSpawn(command: string, agentArgs: readonly string[]): string {
  if (agentArgs.length > 0) return 'it is started with --agent-arg';
  return `${basename(command)} is not named ${CURSOR_NAMES.join(' or ')}`;
}

// What initialize says: Cursor's auth method `cursor_login` or an agentInfo naming Cursor is Cursor; an
// agentInfo naming another agent, or auth methods without Cursor's, is another; undefined when it says nothing.
export function cursorFromInitialize(init: unknown): boolean | undefined {
  if (!isRecord(init)) return undefined;
  const methods = (Array.isArray(init.authMethods) ? init.authMethods : []).filter(isRecord);
  if (methods.some((m) => m.id === 'cursor_login')) return true;
  const info = isRecord(init.agentInfo) ? init.agentInfo : undefined;
  if (info) {
    const names = [named(info.name), named(info.title)].filter((n): n is string => n !== null);
    if (names.length > 0) return names.some((n) => /\bcursor\b/i.test(n));
  }
  return methods.length > 0 ? false : undefined;
}

// The agent's identity: the spawn-time guess until initialize answers, then what the answer says, where it says.
export function identify(atSpawn: boolean, init?: unknown): AgentIdentity {
  const cursor = cursorFromInitialize(init) ?? atSpawn;
  if (cursor) return { cursor, title: 'Cursor' };
  const info = isRecord(init) && isRecord(init.agentInfo) ? init.agentInfo : {};
  return { cursor, title: named(info.title) ?? named(info.name) ?? UNNAMED_AGENT };
}

// A name that names something: a blank one ("", "   ") says nothing (found by review: `warning:  is not Cursor`).
export function named(v: unknown): string | null {
  const s = str(v);
  return s !== null && s.trim() !== '' ? s : null;
}
