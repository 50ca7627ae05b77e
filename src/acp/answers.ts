// Pure: the agent's answers that decide whether the run may go on (initialize, an auth error, the stopReason).
import { cursorAtSpawn, identify } from '../agent/identity.js';
import { RhoError } from '../errors.js';
import { fmtMs } from '../stop.js';
import { rpcErrorText, RpcRequestError } from './connection.js';
import { isRecord, str } from './messages.js';

/** The stopReasons of ACP v1; anything else breaks the protocol. */
export const STOP_REASONS = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'] as const;

/** ACP v2 (a draft) refuses a v1 initialize with this code. */
import { cutEnd } from '../sanitize/cut.js';

const UNSUPPORTED_VERSION = -32022;
export const CURSOR_HINT = 'set CURSOR_API_KEY or run `cursor-agent login`';

// What the agent said, short, for a message: JSON of at most 200 characters.
function said(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return cutEnd(text, 200);
}

// initialize must answer an object with protocolVersion 1 (the number): a v1 client must not misread v2.
// What rho-cursor sends as initialize: ACP v1, and no fs or terminal capability (the agent does its own).
export function initializeParams(version: string): Record<string, unknown> {
  return {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'rho-cursor', version },
  };
}

// A handshake step that got no answer in time (exit 124).
export function stepTimeoutError(method: string, ms: number): RhoError {
  return new RhoError('step_timeout', `${method} got no answer within ${fmtMs(ms)} (--step-timeout)`);
}

export function checkInitialize(result: unknown): Record<string, unknown> {
  if (!isRecord(result))
    throw new RhoError(
      'protocol',
      `initialize answered ${said(result)}, not an object: this is not an ACP agent`,
    );
  if (result.protocolVersion !== 1) {
    throw new RhoError(
      'protocol_version',
      `the agent answered initialize with protocolVersion ${said(result.protocolVersion)}; rho-cursor speaks ACP version 1 only`,
    );
  }
  return result;
}

// An initialize that failed: -32022 is a v2-only agent refusing v1, said as such; anything else as it came.
export function initializeError(err: unknown): unknown {
  if (!(err instanceof RpcRequestError) || err.rpc.code !== UNSUPPORTED_VERSION) return err;
  return new RhoError(
    'protocol_version',
    `the agent refused ACP version 1 (${rpcErrorText(err.rpc)}): it speaks only a newer version (ACP v2 is a draft); rho-cursor speaks version 1`,
  );
}

/** ACP's auth_required error code; the rest of the -32000 range is any server error. */
const AUTH_REQUIRED = -32000;
/** What an auth error says: "Authentication required", "not logged in", "invalid API key"... never just "author". */
const AUTH_WORDS =
  /\b(auth(entication|enticate|enticated|orization|orized)?|unauthori[sz]ed|log(ged)? ?in|sign(ed)? ?in|api[ _-]?key|credentials?)\b/i;

// Is this JSON-RPC error ACP's auth_required: code -32000 with a message (or data) about authentication, or
// data that names auth_required? Any other error that mentions "auth" is not one.
export function isAuthError(err: unknown): err is RpcRequestError {
  if (!(err instanceof RpcRequestError) || err.rpc.code !== AUTH_REQUIRED) return false;
  const data = err.rpc.data;
  const named = (v: unknown): boolean => v === 'auth_required' || v === 'authRequired';
  if (named(data) || (isRecord(data) && Object.values(data).some(named))) return true;
  return AUTH_WORDS.test(err.rpc.message) || (typeof data === 'string' && AUTH_WORDS.test(data));
}

// The auth error the user sees: what the agent said and the ways it offers to log in; Cursor's hint for Cursor
// (told from initialize, else from the executable's name).
export function authError(
  err: RpcRequestError,
  init: unknown,
  agentLabel: string,
  cursor = identify(cursorAtSpawn(agentLabel, []), init).cursor,
): RhoError {
  // Stryker disable next-line ArrayDeclaration: filtered to records below, a placeholder is dropped
  const methods = (isRecord(init) && Array.isArray(init.authMethods) ? init.authMethods : [])
    .filter(isRecord)
    .map((m) => {
      const name = str(m.name) ?? str(m.id) ?? '?';
      const id = str(m.id);
      const description = str(m.description);
      return `${name}${id && id !== name ? ` (${id})` : ''}${description ? `: ${description}` : ''}`;
    });
  const offers = methods.length > 0 ? `; it offers: ${methods.join('; ')}` : '';
  const message = `${agentLabel} needs authentication: ${rpcErrorText(err.rpc)}${offers}`;
  return new RhoError('auth_required', message, cursor ? { hint: CURSOR_HINT } : {});
}

// session/prompt's answer: the stopReason, or the protocol error for a missing or unknown one, or an
// unsolicited `cancelled` (ACP reserves it for answering our session/cancel; exit 130 would claim a Ctrl-C).
export function readStopReason(
  result: unknown,
  cancelledByUs: boolean,
  rejected?: { title: string; kind: string },
): { stopReason: string | null; error?: RhoError } {
  const stopReason = isRecord(result) ? str(result.stopReason) : null;
  if (stopReason === null) {
    return {
      stopReason,
      error: new RhoError('protocol', `session/prompt answered ${said(result)}, without a stopReason`),
    };
  }
  if (!(STOP_REASONS as readonly string[]).includes(stopReason)) {
    return {
      stopReason,
      error: new RhoError(
        'protocol',
        `session/prompt answered stopReason ${said(stopReason)}, which ACP v1 does not define (${STOP_REASONS.join(', ')})`,
      ),
    };
  }
  // A turn ended right after rho-cursor rejected one of the agent's requests (and no tool started since) was
  // ended by that rejection: denied, exit 7, as --strict would have it.
  if (stopReason === 'cancelled' && !cancelledByUs && rejected) {
    return {
      stopReason,
      error: new RhoError(
        'denied',
        `the agent ended its turn (cancelled) when rho-cursor rejected its request to ${rejected.kind}: ${rejected.title}`,
      ),
    };
  }
  if (stopReason === 'cancelled' && !cancelledByUs) {
    return {
      stopReason,
      error: new RhoError(
        'protocol',
        'the agent ended the turn as cancelled though rho-cursor did not cancel it: the turn did not finish',
      ),
    };
  }
  return { stopReason };
}
