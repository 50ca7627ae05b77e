import { describe, expect, it } from 'vitest';
import { classify, idText, isRecord, str } from '../../../src/acp/messages.js';

describe('classify', () => {
  it.each([
    {
      name: 'a request with id 0',
      value: { jsonrpc: '2.0', id: 0, method: 'session/request_permission', params: {} },
      kind: 'request',
    },
    { name: 'a request with a string id', value: { jsonrpc: '2.0', id: 'a', method: 'x' }, kind: 'request' },
    {
      name: 'a message with a method and a result',
      value: { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
      kind: 'request',
    },
    {
      name: 'a notification',
      value: { jsonrpc: '2.0', method: 'session/update', params: {} },
      kind: 'notification',
    },
    {
      name: 'a method with a null id (a request, answered with id null)',
      value: { jsonrpc: '2.0', id: null, method: 'x' },
      kind: 'request',
    },
    { name: 'a result response', value: { jsonrpc: '2.0', id: 1, result: { ok: true } }, kind: 'response' },
    { name: 'a null result with id 0', value: { jsonrpc: '2.0', id: 0, result: null }, kind: 'response' },
    {
      name: 'an error response',
      value: { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'nope' } },
      kind: 'response',
    },
  ])('tells $name is a $kind', ({ value, kind }) => {
    const msg = classify(value);
    expect(msg.kind).toBe(kind);
    expect(msg.kind !== 'invalid' && msg.msg).toEqual(value);
  });

  it.each([
    { name: 'an error that is not an object', error: 'oops', message: 'a malformed error: "oops"' },
    { name: 'an error without a message', error: { code: 1 }, message: 'a malformed error: {"code":1}' },
  ])('still fails its request on $name, saying what the agent wrote', ({ error, message }) => {
    const msg = classify({ jsonrpc: '2.0', id: 3, error });
    expect(msg).toMatchObject({ kind: 'response', msg: { id: 3, error: { code: -32603, message } } });
  });

  it('calls a method with an object id invalid, never a notification', () => {
    expect(classify({ jsonrpc: '2.0', id: {}, method: 'x' }).kind).toBe('invalid');
  });

  it.each([
    { name: 'null', value: null },
    { name: 'a number', value: 42 },
    { name: 'a string', value: 'hello' },
    { name: 'an array', value: [{ jsonrpc: '2.0', id: 1, result: {} }] },
    { name: 'an empty object', value: {} },
    { name: 'an id alone', value: { jsonrpc: '2.0', id: 1 } },
    { name: 'a result with a null id', value: { jsonrpc: '2.0', id: null, result: {} } },
    { name: 'a result with an object id', value: { jsonrpc: '2.0', id: {}, result: {} } },
    { name: 'a numeric method', value: { jsonrpc: '2.0', id: 1, method: 5 } },
  ])('calls $name invalid', ({ value }) => {
    const msg = classify(value);
    expect(msg.kind).toBe('invalid');
    expect(msg.kind === 'invalid' && msg.reason).toMatch(/\w/);
  });
});

describe('isRecord', () => {
  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [[], false],
    [null, false],
    ['x', false],
    [undefined, false],
  ])('isRecord(%j) is %s', (value, expected) => {
    expect(isRecord(value)).toBe(expected);
  });
});

describe('classify: the reasons and the error member', () => {
  it.each([
    { value: 42, reason: 'not a JSON-RPC object' },
    { value: 'hello', reason: 'not a JSON-RPC object' },
    { value: null, reason: 'not a JSON-RPC object' },
    { value: [1], reason: 'not a JSON-RPC object' },
    { value: { jsonrpc: '2.0', id: {}, method: 'x' }, reason: 'a request whose id is {}' },
    { value: { jsonrpc: '2.0', id: true, method: 'x' }, reason: 'a request whose id is true' },
    { value: { jsonrpc: '2.0', id: 1 }, reason: 'neither a request, a notification nor a response' },
  ])('calls $value invalid: $reason', ({ value, reason }) => {
    expect(classify(value)).toEqual({ kind: 'invalid', reason });
  });

  it('takes a result beside an error member null as the result', () => {
    const value = { jsonrpc: '2.0', id: 1, result: { ok: true }, error: null };
    expect(classify(value)).toEqual({ kind: 'response', msg: value });
  });

  it('takes a result beside an undefined error member as the result', () => {
    const value = { jsonrpc: '2.0', id: 1, result: 5, error: undefined };
    expect(classify(value)).toEqual({ kind: 'response', msg: value });
  });

  it('calls an error with a null id invalid: it answers no request of ours', () => {
    expect(classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toEqual({
      kind: 'invalid',
      reason: 'neither a request, a notification nor a response',
    });
  });

  it('keeps an error’s code, message and data, and adds no data it did not have', () => {
    const withData = classify({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'm', data: { a: 1 } },
    });
    expect(withData).toEqual({
      kind: 'response',
      msg: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'm', data: { a: 1 } } },
    });
    const without = classify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'm', extra: 1 } });
    expect(without.kind === 'response' && Object.keys(without.msg.error ?? {})).toEqual(['code', 'message']);
  });

  it('gives an error whose code is no number the code -32603', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, error: { code: 'E1', message: 'm' } })).toMatchObject({
      msg: { error: { code: -32603, message: 'm' } },
    });
    // 1e400 parses as Infinity, which JSON would write as null.
    expect(
      classify(JSON.parse('{"jsonrpc":"2.0","id":1,"error":{"code":1e400,"message":"m"}}')),
    ).toMatchObject({ msg: { error: { code: -32603, message: 'm' } } });
  });

  it('cuts the text of a long malformed error', () => {
    const msg = classify({ jsonrpc: '2.0', id: 1, error: 'x'.repeat(500) });
    const message = msg.kind === 'response' ? (msg.msg.error?.message ?? '') : '';
    expect(message.startsWith('a malformed error: "xxx')).toBe(true);
    expect(message).toHaveLength('a malformed error: '.length + 200);
  });
});

describe('str', () => {
  it.each([
    ['a', 'a'],
    ['', ''],
    [1, null],
    [null, null],
    [undefined, null],
  ])('str(%j) is %j', (value, expected) => {
    expect(str(value)).toBe(expected);
  });
});

describe('idText', () => {
  it.each([
    ['tool_1', 'tool_1'],
    ['', ''],
    [7, '7'],
    [0, '0'],
    [true, 'true'],
    [false, 'false'],
    [null, ''],
    [undefined, ''],
    [{ a: 1 }, '{"a":1}'],
    [[1, 'x'], '[1,"x"]'],
  ])('%j is %j', (v, text) => {
    expect(idText(v)).toBe(text);
  });

  it('two different objects are two different ids, never one "[object Object]"', () => {
    expect(idText({ a: 1 })).not.toBe(idText({ a: 2 }));
  });
});
