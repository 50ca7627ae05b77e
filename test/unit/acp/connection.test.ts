import { afterEach, describe, expect, it, vi } from 'vitest';
import { Connection, RpcRequestError, rpcErrorText } from '../../../src/acp/connection.js';
import { methodNotFound, RpcFailure, WITHDRAWN } from '../../../src/acp/handlers.js';
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

// A promise and the functions that settle it, for a handler that answers when the test says so.
function deferred<T = unknown>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const ask = (id: number | string, method = 'session/request_permission', params: unknown = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const withdraw = (requestId: unknown) => ({
  jsonrpc: '2.0',
  method: '$/cancel_request',
  params: { requestId },
});

describe('Connection: the handler registry', () => {
  it('answers a plain result before the next line of the same read is handled', () => {
    const { conn, receive, written, notifications } = setup();
    conn.handle('cursor/update_todos', (params) => ({ echoed: params }));
    receive(ask(0, 'cursor/update_todos', { todos: [] }));
    expect(written()).toEqual([{ jsonrpc: '2.0', id: 0, result: { echoed: { todos: [] } } }]);
    receive(withdraw(0));
    // Answered already: the withdrawal changes nothing and is passed on as any notification.
    expect(notifications).toHaveLength(1);
    expect(conn.openIncoming).toBe(0);
  });

  it('answers a promised result once it settles, with the request id and a live signal given', async () => {
    const { conn, receive, written } = setup();
    const answer = deferred();
    const seen: Array<{ params: unknown; id: unknown; aborted: boolean }> = [];
    conn.handle('session/request_permission', (params, { id, signal }) => {
      seen.push({ params, id, aborted: signal.aborted });
      return answer.promise;
    });
    receive(ask('a', 'session/request_permission', { x: 1 }));
    expect(seen).toEqual([{ params: { x: 1 }, id: 'a', aborted: false }]);
    expect(conn.openIncoming).toBe(1);
    expect(written()).toEqual([]);
    answer.resolve({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
    await settle();
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { outcome: { outcome: 'selected', optionId: 'allow-once' } } },
    ]);
    expect(conn.openIncoming).toBe(0);
  });

  it('answers an unknown method -32601 at once and hands it to the fallback', () => {
    const { conn, receive, written, requests } = setup();
    conn.handle('session/request_permission', () => ({}));
    receive(ask(4, 'terminal/create'));
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found: terminal/create' } },
    ]);
    expect(requests.map((r) => r.method)).toEqual(['terminal/create']);
  });

  it('answers -32601 without any fallback registered', () => {
    const sent: string[] = [];
    const conn = new Connection({ send: (l) => sent.push(l), onNotification: () => {}, onInvalid: () => {} });
    conn.handleLine(JSON.stringify(ask(null as unknown as number, 'fs/read_text_file')));
    expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found: fs/read_text_file' } },
    ]);
  });

  it('$/cancel_request aborts that one request, which is never answered; the others go on', async () => {
    const { conn, receive, written, notifications } = setup();
    const answers = new Map<unknown, ReturnType<typeof deferred>>();
    const signals = new Map<unknown, AbortSignal>();
    conn.handle('session/request_permission', (_p, { id, signal }) => {
      signals.set(id, signal);
      const d = deferred();
      answers.set(id, d);
      return d.promise;
    });
    receive(ask(0));
    receive(ask(1));
    receive(withdraw(0));
    expect(signals.get(0)!.aborted).toBe(true);
    expect(signals.get(0)!.reason).toBe(WITHDRAWN);
    expect(signals.get(1)!.aborted).toBe(false);
    expect(notifications).toEqual([]);
    expect(conn.openIncoming).toBe(1);
    // Whatever the withdrawn handler does next, nothing is written for it.
    answers.get(0)!.resolve({ late: true });
    answers.get(1)!.resolve({ ok: true });
    await settle();
    expect(written()).toEqual([{ jsonrpc: '2.0', id: 1, result: { ok: true } }]);
    // A withdrawal of a request no longer open is an ordinary notification.
    receive(withdraw(1));
    receive({ jsonrpc: '2.0', method: '$/cancel_request' });
    expect(notifications.map((n) => n.method)).toEqual(['$/cancel_request', '$/cancel_request']);
  });

  it('cancelIncoming aborts every open request, and each handler answers it once', async () => {
    const { conn, receive, written } = setup();
    conn.handle('session/request_permission', async (_p, { signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { outcome: { outcome: 'cancelled' } };
    });
    receive(ask(0));
    receive(ask(1));
    expect(conn.openIncoming).toBe(2);
    conn.cancelIncoming();
    conn.cancelIncoming();
    await settle();
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'cancelled' } } },
      { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'cancelled' } } },
    ]);
    expect(conn.openIncoming).toBe(0);
  });

  it('a handler that rethrows its abort reason is not answered', async () => {
    const { conn, receive, written } = setup();
    conn.handle('session/request_permission', async (_p, { signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      signal.throwIfAborted();
      return {};
    });
    receive(ask(0));
    conn.cancelIncoming('turn-ended');
    await settle();
    expect(written()).toEqual([]);
    expect(conn.openIncoming).toBe(0);
  });

  it('answers with the RpcFailure a handler throws, its data included', async () => {
    const { conn, receive, written, requests } = setup();
    conn.handle('a', () => {
      throw new RpcFailure(-32602, 'Invalid params', { field: 'toolCall' });
    });
    conn.handle('b', () => Promise.reject(new RpcFailure(-32000, 'not now')));
    receive(ask(0, 'a'));
    receive(ask(1, 'b'));
    await settle();
    expect(written()).toEqual([
      {
        jsonrpc: '2.0',
        id: 0,
        error: { code: -32602, message: 'Invalid params', data: { field: 'toolCall' } },
      },
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'not now' } },
    ]);
    expect(requests).toEqual([]);
  });

  it('answers an unexpected throw -32603, says so, and goes on answering', async () => {
    const failures: Array<[string, unknown]> = [];
    const sent: string[] = [];
    const conn = new Connection({
      send: (l) => sent.push(l),
      onNotification: () => {},
      onInvalid: () => {},
      onHandlerError: (method, e) => failures.push([method, e]),
    });
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    conn.handle('sync', () => {
      throw bug;
    });
    conn.handle('async', async () => {
      await Promise.resolve();
      throw new RhoError('internal', 'a string code is not a JSON-RPC error');
    });
    conn.handle('fine', () => ({}));
    expect(() => conn.handleLine(JSON.stringify(ask(0, 'sync')))).not.toThrow();
    conn.handleLine(JSON.stringify(ask(1, 'async')));
    conn.handleLine(JSON.stringify(ask(2, 'fine')));
    await settle();
    expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 0, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
    ]);
    expect(failures.map(([m]) => m)).toEqual(['sync', 'async']);
    expect(failures[0]![1]).toBe(bug);
  });

  it('writes no answer once the connection is closed', async () => {
    const { conn, receive, sent } = setup();
    const answer = deferred();
    conn.handle('session/request_permission', () => answer.promise);
    receive(ask(0));
    conn.close(new RhoError('cancelled', 'the run is over'));
    answer.resolve({ outcome: { outcome: 'cancelled' } });
    await settle();
    receive(ask(1, 'terminal/create'));
    expect(sent).toEqual([]);
  });

  it('answers each request once, also when the agent reuses an id still open', async () => {
    const { conn, receive, written } = setup();
    const answers: Array<ReturnType<typeof deferred>> = [];
    conn.handle('session/request_permission', () => {
      const d = deferred();
      answers.push(d);
      return d.promise;
    });
    receive(ask(0, 'session/request_permission', { n: 1 }));
    receive(ask(0, 'session/request_permission', { n: 2 }));
    answers[0]!.resolve({ n: 1 });
    answers[1]!.resolve({ n: 2 });
    conn.cancelIncoming();
    await settle();
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: 0, result: { n: 1 } },
      { jsonrpc: '2.0', id: 0, result: { n: 2 } },
    ]);
  });

  it('writes nothing for a withdrawn request, not even the error its handler ends with', async () => {
    const { conn, receive, written } = setup();
    const answer = deferred();
    conn.handle('session/request_permission', () => answer.promise);
    receive(ask(0));
    receive(withdraw(0));
    answer.reject(new Error('the question closed'));
    await settle();
    expect(written()).toEqual([]);
    expect(conn.openIncoming).toBe(0);
  });

  // Found by review: ids past 2^53 or 1e400 were answered under the id JSON.parse rounded them to.
  it.each(['9007199254740993', '18446744073709551615', '1e400', '-1e400'])(
    'answers a request with id %s -32600 with a null id, and never handles it',
    (id) => {
      const sent: string[] = [];
      const invalid: string[] = [];
      const conn = new Connection({
        send: (l) => sent.push(l),
        onNotification: () => {},
        onInvalid: (_l, why) => invalid.push(why),
      });
      let handled = 0;
      conn.handle('session/request_permission', () => handled++);
      conn.handleLine(`{"jsonrpc":"2.0","id":${id},"method":"session/request_permission","params":{}}`);
      expect(handled).toBe(0);
      expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: 'Invalid Request: an id that is no exact number (session/request_permission)',
          },
        },
      ]);
      expect(invalid).toHaveLength(1);
    },
  );

  it('answers a request with a safe integer or fractional id under that id', () => {
    const sent: string[] = [];
    const conn = new Connection({ send: (l) => sent.push(l), onNotification: () => {}, onInvalid: () => {} });
    conn.handle('x/y', () => 'ok');
    conn.handleLine('{"jsonrpc":"2.0","id":9007199254740991,"method":"x/y"}');
    conn.handleLine('{"jsonrpc":"2.0","id":1.5,"method":"x/y"}');
    expect(sent).toEqual([
      '{"jsonrpc":"2.0","id":9007199254740991,"result":"ok"}',
      '{"jsonrpc":"2.0","id":1.5,"result":"ok"}',
    ]);
  });

  // Found by review: a request the agent sent right after the turn's answer was dropped, never answered.
  it('while not accepting, answers a request cancelled at once and passes a withdrawal on', () => {
    let accepting = true;
    const sent: string[] = [];
    const notified: string[] = [];
    const conn = new Connection({
      send: (l) => sent.push(l),
      accepting: () => accepting,
      onNotification: (n) => notified.push(n.method),
      onInvalid: () => {},
    });
    const signals: AbortSignal[] = [];
    conn.handle('session/request_permission', (_p, { signal }) => {
      signals.push(signal);
      return new Promise(() => {});
    });
    conn.handleLine(JSON.stringify(ask(0)));
    accepting = false;
    conn.handleLine(JSON.stringify(ask(1)));
    conn.handleLine(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: {} }));
    conn.handleLine(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'cursor/create_plan', params: {} }));
    conn.handleLine(JSON.stringify(withdraw(0)));
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
    expect(notified).toEqual(['$/cancel_request']);
    expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'cancelled' } } },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32800, message: 'Request cancelled: fs/read_text_file came after the turn ended' },
      },
      { jsonrpc: '2.0', id: 3, result: { outcome: { outcome: 'cancelled' } } },
    ]);
  });
});

describe('the JSON-RPC error text', () => {
  it.each([
    {
      name: 'a message alone',
      rpc: { code: -32603, message: 'Internal error' },
      text: 'Internal error (code -32603)',
    },
    {
      name: 'null data as none',
      rpc: { code: 1, message: 'm', data: null },
      text: 'm (code 1)',
    },
    {
      name: 'data that repeats the message once',
      rpc: { code: 1, message: 'Query closed', data: 'Query closed' },
      text: 'Query closed (code 1)',
    },
    {
      name: "data's message",
      rpc: { code: 1, message: 'm', data: { message: 'the reason', details: 'other' } },
      text: 'm: the reason (code 1)',
    },
    {
      name: "data's details when it has no message",
      rpc: { code: 1, message: 'm', data: { details: 'the details' } },
      text: 'm: the details (code 1)',
    },
    {
      name: 'a data message that is no string, as JSON',
      rpc: { code: 1, message: 'm', data: { message: 3 } },
      text: 'm: {"message":3} (code 1)',
    },
    {
      name: 'data on several lines as one',
      rpc: { code: 1, message: 'm', data: '  first\n   second \r\n third  ' },
      text: 'm: first second third (code 1)',
    },
    { name: 'a number as data', rpc: { code: 1, message: 'm', data: 0 }, text: 'm: 0 (code 1)' },
    { name: 'empty data as none', rpc: { code: 1, message: 'm', data: '' }, text: 'm (code 1)' },
  ])('shows $name', ({ rpc, text }) => {
    expect(rpcErrorText(rpc)).toBe(text);
  });

  it('cuts long data to 500 characters', () => {
    const text = rpcErrorText({ code: 1, message: 'm', data: 'x'.repeat(2000) });
    expect(text).toBe(`m: ${'x'.repeat(499)}… (code 1)`);
  });

  it('cuts a long message to 500 characters too, so every sink gets a bounded error (found by review)', () => {
    expect(rpcErrorText({ code: 1, message: 'y'.repeat(2000) })).toBe(`${'y'.repeat(499)}… (code 1)`);
  });
});

describe('Connection: batches', () => {
  it('routes each message of a batch as itself', async () => {
    const { conn, receive, requests, notifications, invalid } = setup();
    const pending = conn.request('session/new', {});
    const request = { jsonrpc: '2.0', id: 'p', method: 'session/request_permission', params: {} };
    const notification = { jsonrpc: '2.0', method: 'session/update', params: { n: 1 } };
    receive([request, notification, { jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }, 5]);
    expect(requests).toEqual([request]);
    expect(notifications).toEqual([notification]);
    expect(invalid).toEqual([{ line: '5', reason: 'not a JSON-RPC object' }]);
    await expect(pending).resolves.toEqual({ sessionId: 's' });
  });

  it('reports a null in a batch as the line null', () => {
    const { conn, invalid } = setup();
    conn.handleLine('[null]');
    expect(invalid).toEqual([{ line: 'null', reason: 'not a JSON-RPC object' }]);
  });

  it('reports an over-deep message of a batch with the whole line, never serialising it', () => {
    const { conn, invalid } = setup();
    const deep = '['.repeat(600) + ']'.repeat(600);
    const line = `[${deep},{"jsonrpc":"2.0","method":"n"}]`;
    conn.handleLine(line);
    expect(invalid).toEqual([
      { line: line.slice(0, 199) + '…', reason: 'a message nested deeper than 512 levels' },
    ]);
  });
});

describe('Connection: messages nested too deep', () => {
  const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  it('answers a deep request -32600 and hands it no further', () => {
    const { conn, written, requests, invalid } = setup();
    conn.handleLine(`{"jsonrpc":"2.0","id":4,"method":"fs/read","params":${deep(600)}}`);
    expect(written()).toEqual([
      {
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32600, message: 'Invalid Request: nested deeper than 512 levels' },
      },
    ]);
    expect(requests).toEqual([]);
    expect(invalid).toEqual([
      {
        line: expect.stringMatching(/^.{199}…$/),
        reason: 'a request nested deeper than 512 levels, answered -32600',
      },
    ]);
  });

  it.each([
    { id: '"s"', answer: 's' },
    { id: 'null', answer: null },
  ])('answers a deep request with id $id under that id', ({ id, answer }) => {
    const { conn, written } = setup();
    conn.handleLine(`{"jsonrpc":"2.0","id":${id},"method":"x","params":${deep(600)}}`);
    expect(written()).toEqual([
      expect.objectContaining({ id: answer, error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });

  it('drops a deep notification as invalid, answering nothing', () => {
    const { conn, sent, notifications, invalid } = setup();
    conn.handleLine(`{"jsonrpc":"2.0","method":"session/update","params":${deep(600)}}`);
    expect(sent).toEqual([]);
    expect(notifications).toEqual([]);
    expect(invalid).toEqual([
      { line: expect.any(String), reason: 'a message nested deeper than 512 levels' },
    ]);
  });

  it('fails the request a deep response answers', async () => {
    vi.useFakeTimers();
    const { conn, invalid } = setup();
    let answered = 0;
    const pending = conn.request(
      'session/new',
      {},
      { ms: 1_000, error: () => new Error('timed out') },
      () => answered++,
    );
    conn.handleLine(`{"jsonrpc":"2.0","id":1,"result":${deep(600)}}`);
    expect(answered).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RhoError);
    expect(err).toMatchObject({
      code: 'protocol',
      message: 'the agent answered session/new with a message nested deeper than 512 levels',
    });
    expect(invalid).toEqual([]);
  });

  it('fails a request without an answered callback the same way', async () => {
    const { conn } = setup();
    const pending = conn.request('session/new', {});
    conn.handleLine(`{"jsonrpc":"2.0","id":1,"result":${deep(600)}}`);
    await expect(pending).rejects.toMatchObject({ code: 'protocol' });
  });

  it('reports a deep response to no pending request as invalid', () => {
    const { conn, invalid } = setup();
    conn.handleLine(`{"jsonrpc":"2.0","id":9,"result":${deep(600)}}`);
    expect(invalid).toEqual([
      { line: expect.any(String), reason: 'a message nested deeper than 512 levels' },
    ]);
  });

  it('reports a deep message with an object id as invalid, answering nothing', () => {
    const { conn, sent, invalid } = setup();
    conn.request('x', {}).catch(() => {});
    conn.handleLine(`{"jsonrpc":"2.0","id":{},"method":"x","params":${deep(600)}}`);
    conn.handleLine(`{"jsonrpc":"2.0","id":null,"result":${deep(600)}}`);
    expect(sent).toHaveLength(1);
    expect(invalid.map((i) => i.reason)).toEqual([
      'a message nested deeper than 512 levels',
      'a message nested deeper than 512 levels',
    ]);
  });

  it('takes a deep array as a batch of one deep message', () => {
    const { conn, invalid } = setup();
    conn.handleLine('['.repeat(600) + ']'.repeat(600));
    expect(invalid).toEqual([
      { line: expect.any(String), reason: 'a message nested deeper than 512 levels' },
    ]);
  });
});

describe('Connection: answers', () => {
  it("runs a request's answered callback before the next line is routed", () => {
    const { conn, requests } = setup();
    const order: string[] = [];
    void conn.request('session/prompt', {}, undefined, () =>
      order.push(`answered, ${requests.length} requests`),
    );
    conn.handleLine('{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}');
    conn.handleLine('{"jsonrpc":"2.0","id":5,"method":"late"}');
    expect(order).toEqual(['answered, 0 requests']);
    expect(requests).toHaveLength(1);
  });

  it('runs the answered callback of a request answered with an error too', async () => {
    const { conn, receive } = setup();
    let answered = false;
    const pending = conn.request('x', {}, undefined, () => (answered = true));
    receive({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'no' } });
    expect(answered).toBe(true);
    await expect(pending).rejects.toBeInstanceOf(RpcRequestError);
  });

  it('answers each request once: a second response to it is invalid', async () => {
    const { conn, receive, invalid } = setup();
    const pending = conn.request('x', {});
    receive({ jsonrpc: '2.0', id: 1, result: 'first' });
    receive({ jsonrpc: '2.0', id: 1, result: 'second' });
    await expect(pending).resolves.toBe('first');
    expect(invalid.map((i) => i.reason)).toEqual(['a response to unknown request id 1']);
  });

  it('stops the timers of the requests it fails on close', () => {
    vi.useFakeTimers();
    const { conn } = setup();
    conn.request('x', {}, { ms: 1_000, error: () => new Error('timed out') }).catch(() => {});
    expect(vi.getTimerCount()).toBe(1);
    conn.close(new Error('gone'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is open until closed', () => {
    const { conn } = setup();
    expect(conn.isClosed).toBe(false);
    conn.close(new Error('gone'));
    expect(conn.isClosed).toBe(true);
  });

  it('says on the wire whether an incoming line parsed as JSON', () => {
    const flags: string[] = [];
    const conn = new Connection({
      send: () => {},
      onNotification: () => {},
      onInvalid: () => {},
      onWire: (dir, _line, json) => flags.push(`${dir} ${String(json)}`),
    });
    conn.handleLine('{"jsonrpc":"2.0","method":"n"}');
    conn.handleLine('not json');
    conn.notify('n', {});
    expect(flags).toEqual(['a2c true', 'a2c false', 'c2a true']);
  });

  it('works without a wire log', async () => {
    const sent: string[] = [];
    const conn = new Connection({
      send: (l) => sent.push(l),
      onNotification: () => {},
      onInvalid: () => {},
    });
    const pending = conn.request('x', {});
    conn.handleLine('garbage');
    conn.handleLine('{"jsonrpc":"2.0","id":1,"result":2}');
    await expect(pending).resolves.toBe(2);
    expect(sent).toHaveLength(1);
  });
});

describe('Connection: withdrawals and handler failures', () => {
  it('withdraws only by $/cancel_request: another notification naming an open request id passes on', () => {
    const { conn, receive, notifications } = setup();
    const signals: AbortSignal[] = [];
    conn.handle('session/request_permission', (_p, { signal }) => {
      signals.push(signal);
      return new Promise(() => {});
    });
    receive(ask(0));
    receive({ jsonrpc: '2.0', method: '$/progress', params: { requestId: 0 } });
    expect(signals[0]!.aborted).toBe(false);
    expect(conn.openIncoming).toBe(1);
    expect(notifications.map((n) => n.method)).toEqual(['$/progress']);
  });

  it('answers a failing handler -32603 without an onHandlerError, and throws nothing', () => {
    const sent: string[] = [];
    const conn = new Connection({ send: (l) => sent.push(l), onNotification: () => {}, onInvalid: () => {} });
    conn.handle('m', () => {
      throw new TypeError('bug');
    });
    expect(() => conn.handleLine(JSON.stringify(ask(3, 'm')))).not.toThrow();
    expect(sent.map((l) => JSON.parse(l) as unknown)).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error' } },
    ]);
  });
});

describe('Connection: which lines answer the agent', () => {
  it('flags answers to its requests, never our own requests or notifications', async () => {
    const sent: Array<[string, boolean]> = [];
    const conn = new Connection({
      send: (l, answer) => sent.push([JSON.parse(l).method ?? 'answer', answer]),
      onNotification: () => {},
      onInvalid: () => {},
    });
    conn.fallback(() => ({ ok: true }));
    void conn.request('session/prompt', {}).catch(() => {});
    conn.notify('session/cancel', {});
    conn.handleLine('{"jsonrpc":"2.0","id":"a1","method":"x/y","params":{}}');
    conn.respondError('b2', -32601, 'no');
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      ['session/prompt', false],
      ['session/cancel', false],
      ['answer', true],
      ['answer', true],
    ]);
  });
});

// Found by review: an invalid message that could be answered was only a warning, so a request of ours that got
// `{"id":N,"error":null}` waited for ever, and an agent's invalid request was never answered.
describe('Connection: invalid messages answered where they can be', () => {
  it.each([
    ['error null, no result', { jsonrpc: '2.0', id: 1, error: null }],
    ['neither result nor error', { jsonrpc: '2.0', id: 1 }],
  ])('a message with our id and %s fails the request it answers', async (_what, msg) => {
    const { conn, receive, invalid } = setup();
    const answer = track(conn.request('session/prompt', {}));
    receive(msg);
    await settle();
    expect(answer.settled).toBe(true);
    expect(answer.error).toBeInstanceOf(RhoError);
    expect(answer.error).toMatchObject({
      code: 'protocol',
      message: 'the agent answered session/prompt with neither a result nor an error',
    });
    expect(invalid).toEqual([]);
  });

  it.each([
    ['a method that is no string, with an id', { jsonrpc: '2.0', id: 63, method: 5 }, 63],
    ['a null method, with a string id', { jsonrpc: '2.0', id: 'x', method: null }, 'x'],
    ['a method string and an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'x' }, null],
  ])('%s: answered -32600, handled by nobody', (_what, msg, answerId) => {
    const { written, receive, requests, invalid } = setup();
    receive(msg);
    expect(written()).toEqual([
      { jsonrpc: '2.0', id: answerId, error: expect.objectContaining({ code: -32600 }) as unknown },
    ]);
    expect(requests).toEqual([]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.reason).toMatch(/, answered -32600$/);
  });

  it('in a batch too, each invalid request answered', () => {
    const { conn, written } = setup();
    conn.handleLine('[{"jsonrpc":"2.0","id":64,"method":null},{"jsonrpc":"2.0","id":65,"method":7}]');
    expect(written().map((m) => m.id)).toEqual([64, 65]);
  });

  it('an invalid message without an id member is a warning only: nothing answered, no request failed', async () => {
    const { conn, sent, receive, invalid } = setup();
    const answer = track(conn.request('session/prompt', {}));
    receive({ jsonrpc: '2.0', method: 5 });
    receive({ jsonrpc: '2.0', id: 99 });
    await settle();
    expect(sent).toHaveLength(1);
    expect(answer.settled).toBe(false);
    expect(invalid).toHaveLength(2);
  });
});
