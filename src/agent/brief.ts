// A short conversation with the agent outside a run (doctor --handshake, sessions): spawn it, initialize,
// let the caller send its requests, then end it with everything it started, on every path.
import {
  authError,
  checkInitialize,
  initializeError,
  initializeParams,
  isAuthError,
  stepTimeoutError,
} from '../acp/answers.js';
import { METHOD_NOT_FOUND, RpcFailure } from '../acp/handlers.js';
import { linkAgent } from './link.js';
import { AgentProcess } from './process.js';
import { RhoError } from '../errors.js';
import { monotonicMs } from '../lifecycle/timing.js';
import type { Teardown } from '../lifecycle/teardown.js';

export interface BriefInput {
  agentPath: string;
  /** --agent-arg: the agent's own arguments, instead of Cursor's `--trust acp`. */
  args?: readonly string[];
  label: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stepTimeoutMs: number;
  version: string;
  /** Aborted by a signal: the reason is the RhoError to report. */
  signal: AbortSignal;
  /** The command's teardown stack: the agent is released there (the exit hook included). */
  teardown: Teardown;
}

/** One request, bounded by --step-timeout and by the abort signal. */
export type Step = <T>(method: string, params: unknown) => Promise<T>;

// Runs body with a step function and the initialize answer (already checked to be ACP v1). Requests the
// agent sends meanwhile get -32601; the agent is ended when body settles, however it does.
export async function withAgent<T>(
  i: BriefInput,
  body: (step: Step, init: Record<string, unknown>, timeInit: number) => Promise<T>,
  now: () => number = monotonicMs,
): Promise<T> {
  let release: (() => Promise<void>) | undefined;
  let phase = 'initialize';
  try {
    const args = i.args && i.args.length > 0 ? [...i.args] : ['--trust', 'acp'];
    const agent = new AgentProcess(i.agentPath, args, i.cwd, i.env);
    release = i.teardown.defer({
      name: 'agent',
      run: () => agent.terminate(),
      runSync: () => agent.killNowAndRelease(),
    });
    const conn = linkAgent(agent, {
      label: i.label,
      phase: () => phase,
      wire: undefined,
      onNotification: () => {},
      onInvalid: () => {},
      onText: () => {},
      onActivity: () => {},
      flush: () => true,
      whenWritable: (go: () => void) => go(),
    });
    // Requests the agent sends meanwhile are for a run, not for this conversation.
    conn.fallback((msg) => {
      throw new RpcFailure(METHOD_NOT_FOUND, `rho-cursor: no ${msg.method} here`);
    });
    const why = (): Error =>
      i.signal.reason instanceof Error ? i.signal.reason : new Error(String(i.signal.reason));
    const aborted = new Promise<never>((_, reject) => {
      if (i.signal.aborted) reject(why());
      i.signal.addEventListener('abort', () => reject(why()), { once: true });
    });
    aborted.catch(() => {});
    const step: Step = <R>(method: string, params: unknown): Promise<R> => {
      phase = method;
      const error = (): Error => stepTimeoutError(method, i.stepTimeoutMs);
      return Promise.race([conn.request<R>(method, params, { ms: i.stepTimeoutMs, error }), aborted]);
    };
    const t = now();
    const init = checkInitialize(
      await step<unknown>('initialize', initializeParams(i.version)).catch((e: unknown) => {
        throw isAuthError(e) ? authError(e, undefined, i.label) : initializeError(e);
      }),
    );
    const result = await body(step, init, Math.round(now() - t));
    conn.close(new RhoError('cancelled', 'done'));
    return result;
  } finally {
    await release?.();
  }
}
