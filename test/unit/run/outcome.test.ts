import { describe, expect, it } from 'vitest';
import { EXIT, RhoError } from '../../../src/errors.js';
import { afterTeardown, outcome, type OutcomeFacts } from '../../../src/run/outcome.js';
import { stopError } from '../../../src/stop.js';

const breach = new RhoError('fence_breached', 'src/a.ts changed under --fence read-only');
const sigint = stopError('SIGINT');
const timeout = stopError('timeout', 3000);
const exited = new RhoError('agent_exited', 'cursor-agent exited with code 1 during prompt');
const wireLog = new RhoError('write_failed', 'cannot write the wire log');
const strict = new RhoError('denied', 'a permission was rejected (--strict)');
const delivery = new RhoError('write_failed', 'cannot write -o answer.md');
const written = new RhoError('write_failed', 'cannot write to stdout: ENOSPC');

// Each row: the facts, then the error code expected (null: none) and the exit code.
const rows: [string, OutcomeFacts, string | null, number][] = [
  ['a turn that ended normally', { stopReason: 'end_turn' }, null, EXIT.ok],
  ['refusal is its own error', { stopReason: 'refusal' }, 'refusal', EXIT.refusal],
  ['max_tokens', { stopReason: 'max_tokens' }, 'max_tokens', EXIT.maxTokens],
  ['max_turn_requests is max_tokens', { stopReason: 'max_turn_requests' }, 'max_tokens', EXIT.maxTokens],
  ['no stopReason and no error is a failure of the agent', { stopReason: null }, null, EXIT.agentFailed],
  ['a breach outranks a stop', { stopReason: 'cancelled', breach, stopped: sigint }, 'fence_breached', 8],
  ['a breach outranks a normal end', { stopReason: 'end_turn', breach }, 'fence_breached', 8],
  [
    'a stop outranks what the agent did meanwhile',
    { stopReason: null, stopped: timeout, thrown: exited },
    'run_timeout',
    124,
  ],
  ['SIGINT is 130', { stopReason: 'cancelled', stopped: sigint }, 'cancelled', 130],
  [
    'what was thrown outranks a side failure',
    { stopReason: null, thrown: exited, side: wireLog },
    'agent_exited',
    1,
  ],
  ['a side failure fails a normal end', { stopReason: 'end_turn', side: wireLog }, 'write_failed', 1],
  ['--strict fails a normal end', { stopReason: 'end_turn', strict }, 'denied', EXIT.denied],
  [
    'a promise left unchecked by a signal after the turn fails a normal end with the signal',
    { stopReason: 'end_turn', unchecked: sigint },
    'cancelled',
    130,
  ],
  [
    'a promise left unchecked outranks --strict',
    { stopReason: 'end_turn', unchecked: timeout, strict },
    'run_timeout',
    124,
  ],
  [
    'a promise left unchecked never hides what was thrown',
    { stopReason: null, thrown: exited, unchecked: sigint },
    'agent_exited',
    1,
  ],
  ['--strict judges only a normal end', { stopReason: 'refusal', strict }, 'refusal', EXIT.refusal],
  ['a side failure outranks --strict', { stopReason: 'end_turn', side: wireLog, strict }, 'write_failed', 1],
  ['the reports fail a run that had no error', { stopReason: 'end_turn', delivery }, 'write_failed', 1],
  ['the reports never hide an earlier error', { stopReason: 'refusal', delivery }, 'refusal', EXIT.refusal],
  ['stdout failing at the result fails a clean run', { stopReason: 'end_turn', written }, 'write_failed', 1],
  [
    'the reports outrank stdout failing after them',
    { stopReason: 'end_turn', delivery, written },
    'write_failed',
    1,
  ],
  [
    'stdout failing never hides a stop',
    { stopReason: 'cancelled', stopped: sigint, written },
    'cancelled',
    130,
  ],
];

describe('outcome', () => {
  it.each(rows)('%s', (_, facts, code, exitCode) => {
    const o = outcome(facts);
    expect(o.error?.code ?? null).toBe(code);
    expect(o.exitCode).toBe(exitCode);
  });

  it('keeps the error object that won (its message and hint are the ones reported)', () => {
    expect(outcome({ stopReason: null, thrown: exited, side: wireLog }).error).toBe(exited);
    expect(outcome({ stopReason: 'end_turn', delivery, written }).error).toBe(delivery);
  });

  it('asks for the reports failure to be said when it lost to an earlier error, and only then', () => {
    expect(outcome({ stopReason: 'refusal', delivery }).alsoSay).toEqual([delivery]);
    expect(outcome({ stopReason: 'end_turn', delivery }).alsoSay).toEqual([]);
    expect(outcome({ stopReason: 'end_turn' }).alsoSay).toEqual([]);
  });
});

describe('afterTeardown', () => {
  it.each([
    [EXIT.ok, true, EXIT.agentFailed],
    [EXIT.ok, false, EXIT.ok],
    [EXIT.refusal, true, EXIT.refusal],
    [EXIT.sigint, false, EXIT.sigint],
  ] as const)('exit %i with stdout failed %s is %i', (exit, failed, expected) => {
    expect(afterTeardown(exit, failed)).toBe(expected);
  });
});
