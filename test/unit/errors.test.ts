import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  EXIT,
  RhoError,
  exitForStopReason,
  toRhoError,
  type ErrorCode,
} from '../../src/errors.js';

describe('exitForStopReason', () => {
  it.each([
    ['end_turn', 0],
    ['max_tokens', 4],
    ['max_turn_requests', 4],
    ['refusal', 5],
    ['cancelled', 130],
    ['something_new', 1],
    ['', 1],
  ])('maps %j to exit %i', (stopReason, code) => {
    expect(exitForStopReason(stopReason)).toBe(code);
  });
});

// The contract's exit code for each error code.
const CONTRACT_EXIT: Record<ErrorCode, number> = {
  usage: 2,
  config_invalid: 2,
  agent_not_found: 127,
  agent_exited: 1,
  agent_closed: 1,
  protocol: 1,
  protocol_version: 1,
  rpc_error: 1,
  auth_required: 3,
  plan_refused: 1,
  capability_missing: 2,
  fence_failed: 1,
  step_timeout: 124,
  run_timeout: 124,
  idle_timeout: 124,
  cancelled: 130,
  stdout_closed: 141,
  write_failed: 1,
  max_tokens: 4,
  max_tool_calls: 4,
  refusal: 5,
  schema_mismatch: 6,
  reply_error: 1,
  denied: 7,
  fence_breached: 8,
  os_limit: 1,
  internal: 1,
};

describe('RhoError', () => {
  it('has a contract exit code for every error code', () => {
    expect(Object.keys(CONTRACT_EXIT).sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each(Object.entries(CONTRACT_EXIT))('maps %s to exit %i', (code, exit) => {
    const err = new RhoError(code as ErrorCode, 'x');
    expect(err.exitCode).toBe(exit);
    expect(err.code).toBe(code);
  });

  it('takes an explicit exit code, a hint and a cause', () => {
    const cause = new Error('SIGTERM');
    const err = new RhoError('cancelled', 'cancelled by SIGTERM', {
      exitCode: EXIT.sigterm,
      hint: 'h',
      cause,
    });
    expect(err).toMatchObject({
      exitCode: 143,
      hint: 'h',
      cause,
      name: 'RhoError',
      message: 'cancelled by SIGTERM',
    });
  });

  it('has no cause when none is given', () => {
    expect('cause' in new RhoError('usage', 'x')).toBe(false);
  });
});

describe('toRhoError', () => {
  it('passes a RhoError through', () => {
    const err = new RhoError('auth_required', 'log in');
    expect(toRhoError(err)).toBe(err);
  });

  it.each([
    { thrown: new TypeError('boom'), message: 'boom' },
    { thrown: 'a string', message: 'a string' },
    { thrown: 42, message: '42' },
  ])('wraps $thrown as an internal error with exit 1', ({ thrown, message }) => {
    expect(toRhoError(thrown)).toMatchObject({ code: 'internal', exitCode: 1, message, cause: thrown });
  });
});
