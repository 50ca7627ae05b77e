import { describe, expect, it } from 'vitest';
import { agentWarnings } from '../../../src/agent/warnings.js';
import type { Fence } from '../../../src/options.js';

const CURSOR = { cursor: true, title: 'Cursor' };
const CLAUDE = { cursor: false, title: 'Claude Code' };
const cursorWarnings = [{ code: 'policy-fences-nothing', message: 'Cursor asks no permission...' }];
const codes = (identity: typeof CURSOR, fence: Fence, privateDir: boolean): string[] =>
  agentWarnings({ identity, fence, privateDir, cursorWarnings }).map((w) => w.code);

describe('agentWarnings', () => {
  it.each([
    [CURSOR, 'none', false, ['policy-fences-nothing']],
    [CURSOR, 'no-shell', true, ['policy-fences-nothing']],
    [CURSOR, 'read-only', false, ['policy-fences-nothing', 'fence-not-enforced-by-agent']],
    [CLAUDE, 'none', false, []],
    [CLAUDE, 'no-shell', true, ['fence-not-enforced-by-agent']],
    [CLAUDE, 'read-only', false, ['fence-not-enforced-by-agent']],
  ] as const)('%j under --fence %s (private dir %s): %j', (identity, fence, privateDir, want) => {
    expect(codes(identity, fence, privateDir)).toEqual(want);
  });

  it('names the agent and what the fence cannot stop', () => {
    const [w] = agentWarnings({ identity: CLAUDE, fence: 'read-only', privateDir: false, cursorWarnings });
    expect(w?.message).toMatch(
      /^Claude Code is not Cursor, so --fence read-only holds only through permission answers .*an edit, a delete or a shell command it runs without asking is not stopped/,
    );
  });
});
