// doctor --handshake: initialize and session/new against the real agent, timed, then the agent is ended.
// The caller gives it a fenced environment, so Cursor cannot rewrite the user's cli-config.json while we look.
import { RpcRequestError } from '../acp/connection.js';
import { isRecord, str } from '../acp/messages.js';
import { linkAgent } from '../agent/link.js';
import { AgentProcess } from '../agent/process.js';
import { RhoError, toRhoError } from '../errors.js';
import { fmtMs } from '../stop.js';
import type { HandshakeReport } from './report.js';

export interface HandshakeInput {
  agentPath: string;
  label: string;
  cwd: string;
  /** The agent's environment, CURSOR_CONFIG_DIR pointing at a private dir. */
  env: NodeJS.ProcessEnv;
  stepTimeoutMs: number;
  version: string;
  now(): number;
  /** Aborted by a signal: the reason is the RhoError to report. */
  signal: AbortSignal;
}

// Is this JSON-RPC error Cursor's authRequired? (The same test the run applies to session/new.)
export function isAuthError(err: unknown): boolean {
  return err instanceof RpcRequestError && (err.rpc.code === -32000 || /auth/i.test(err.rpc.message));
}

// Runs the two steps and reports them; the error, if any, is what a run would have failed with.
export async function handshake(i: HandshakeInput): Promise<{ report: HandshakeReport; error?: RhoError }> {
  const report: HandshakeReport = {
    initializeMs: null,
    sessionNewMs: null,
    authenticated: null,
    model: null,
    fence: 'read-only',
    error: null,
  };
  let agent: AgentProcess | undefined;
  const killOnExit = (): void => agent?.killNow();
  process.once('exit', killOnExit);
  let phase = 'initialize';
  try {
    agent = new AgentProcess(i.agentPath, ['--trust', 'acp'], i.cwd, i.env);
    const conn = linkAgent(agent, {
      label: i.label,
      phase: () => phase,
      wire: undefined,
      onRequest: (msg) => conn.respondError(msg.id, -32601, `rho-cursor doctor: no ${msg.method}`),
      onNotification: () => {},
      onInvalid: () => {},
      onText: () => {},
      onActivity: () => {},
      flush: () => true,
      drainTarget: () => process.stdout,
    });
    const aborted = new Promise<never>((_, reject) => {
      if (i.signal.aborted) reject(i.signal.reason);
      i.signal.addEventListener('abort', () => reject(i.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    const step = <T>(method: string, params: unknown): Promise<T> => {
      phase = method;
      const error = (): Error =>
        new RhoError(
          'step_timeout',
          `${method} got no answer within ${fmtMs(i.stepTimeoutMs)} (--step-timeout)`,
        );
      return Promise.race([conn.request<T>(method, params, { ms: i.stepTimeoutMs, error }), aborted]);
    };
    let t = i.now();
    const init = await step<unknown>('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'rho-cursor', version: i.version },
    });
    report.initializeMs = Math.round(i.now() - t);
    if (!isRecord(init) || init.protocolVersion !== 1) {
      throw new RhoError(
        'protocol_version',
        `initialize answered ${isRecord(init) ? `protocolVersion ${JSON.stringify(init.protocolVersion)}` : JSON.stringify(init)}, not 1`,
      );
    }
    t = i.now();
    try {
      const session = await step<unknown>('session/new', { cwd: i.cwd, mcpServers: [] });
      report.sessionNewMs = Math.round(i.now() - t);
      report.authenticated = true;
      const models = isRecord(session) && isRecord(session.models) ? session.models : {};
      report.model = str(models.currentModelId);
    } catch (e) {
      if (!isAuthError(e)) throw e;
      report.sessionNewMs = Math.round(i.now() - t);
      report.authenticated = false;
      throw new RhoError(
        'auth_required',
        `the agent is not authenticated: ${(e as RpcRequestError).rpc.message}`,
        {
          hint: 'set CURSOR_API_KEY or run `cursor-agent login`',
        },
      );
    }
    conn.close(new RhoError('cancelled', 'doctor is done'));
    return { report };
  } catch (e) {
    const error = toRhoError(e);
    report.error = error.hint ? `${error.message} (${error.hint})` : error.message;
    return { report, error };
  } finally {
    await agent?.terminate();
    process.removeListener('exit', killOnExit);
  }
}
