// The peer's check is what makes an invalid message from rho-cursor fail the suite: it must catch them.
import { describe, expect, it } from 'vitest';
import { checkClientMessage } from './check.js';

const sent = new Map([['0', 'session/request_permission']]);

describe('checkClientMessage (the SDK’s schemas)', () => {
  it.each([
    {
      name: 'a prompt',
      msg: {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/prompt',
        params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] },
      },
    },
    { name: 'a cancel', msg: { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } } },
    {
      name: 'a permission answer',
      msg: { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'reject-once' } } },
    },
    {
      name: 'an error answer',
      msg: { jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found' } },
    },
  ])('passes $name', ({ msg }) => {
    expect(checkClientMessage(msg, sent)).toEqual([]);
  });

  it.each([
    {
      name: 'a permission answer without an outcome',
      msg: { jsonrpc: '2.0', id: 0, result: { optionId: 'allow-once' } },
    },
    {
      name: 'an outcome ACP does not define',
      msg: { jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'skipped' } } },
    },
    {
      name: 'a prompt without a sessionId',
      msg: { jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { prompt: [] } },
    },
    {
      name: 'a method no client sends',
      msg: { jsonrpc: '2.0', id: 4, method: 'fs/read_text_file', params: {} },
    },
    { name: 'an answer to a request never sent', msg: { jsonrpc: '2.0', id: 9, result: {} } },
    {
      name: 'a wrong jsonrpc version',
      msg: { jsonrpc: '1.0', method: 'session/cancel', params: { sessionId: 's' } },
    },
  ])('flags $name', ({ msg }) => {
    expect(checkClientMessage(msg, sent)).not.toEqual([]);
  });
});
