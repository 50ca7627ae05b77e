// Finding the agent: PATH lookup, and the hint about Cursor's newer `agent` name (never run unasked).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newerNameHint, resolveAgent } from '../../../src/agent/resolve.js';
import type { RhoError } from '../../../src/errors.js';

// A directory holding executables of these names.
function binDir(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'rho-bin-'));
  for (const n of names) {
    writeFileSync(join(dir, n), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, n), 0o755);
  }
  return dir;
}

// The error resolveAgent throws.
function failure(command: string, env: Record<string, string>): RhoError {
  try {
    resolveAgent(command, env, '/');
  } catch (e) {
    return e as RhoError;
  }
  throw new Error('resolveAgent found it');
}

describe('resolveAgent', () => {
  it('finds cursor-agent on PATH', () => {
    const dir = binDir('cursor-agent', 'agent');
    expect(resolveAgent('cursor-agent', { PATH: dir }, '/')).toBe(join(dir, 'cursor-agent'));
  });

  it('where cursor-agent is missing but agent is on PATH, says so and how to pass it, and does not use it', () => {
    const dir = binDir('agent');
    const err = failure('cursor-agent', { PATH: dir });
    expect(err).toMatchObject({ code: 'agent_not_found', exitCode: 127 });
    const agent = join(dir, 'agent');
    expect(err.hint).toBe(
      `Cursor's newer installs name it \`agent\`: ${agent} is on PATH; pass --agent ${agent} or set RHO_CURSOR_AGENT=${agent} to use it`,
    );
  });

  it('gives the install hint when neither is on PATH', () => {
    const err = failure('cursor-agent', { PATH: binDir() });
    expect(err.hint).toMatch(/^install it with/);
  });

  it('says nothing of agent for a command the user chose', () => {
    const dir = binDir('agent');
    expect(newerNameHint('my-agent', { PATH: dir })).toBeUndefined();
    expect(failure('my-agent', { PATH: dir }).hint).toMatch(/^install it with/);
  });
});
