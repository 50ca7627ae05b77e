import { describe, expect, it } from 'vitest';
import {
  authError,
  checkInitialize,
  CURSOR_HINT,
  initializeError,
  initializeParams,
  isAuthError,
  readStopReason,
  stepTimeoutError,
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

describe('initializeParams', () => {
  it('asks for ACP v1 and offers no fs or terminal, naming rho-cursor and its version', () => {
    expect(initializeParams('1.2.3')).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'rho-cursor', version: '1.2.3' },
    });
  });
});

describe('stepTimeoutError', () => {
  it('names the step, the time and the option, exit 124', () => {
    const e = stepTimeoutError('session/new', 30_000);
    expect(e).toMatchObject({ code: 'step_timeout', exitCode: 124 });
    expect(e.message).toBe('session/new got no answer within 30s (--step-timeout)');
  });
});

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

  it('says what the agent answered, as JSON, and that it is no ACP agent', () => {
    expect(thrown(() => checkInitialize('ok'))?.message).toBe(
      'initialize answered "ok", not an object: this is not an ACP agent',
    );
    expect(thrown(() => checkInitialize(undefined))?.message).toMatch(/^initialize answered nothing, /);
  });

  it('cuts a long answer to 200 characters', () => {
    const message = thrown(() => checkInitialize({ protocolVersion: 'v'.repeat(500) }))?.message ?? '';
    const said = /protocolVersion (.*); rho-cursor/.exec(message)?.[1] ?? '';
    expect(said).toHaveLength(200);
    expect(said.endsWith('…')).toBe(true);
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
    const plain = new Error('spawn failed');
    expect(initializeError(plain)).toBe(plain);
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
  it.each<{ code: number; message: string; data?: unknown; auth: boolean }>([
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
    // Every word the pattern knows, each alone.
    ...[
      'auth failed',
      'authentication failed',
      'please authenticate',
      'not authenticated',
      'authorization denied',
      'not authorized',
      'unauthorised',
      'login required',
      'log in first',
      'not logged in',
      'loggedin: false',
      'signin required',
      'sign in first',
      'not signed in',
      'signedin: false',
      'missing api key',
      'bad api_key',
      'no api-key',
      'apikey missing',
      'bad credential',
      'no credentials',
      'AUTHENTICATION REQUIRED',
    ].map((message) => ({ code: -32000, message, auth: true })),
    // Only whole words: a word that merely contains one is no auth error.
    ...[
      'unknown author in commit',
      'OAuth token refresh failed',
      'authors list is empty',
      'blogging in progress',
      'login2 failed',
      'design input invalid',
      'credentialsX',
    ].map((message) => ({ code: -32000, message, auth: false })),
    { code: -32000, message: 'Server error', data: 'authRequired', auth: true },
    { code: -32000, message: 'Server error', data: { code: 'authRequired' }, auth: true },
    { code: -32000, message: 'Server error', data: { retry: false, reason: 'auth_required' }, auth: true },
    { code: -32000, message: 'Server error', data: { reason: 'quota' }, auth: false },
    { code: -32000, message: 'Server error', data: 'quota exceeded', auth: false },
    // Words in data count only when the data is a string.
    { code: -32000, message: 'Server error', data: ['please log in'], auth: false },
    { code: -32000, message: 'Server error', data: { details: 'please log in' }, auth: false },
    { code: -32603, message: 'Server error', data: 'auth_required', auth: false },
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

  it('tells Cursor from its initialize answer over the executable name', () => {
    const cursorInit = { authMethods: [{ id: 'cursor_login', name: 'Cursor login' }] };
    expect(authError(rpc, cursorInit, '/opt/wrapper').hint).toBe(CURSOR_HINT);
    expect(authError(rpc, { agentInfo: { name: 'gemini-cli' } }, 'agent').hint).toBeUndefined();
    expect(authError(rpc, undefined, '/opt/wrapper').hint).toBeUndefined();
    expect(authError(rpc, undefined, '/opt/wrapper', true).hint).toBe(CURSOR_HINT);
  });

  it('says only what the agent said when it offers no way to log in', () => {
    for (const init of [undefined, 'x', {}, { authMethods: 'oauth' }, { authMethods: ['oauth', null] }]) {
      expect(authError(rpc, init, 'gemini').message).toBe(
        'gemini needs authentication: Authentication required (code -32000)',
      );
    }
  });

  it.each([
    { method: { id: 'oauth', name: 'OAuth' }, said: 'OAuth (oauth)' },
    { method: { id: 'oauth', name: 'oauth' }, said: 'oauth' },
    { method: { id: 'oauth' }, said: 'oauth' },
    { method: { name: 'Log in' }, said: 'Log in' },
    { method: { name: 7, id: 7 }, said: '?' },
    { method: {}, said: '?' },
    { method: { id: 'key', description: 'set KEY' }, said: 'key: set KEY' },
    { method: { id: 'key', name: 'Key', description: 3 }, said: 'Key (key)' },
  ])('names an auth method $method as $said', ({ method, said }) => {
    expect(authError(rpc, { authMethods: [method] }, 'gemini').message).toBe(
      `gemini needs authentication: Authentication required (code -32000); it offers: ${said}`,
    );
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
    expect(r).toEqual({ stopReason: 'cancelled', error: expect.objectContaining({ code: 'protocol' }) });
    expect(r.error).toMatchObject({ exitCode: 1 });
    expect(r.error?.message).toBe(
      'the agent ended the turn as cancelled though rho-cursor did not cancel it: the turn did not finish',
    );
  });

  it('is denied (exit 7) for a cancelled right after rho-cursor rejected a request', () => {
    const r = readStopReason({ stopReason: 'cancelled' }, false, { title: 'rm -rf /', kind: 'execute' });
    expect(r.stopReason).toBe('cancelled');
    expect(r.error).toMatchObject({ code: 'denied', exitCode: 7 });
    expect(r.error?.message).toBe(
      'the agent ended its turn (cancelled) when rho-cursor rejected its request to execute: rm -rf /',
    );
  });

  it('is no error after our own cancel, even with a rejection before it', () => {
    const rejected = { title: 'x', kind: 'edit' };
    expect(readStopReason({ stopReason: 'cancelled' }, true, rejected)).toEqual({ stopReason: 'cancelled' });
  });

  it('keeps a rejection out of a turn that ended otherwise', () => {
    const rejected = { title: 'x', kind: 'edit' };
    expect(readStopReason({ stopReason: 'end_turn' }, false, rejected)).toEqual({ stopReason: 'end_turn' });
  });

  it.each([{ stopReason: 'done' }, { stopReason: 3 }, {}, null])('is a protocol error for %j', (result) => {
    expect(readStopReason(result, false).error).toMatchObject({ code: 'protocol', exitCode: 1 });
  });

  it('says what came instead of a stopReason', () => {
    expect(readStopReason({ stopReason: 3 }, false)).toEqual({
      stopReason: null,
      error: expect.objectContaining({
        message: 'session/prompt answered {"stopReason":3}, without a stopReason',
      }),
    });
    expect(readStopReason(undefined, false).error?.message).toBe(
      'session/prompt answered nothing, without a stopReason',
    );
  });

  it('names an unknown stopReason and the ones ACP v1 defines', () => {
    const r = readStopReason({ stopReason: 'done' }, false);
    expect(r.stopReason).toBe('done');
    expect(r.error?.message).toBe(
      'session/prompt answered stopReason "done", which ACP v1 does not define (end_turn, max_tokens, max_turn_requests, refusal, cancelled)',
    );
  });
});
