// Pure: what initialize and session/new answered, read leniently into the run's session facts.
import { isRecord, str } from './acp/messages.js';
import { RhoError } from './errors.js';

export interface SessionFacts {
  sessionId: string;
  model: string | null;
  mode: string | null;
  modes: string[];
  agent: { name: string | null; version: string | null };
}

// Reads the session id, the resolved model, the modes and the agent's name; no sessionId breaks the protocol.
export function readSession(initResult: unknown, session: unknown): SessionFacts {
  const s = isRecord(session) ? session : {};
  if (typeof s.sessionId !== 'string')
    throw new RhoError('protocol', 'session/new answered without a sessionId');
  const models = isRecord(s.models) ? s.models : {};
  const modes = isRecord(s.modes) ? s.modes : {};
  const info = isRecord(initResult) && isRecord(initResult.agentInfo) ? initResult.agentInfo : {};
  return {
    sessionId: s.sessionId,
    model: str(models.currentModelId),
    mode: str(modes.currentModeId),
    modes: (Array.isArray(modes.availableModes) ? modes.availableModes : [])
      .filter(isRecord)
      .map((m) => String(m.id)),
    agent: { name: str(info.name), version: str(info.version) },
  };
}

// Cursor reports some API failures as reply text and still ends the turn normally; returns that text's line.
export function replyReadsAsError(replyHead: string): string | undefined {
  const m = /^\s*(Error: \w*Error\b.*)/.exec(replyHead);
  return m ? m[1]!.split('\n')[0] : undefined;
}
