// The handler registry on its own: what it writes for each way a handler ends, with a recording responder.
import { describe, expect, it } from 'vitest';
import { Handlers, type RequestHandler, type Responder } from '../../../src/acp/handlers.js';
import type { Id, RpcError } from '../../../src/acp/messages.js';

// A registry whose answers are recorded in order, with or without the `failed` callback.
function setup(withFailed = true) {
  const out: Array<{ id: Id | null; result?: unknown; error?: RpcError }> = [];
  const failed: Array<[string, unknown]> = [];
  const responder: Responder = {
    result: (id, result) => out.push({ id, result }),
    error: (id, error) => out.push({ id, error }),
    ...(withFailed ? { failed: (method: string, e: unknown) => failed.push([method, e]) } : {}),
  };
  const handlers = new Handlers(responder);
  const run = (id: Id | null, method: string, fn: RequestHandler): void => {
    handlers.set(method, fn);
    handlers.run({ jsonrpc: '2.0', id, method });
  };
  return { handlers, out, failed, run };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('Handlers', () => {
  it('answers a handler that returns nothing with a null result', () => {
    const { out, run } = setup();
    run(3, 'm', () => undefined);
    expect(out).toStrictEqual([{ id: 3, result: null }]);
  });

  it('answers an RpcError without data with exactly its code and message, no data member', () => {
    const { out, run } = setup();
    run(1, 'm', () => {
      throw { code: -32000, message: 'busy' };
    });
    expect(out).toStrictEqual([{ id: 1, error: { code: -32000, message: 'busy' } }]);
    expect(Object.keys(out[0]!.error!)).toEqual(['code', 'message']);
  });

  it('answers -32603 for a thrown {code} whose message is not a string, and reports it', () => {
    const { out, failed, run } = setup();
    const odd = { code: -32000, message: 42 };
    run(1, 'm', () => {
      throw odd;
    });
    expect(out).toStrictEqual([{ id: 1, error: { code: -32603, message: 'Internal error' } }]);
    expect(failed).toEqual([['m', odd]]);
  });

  it('answers -32603 for a thrown undefined while the request is not aborted', () => {
    const { out, run } = setup();
    run(1, 'm', () => {
      throw undefined;
    });
    expect(out).toStrictEqual([{ id: 1, error: { code: -32603, message: 'Internal error' } }]);
  });

  it('answers an aborted request whose handler throws something other than the abort reason', async () => {
    const { handlers, out, run } = setup();
    run(1, 'm', async (_p, { signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      throw { code: -32800, message: 'Request cancelled' };
    });
    handlers.abortAll('turn over');
    await settle();
    expect(out).toStrictEqual([{ id: 1, error: { code: -32800, message: 'Request cancelled' } }]);
  });

  it('answers -32603 without a failed callback, throwing nothing, for a sync and an async bug', async () => {
    const { out, run } = setup(false);
    expect(() =>
      run(1, 'sync', () => {
        throw new TypeError('bug');
      }),
    ).not.toThrow();
    run(2, 'async', () => Promise.reject(new TypeError('bug')));
    await settle();
    expect(out).toStrictEqual([
      { id: 1, error: { code: -32603, message: 'Internal error' } },
      { id: 2, error: { code: -32603, message: 'Internal error' } },
    ]);
  });

  it("aborts a withdrawn request with the reason 'withdrawn'", () => {
    const { handlers, run } = setup();
    const reasons: unknown[] = [];
    run('x', 'm', (_p, { signal }) => {
      signal.addEventListener('abort', () => reasons.push(signal.reason));
      return new Promise(() => {});
    });
    expect(handlers.withdraw('x')).toBe(true);
    expect(reasons).toEqual(['withdrawn']);
  });

  it.each([
    ['a number id', 7, 7],
    ['a string id', 's-7', 's-7'],
  ] as const)('withdraws a request open under %s', (_name, id, requestId) => {
    const { handlers, out, run } = setup();
    run(id, 'm', () => new Promise(() => {}));
    expect(handlers.withdraw(requestId)).toBe(true);
    expect(handlers.open).toBe(0);
    expect(out).toEqual([]);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an object', {}],
  ])('never withdraws by %s, not even a request whose id is null', (_name, requestId) => {
    const { handlers, run } = setup();
    let aborted = false;
    run(null, 'm', (_p, { signal }) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => {});
    });
    expect(handlers.withdraw(requestId)).toBe(false);
    expect(aborted).toBe(false);
    expect(handlers.open).toBe(1);
  });

  it('withdraws nothing for an id that is not open', () => {
    const { handlers, run } = setup();
    run(1, 'm', () => new Promise(() => {}));
    expect(handlers.withdraw(2)).toBe(false);
    expect(handlers.withdraw('1')).toBe(false);
    expect(handlers.open).toBe(1);
  });
});
