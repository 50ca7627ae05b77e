import { afterEach, describe, expect, it, vi } from 'vitest';
import { Connection, RpcRequestError } from '../../../src/acp/connection.js';
import { methodNotFound } from '../../../src/acp/handlers.js';
import type { Notification, Request } from '../../../src/acp/messages.js';
import { RhoError } from '../../../src/errors.js';

// A connection whose handlers record everything: lines written, requests, notifications, invalid lines.
function setup() {
  const sent: string[] = [];
  const requests: Request[] = [];
  const notifications: Notification[] = [];
  const invalid: { line: string; reason: string }[] = [];
  const wire: string[] = [];
  const conn = new Connection({
    send: (line) => sent.push(line),
    onNotification: (msg) => notifications.push(msg),
    onInvalid: (line, reason) => invalid.push({ line, reason }),
    onWire: (dir, line) => wire.push(`${dir} ${line}`),
  });
  // Every request reaches the fallback, as no handler is registered; it answers -32601 as the default does.
  conn.fallback((msg) => {
    requests.push(msg);
    throw methodNotFound(msg.method);
  });
  const written = () => sent.map((line) => JSON.parse(line) as Record<string, unknown>);
  const receive = (msg: unknown) => conn.handleLine(JSON.stringify(msg));
  return { conn, sent, written, receive, requests, notifications, invalid, wire };
}

// Watches a promise so a test can tell whether it has settled yet.
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

// Lets pending promise callbacks run; works under fake timers too.
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Connection', () => {
  it('numbers its requests from 1 and writes each as one JSON-RPC line', () => {
    const { conn, sent, written } = setup();
    void conn.request('initialize', { protocolVersion: 1 });
    void conn.request('session/new', { cwd: '/w', mcpServers: [] });
    expect(sent.every((line) => !line.includes('\n'))).toBe(true);
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
    ]);
  });

  it('settles each request with its own response, in any order', async () => {
    const { conn, receive } = setup();
    const first = conn.request('initialize', {});
    const second = conn.request('session/new', {});
    receive({ jsonrpc: '2.0', id: 2, result: { sessionId: 's1' } });
    receive({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } });
    await expect(first).resolves.toEqual({ protocolVersion: 1 });
    await expect(second).resolves.toEqual({ sessionId: 's1' });
  });

  it("hands the agent's request id 1 to onRequest while the client's request 1 is pending", async () => {
    const { conn, receive, requests } = setup();
    const prompt = track(conn.request('session/prompt', {}));
    const agentRequest = { jsonrpc: '2.0', id: 1, method: 'session/request_permission', params: { x: 1 } };
    receive(agentRequest);
    await settle();
    expect(requests).toEqual([agentRequest]);
    expect(prompt.settled).toBe(false);
    receive({ jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } });
    await settle();
    expect(prompt).toEqual({ settled: true, value: { stopReason: 'end_turn' } });
  });

  it('routes notifications to onNotification', () => {
    const { receive, notifications, requests } = setup();
    receive({ jsonrpc: '2.0', method: 'session/update', params: { update: {} } });
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'session/update', params: { update: {} } }]);
    expect(requests).toEqual([]);
  });

  it('rejects an error response with an RpcRequestError naming the method', async () => {
    const { conn, receive } = setup();
    const pending = conn.request('session/new', {});
    const rpc = { code: -32000, message: 'Authentication required', data: { authRequired: true } };
    receive({ jsonrpc: '2.0', id: 1, error: rpc });
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcRequestError);
    expect(err).toMatchObject({ method: 'session/new', rpc, code: 'rpc_error', exitCode: 1 });
    expect((err as Error).message).toBe(
      'session/new failed: Authentication required: {"authRequired":true} (code -32000)',
    );
  });

  it('rejects with the given error when no response comes in time', async () => {
    vi.useFakeTimers();
    const { conn, receive, invalid } = setup();
    const timeout = new RhoError('step_timeout', 'initialize took longer than 10s');
    const state = track(conn.request('initialize', {}, { ms: 10_000, error: () => timeout }));
    vi.advanceTimersByTime(9_999);
    await settle();
    expect(state.settled).toBe(false);
    vi.advanceTimersByTime(1);
    await settle();
    expect(state).toEqual({ settled: true, error: timeout });
    receive({ jsonrpc: '2.0', id: 1, result: {} });
    expect(invalid).toEqual([expect.objectContaining({ reason: 'a response to unknown request id 1' })]);
  });

  it('stops the timeout once the response arrives', async () => {
    vi.useFakeTimers();
    const { conn, receive } = setup();
    const pending = conn.request('initialize', {}, { ms: 1_000, error: () => new Error('timed out') });
    receive({ jsonrpc: '2.0', id: 1, result: 'ok' });
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    await expect(pending).resolves.toBe('ok');
  });

  it.each([
    { line: 'not json {', reason: 'not JSON' },
    { line: 'Loading...', reason: 'not JSON' },
    { line: '[]', reason: 'an empty JSON-RPC batch' },
    { line: '{"jsonrpc":"2.0","id":7}', reason: 'neither a request, a notification nor a response' },
    { line: '{"jsonrpc":"2.0","id":99,"result":{}}', reason: 'a response to unknown request id 99' },
  ])('sends $line to onInvalid and writes nothing back', ({ line, reason }) => {
    const { conn, sent, invalid, requests, notifications } = setup();
    conn.handleLine(line);
    expect(invalid).toEqual([{ line, reason }]);
    expect(sent).toEqual([]);
    expect(requests).toEqual([]);
    expect(notifications).toEqual([]);
  });

  it('writes notifications without an id and answers with result or error', () => {
    const { conn, written } = setup();
    conn.notify('session/cancel', { sessionId: 's1' });
    conn.respond(0, { outcome: { outcome: 'cancelled' } });
    conn.respondError('a', -32601, 'Method not found');
    expect(written()).toEqual([
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } },
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it('rejects every pending request on close, and every later one at once', async () => {
    const { conn, sent } = setup();
    const exited = new RhoError('agent_exited', 'the agent exited (code 1)');
    const first = conn.request('initialize', {}, { ms: 60_000, error: () => new Error('timed out') });
    const second = conn.request('session/new', {});
    conn.close(exited);
    await expect(first).rejects.toBe(exited);
    await expect(second).rejects.toBe(exited);
    await expect(conn.request('session/prompt', {})).rejects.toBe(exited);
    expect(conn.isClosed).toBe(true);
    expect(sent).toHaveLength(2);
  });

  it('writes nothing after close and keeps the first close reason', async () => {
    const { conn, sent } = setup();
    const first = new Error('first');
    conn.close(first);
    conn.close(new Error('second'));
    conn.notify('session/cancel', {});
    conn.respond(0, {});
    expect(sent).toEqual([]);
    await expect(conn.request('x', {})).rejects.toBe(first);
  });

  it('reports every line in both directions to onWire', () => {
    const { conn, wire } = setup();
    void conn.request('initialize', {});
    conn.handleLine('garbage');
    expect(wire).toEqual(['c2a {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', 'a2c garbage']);
  });
});
