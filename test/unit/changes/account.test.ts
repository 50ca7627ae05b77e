import { describe, expect, it } from 'vitest';
import { ToolAccount, toolPaths, workspacePath } from '../../../src/changes/account.js';
import type { ToolEvent } from '../../../src/events/types.js';

const ROOTS = ['/ws', '/real/ws'];
const tool = (t: Partial<ToolEvent>): ToolEvent => ({
  type: 'tool',
  toolCallId: 't',
  kind: 'edit',
  title: '',
  status: 'completed',
  input: {},
  output: null,
  locations: [],
  ...t,
});

describe('workspacePath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['/ws/src/a.ts', 'src/a.ts'],
    ['/real/ws/a', 'a'],
    ['/elsewhere/a', undefined],
    ['../a', undefined],
    ['/ws', undefined],
  ])('%j -> %j', (p, rel) => {
    expect(workspacePath(p, ROOTS)).toBe(rel);
  });
});

describe('toolPaths', () => {
  it('reads locations, diffs and the input path fields of every agent', () => {
    const t = tool({
      locations: [{ path: '/ws/a.ts' }],
      output: { diffs: [{ path: '/ws/b.ts', oldText: null, newText: '' }] },
      input: { file_path: 'c.ts', destination: '/ws/d.ts', paths: ['e.ts', 7] },
    });
    expect(toolPaths(t, ROOTS).sort()).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts']);
  });
});

describe('ToolAccount', () => {
  it('accounts for paths of completed edits, deletes and moves only', () => {
    const a = new ToolAccount(ROOTS);
    a.add(tool({ toolCallId: '1', locations: [{ path: 'done.ts' }] }));
    a.add(tool({ toolCallId: '2', status: 'failed', locations: [{ path: 'failed.ts' }] }));
    a.add(tool({ toolCallId: '3', kind: 'execute', locations: [{ path: 'shell.ts' }] }));
    a.add(tool({ toolCallId: '4', kind: 'move', input: { source: 'm1', destination: 'm2' } }));
    expect(['done.ts', 'failed.ts', 'shell.ts', 'm1', 'm2'].map((p) => a.accounts(p))).toEqual([
      true,
      false,
      false,
      true,
      true,
    ]);
  });

  it('keeps the latest state of rejected writing tools', () => {
    const a = new ToolAccount(ROOTS);
    a.add(tool({ toolCallId: 'r', status: 'rejected', locations: [{ path: 'x' }] }));
    expect([...a.rejected.keys()]).toEqual(['r']);
    a.add(tool({ toolCallId: 'r', status: 'completed', output: { diffs: [] } }));
    expect(a.rejected.size).toBe(0);
  });

  it.each([
    ['in progress', { reportedStatus: undefined, status: 'in_progress' }, true],
    ['completed with output', { status: 'completed', output: { exitCode: 0, stdout: '', stderr: '' } }, true],
    [
      'completed with no output (a deny rule stopped it)',
      { status: 'rejected', reportedStatus: 'completed' },
      false,
    ],
    ['pending', { status: 'pending' }, false],
  ] as const)('a shell call %s counts as run: %j', (_, t, ran) => {
    const a = new ToolAccount(ROOTS);
    a.add(tool({ kind: 'execute', title: 'ls', ...(t as Partial<ToolEvent>) }));
    expect(a.shellRanCount).toBe(ran ? 1 : 0);
  });

  it('a shell call rho-cursor allowed is not counted', () => {
    const a = new ToolAccount(ROOTS);
    a.add({
      type: 'permission',
      toolCallId: 't',
      title: 'ls',
      kind: 'execute',
      options: [],
      decision: { optionId: 'allow-once', kind: 'allow_once' },
      reason: '',
      agentReason: null,
      decidedBy: 'allow-flag',
    });
    a.add(tool({ kind: 'execute', status: 'in_progress' }));
    expect(a.shellRanCount).toBe(0);
  });
});

describe('workspacePath through a link (found by review)', () => {
  it('an absolute path outside the roots as text is read where it really leads', () => {
    const real = (p: string) => (p.startsWith('/alias/') ? `/ws/${p.slice('/alias/'.length)}` : undefined);
    expect(workspacePath('/alias/keep.txt', ['/ws'], real)).toBe('keep.txt');
    expect(workspacePath('/elsewhere/x', ['/ws'], real)).toBeUndefined();
    expect(workspacePath('/ws/a', ['/ws'], () => undefined)).toBe('a');
  });
});
