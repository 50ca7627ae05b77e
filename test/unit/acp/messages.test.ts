import { describe, expect, it } from 'vitest';
import { classify, isRecord } from '../../../src/acp/messages.js';

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
