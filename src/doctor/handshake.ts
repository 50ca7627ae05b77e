// doctor --handshake: initialize and session/new against the real agent, timed, then the agent is ended.
// The caller gives it a fenced environment, so Cursor cannot rewrite the user's cli-config.json while we look.
import { authError, isAuthError } from '../acp/answers.js';
import { cursorAtSpawn, identify, type AgentIdentity } from '../agent/identity.js';
import { isRecord, str } from '../acp/messages.js';
import { withAgent, type BriefInput } from '../agent/brief.js';
import type { RhoError } from '../errors.js';
import { toRhoError } from '../errors.js';
import type { HandshakeReport } from './report.js';

/** The agent's environment has CURSOR_CONFIG_DIR pointing at a private dir; `now` times the steps. */
export interface HandshakeInput extends BriefInput {
  now: () => number;
}

// Runs the two steps and reports them; the error, if any, is what a run would have failed with.
export async function handshake(
  i: HandshakeInput,
): Promise<{ report: HandshakeReport; error?: RhoError; identity?: AgentIdentity }> {
  let identity: AgentIdentity | undefined;
  const report: HandshakeReport = {
    initializeMs: null,
    sessionNewMs: null,
    authenticated: null,
    model: null,
    fence: 'read-only',
    error: null,
  };
  try {
    await withAgent(
      i,
      async (step, init, initializeMs) => {
        report.initializeMs = initializeMs;
        identity = identify(cursorAtSpawn(i.label, i.args ?? []), init);
        const t = i.now();
        try {
          const session = await step<unknown>('session/new', { cwd: i.cwd, mcpServers: [] });
          report.sessionNewMs = Math.round(i.now() - t);
          // Cursor asks for its login at session/new (recordings/auth-required.jsonl); another agent may ask
          // only at the prompt (Claude's adapter does), which doctor never sends: not known, so null.
          report.authenticated = identity.cursor ? true : null;
          const models = isRecord(session) && isRecord(session.models) ? session.models : {};
          report.model = str(models.currentModelId);
        } catch (e) {
          if (!isAuthError(e)) throw e;
          report.sessionNewMs = Math.round(i.now() - t);
          report.authenticated = false;
          // What the agent said in full (its error's data too) and the ways it offers to log in, as a run says.
          throw authError(e, init, i.label, identity?.cursor !== false);
        }
      },
      i.now,
    );
    return { report, identity };
  } catch (e) {
    const error = toRhoError(e);
    report.error = error.hint ? `${error.message} (${error.hint})` : error.message;
    return { report, error, identity };
  }
}
