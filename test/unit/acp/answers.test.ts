import { describe, expect, it } from 'vitest';
import {
  authError,
  checkInitialize,
  initializeError,
  isAuthError,
  readStopReason,
} from '../../../src/acp/answers.js';
import { RpcRequestError } from '../../../src/acp/connection.js';
import type { RhoError } from '../../../src/errors.js';

// The RhoError a function throws, or undefined.
const thrown = (f: () => unknown): RhoError | undefined => {
  try {
    f();
  } catch (e) {
    return e as RhoError;
  }
  return undefined;
};

describe('checkInitialize', () => {
  it('accepts protocolVersion 1', () => {
    expect(checkInitialize({ protocolVersion: 1 })).toEqual({ protocolVersion: 1 });
  });

  it.each([
    { version: 2, said: '2' },
    { version: 0, said: '0' },
    { version: '1', said: '"1"' },
    { version: 99, said: '99' },
    { version: undefined, said: 'nothing' },
  ])('stops on protocolVersion $said, naming it', ({ version, said }) => {
    const e = thrown(() => checkInitialize({ protocolVersion: version }));
    expect(e).toMatchObject({ code: 'protocol_version', exitCode: 1 });
    expect(e?.message).toContain(`protocolVersion ${said};`);
  });

  it.each([null, 'ok', [1]])('stops on an answer that is no object (%j)', (result) => {
    expect(thrown(() => checkInitialize(result))).toMatchObject({ code: 'protocol', exitCode: 1 });
  });
});

describe('initializeError', () => {
  it('says a v2-only agent refused v1 (-32022)', () => {
    const e = initializeError(
      new RpcRequestError('initialize', { code: -32022, message: 'Unsupported protocol version' }),
    );
    expect(e).toMatchObject({ code: 'protocol_version' });
    expect((e as Error).message).toMatch(/refused ACP version 1 .*-32022.*newer version \(ACP v2/);
  });

  it('leaves other errors as they are', () => {
    const other = new RpcRequestError('initialize', { code: -32603, message: 'Internal error' });
    expect(initializeError(other)).toBe(other);
  });
});

describe('the JSON-RPC error text', () => {
  it("shows the error's data, where the real reason often is", () => {
    const e = new RpcRequestError('session/prompt', {
      code: -32603,
      message: 'Internal error',
      data: { details: 'model backend unreachable' },
    });
    expect(e.message).toBe('session/prompt failed: Internal error: model backend unreachable (code -32603)');
    expect(new RpcRequestError('x', { code: 1, message: 'm', data: 'Query closed' }).message).toBe(
      'x failed: m: Query closed (code 1)',
    );
    expect(new RpcRequestError('x', { code: 1, message: 'm', data: { a: 1 } }).message).toBe(
      'x failed: m: {"a":1} (code 1)',
    );
  });
});

describe('isAuthError', () => {
  it.each([
    { code: -32000, message: 'Authentication required', auth: true },
    { code: -32000, message: 'Authentication required: run `claude /login`', auth: true },
    { code: -32000, message: 'Not logged in', auth: true },
    { code: -32000, message: 'Invalid API key', auth: true },
    { code: -32000, message: 'Unauthorized', auth: true },
    { code: -32000, message: 'Server error', data: 'auth_required', auth: true },
    { code: -32000, message: 'Server error', data: { reason: 'auth_required' }, auth: true },
    { code: -32000, message: 'Server error', data: 'please sign in first', auth: true },
    { code: -32000, message: 'Rate limit exceeded', auth: false },
    { code: -32000, message: 'Internal error', data: { details: 'backend down' }, auth: false },
    { code: -32000, message: 'unknown author in commit', auth: false },
    { code: -32603, message: 'Authentication required', auth: false },
    { code: -32603, message: 'OAuth token refresh failed for MCP server', auth: false },
    { code: -32602, message: 'Invalid params: authMethodId', auth: false },
  ])('$code "$message" $data: $auth', ({ code, message, data, auth }) => {
    expect(isAuthError(new RpcRequestError('session/prompt', { code, message, data }))).toBe(auth);
  });

  it('is never true of an error that is no JSON-RPC answer', () => {
    expect(isAuthError(new Error('Authentication required'))).toBe(false);
  });
});

describe('authError', () => {
  const rpc = new RpcRequestError('session/new', { code: -32000, message: 'Authentication required' });

  it("says what the agent offers, without Cursor's hint, for another agent", () => {
    const init = {
      agentInfo: { name: 'gemini-cli' },
      authMethods: [
        { id: 'oauth-personal', name: 'Log in with Google' },
        { id: 'gemini-api-key', name: 'Use Gemini API key', description: 'set GEMINI_API_KEY' },
      ],
    };
    const e = authError(rpc, init, '/usr/bin/gemini');
    expect(e).toMatchObject({ code: 'auth_required', exitCode: 3, hint: undefined });
    expect(e.message).toMatch(
      /needs authentication: Authentication required \(code -32000\); it offers: Log in with Google \(oauth-personal\); Use Gemini API key \(gemini-api-key\): set GEMINI_API_KEY/,
    );
    expect(e.message).not.toMatch(/CURSOR_API_KEY/);
  });

  it("gives Cursor's hint to a Cursor-like agent", () => {
    const init = { authMethods: [{ id: 'cursor_login', name: 'Cursor login' }] };
    expect(authError(rpc, init, 'cursor-agent').hint).toMatch(/CURSOR_API_KEY/);
    expect(authError(rpc, {}, 'cursor-agent').hint).toMatch(/cursor-agent login/);
  });
});

describe('readStopReason', () => {
  it.each(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal'])('accepts %s', (r) => {
    expect(readStopReason({ stopReason: r }, false)).toEqual({ stopReason: r });
  });

  it('accepts cancelled after our own cancel', () => {
    expect(readStopReason({ stopReason: 'cancelled' }, true)).toEqual({ stopReason: 'cancelled' });
  });

  it('is a protocol error for an unsolicited cancelled, never a Ctrl-C', () => {
    const r = readStopReason({ stopReason: 'cancelled' }, false);
    expect(r.error).toMatchObject({ code: 'protocol', exitCode: 1 });
  });

  it.each([{ stopReason: 'done' }, { stopReason: 3 }, {}, null])('is a protocol error for %j', (result) => {
    expect(readStopReason(result, false).error).toMatchObject({ code: 'protocol', exitCode: 1 });
  });
});
