// The text listing of `rho-cursor sessions`: one line a session, the agent's text made visible.
import { describe, expect, it } from 'vitest';
import { sessionsText } from '../../../src/sessions/command.js';

const s = (sessionId: string, cwd: string | null, title: string | null = 't') => ({
  sessionId,
  cwd,
  title,
  updatedAt: '2026-12-01T00:00:00Z',
});

describe('sessionsText', () => {
  it('one line a session: id, time, title; one an earlier worktree ran in says so', () => {
    expect(
      sessionsText(
        [s('a', '/w/tmp/rho-cursor-worktree-1-x/repo'), s('b', '/repo'), s('c', null)],
        '/repo',
        true,
      ),
    ).toBe('a  2026-12-01T00:00:00Z  (worktree) t\nb  2026-12-01T00:00:00Z  t\nc  2026-12-01T00:00:00Z  t\n');
  });

  it('says where it looked when there is none', () => {
    expect(sessionsText([], '/repo')).toBe('no sessions for /repo\n');
    expect(sessionsText([], '/repo', true)).toBe('no sessions for /repo or its earlier worktrees\n');
  });

  it('an agent title cannot start a line of its own', () => {
    expect(sessionsText([s('a\nb', '/repo', 'x\ry\u001b[2J')], '/repo')).toBe(
      'a␊b  2026-12-01T00:00:00Z  x␍y␛[2J\n',
    );
  });

  it('a title of a megabyte shows its start and end (found by review)', () => {
    const line = sessionsText([s('a', '/repo', 'START' + 'x'.repeat(1 << 20) + 'END')], '/repo');
    expect(line).toMatch(/^a {2}2026-12-01T00:00:00Z {2}STARTx*… \(\d+ more characters\) …x*END\n$/);
    expect(line.length).toBeLessThan(300);
  });
});
