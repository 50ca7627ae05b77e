import { describe, expect, it } from 'vitest';
import { RhoError } from '../../src/errors.js';
import { readSession, replyReadsAsError } from '../../src/session.js';

describe('readSession', () => {
  it('reads the resolved model, the modes and the agent info', () => {
    const facts = readSession(
      { agentInfo: { name: 'cursor-agent', version: '2026.10.01' } },
      {
        sessionId: 's-1',
        models: { currentModelId: 'composer-2.5[fast=true]' },
        modes: { currentModeId: 'agent', availableModes: [{ id: 'agent' }, { id: 'plan' }, 'junk'] },
      },
    );
    expect(facts).toEqual({
      sessionId: 's-1',
      model: 'composer-2.5[fast=true]',
      mode: 'agent',
      modes: ['agent', 'plan'],
      agent: { name: 'cursor-agent', version: '2026.10.01' },
    });
  });

  it('tolerates missing models, modes and agent info', () => {
    expect(readSession({}, { sessionId: 's' })).toEqual({
      sessionId: 's',
      model: null,
      mode: null,
      modes: [],
      agent: { name: null, version: null },
    });
  });

  it.each([[{}], [{ sessionId: 7 }], [null]])(
    'a session/new result without a sessionId is a protocol error: %j',
    (r) => {
      expect(() => readSession({}, r)).toThrow(RhoError);
    },
  );
});

describe('replyReadsAsError', () => {
  it.each([
    ['Error: RetriableError: [unavailable] upstream\nmore', 'Error: RetriableError: [unavailable] upstream'],
    ['  Error: ConnectError: x', 'Error: ConnectError: x'],
    ['All done. Error: RetriableError', undefined],
    ['Error: the file is missing', undefined],
  ])('%j -> %j', (text, line) => {
    expect(replyReadsAsError(text)).toBe(line);
  });
});
