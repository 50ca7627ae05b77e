import { describe, expect, it } from 'vitest';
import type { ToolEvent } from '../../../src/events/types.js';
import { firstLine, lineDelta, toolSummary } from '../../../src/render/summary.js';

const tool = (
  kind: string,
  output: ToolEvent['output'],
  status: ToolEvent['status'] = 'completed',
): ToolEvent => ({
  type: 'tool',
  toolCallId: 't',
  kind,
  title: 'title',
  status,
  input: {},
  output,
  locations: [],
});

describe('toolSummary', () => {
  it.each<{ name: string; tool: ToolEvent; summary: string }>([
    {
      name: 'a shell command: exit code and first line',
      tool: tool('execute', { exitCode: 0, stdout: '\ntotal 20\ndrwxr-xr-x .\n', stderr: '' }),
      summary: 'exit 0 · total 20',
    },
    {
      name: 'a failing shell command: its stderr',
      tool: tool('execute', { exitCode: 2, stdout: '', stderr: 'ls: cannot access nope\n' }),
      summary: 'exit 2 · ls: cannot access nope',
    },
    // Found by review: `exit  · 5`, an empty exit label, for a non-execute tool's rawOutput `{stdout: 5}`.
    {
      name: 'another kind with a stdout and no exit code: no exit label',
      tool: tool('other', { stdout: 5 }),
      summary: '5',
    },
    {
      name: 'a silent shell command without an exit code',
      tool: tool('execute', { exitCode: null, stdout: '', stderr: '' }),
      summary: 'exit ?',
    },
    {
      name: 'grep matches',
      tool: tool('search', { totalMatches: 2, truncated: false }),
      summary: '2 matches',
    },
    {
      name: 'one grep match',
      tool: tool('search', { totalMatches: 1, truncated: false }),
      summary: '1 match',
    },
    {
      name: 'no grep match',
      tool: tool('search', { totalMatches: 0, truncated: false }),
      summary: '0 matches',
    },
    { name: 'glob files', tool: tool('search', { totalFiles: 3, truncated: false }), summary: '3 files' },
    { name: 'one glob file', tool: tool('search', { totalFiles: 1 }), summary: '1 file' },
    {
      name: 'an edit: lines added and removed',
      tool: tool('edit', {
        diffs: [{ path: '/w/hello.txt', oldText: 'hello, world\nbye\n', newText: 'Hello, world\nbye\n' }],
      }),
      summary: '+1 -1',
    },
    {
      name: 'a new file',
      tool: tool('edit', { diffs: [{ path: '/w/out.txt', oldText: null, newText: 'hi' }] }),
      summary: 'new file +1',
    },
    {
      name: 'several diffs',
      tool: tool('edit', {
        diffs: [
          { path: '/w/out.txt', oldText: null, newText: 'a\nb\n' },
          { path: '/w/x.txt', oldText: 'a\n', newText: '' },
        ],
      }),
      summary: 'new file +2, +0 -1',
    },
    { name: 'a read', tool: tool('read', { content: 'hello\nworld\n' }), summary: '2 lines' },
    { name: 'a one-line read', tool: tool('read', { content: 'hello' }), summary: '1 line' },
    { name: 'an empty read', tool: tool('read', { content: '' }), summary: '0 lines' },
    { name: 'no output', tool: tool('read', null), summary: '' },
    { name: 'an unknown output', tool: tool('other', { whatever: true }), summary: '' },
    // Any JSON value can be a tool's output (other agents): never an error, a count where one is clear.
    { name: 'a string output', tool: tool('other', 'done'), summary: '' },
    { name: 'an array output', tool: tool('search', ['a', 'b']), summary: '2 items' },
    { name: 'a number output', tool: tool('other', 7), summary: '' },
    {
      name: 'a rejected tool',
      tool: tool('execute', null, 'rejected'),
      summary: 'did not run (Cursor reported it completed)',
    },
    {
      name: 'a rejected tool the agent left pending',
      tool: { ...tool('execute', null, 'rejected'), reportedStatus: 'pending' },
      summary: 'did not run',
    },
  ])('summarises $name', ({ tool: t, summary }) => {
    expect(toolSummary(t)).toBe(summary);
  });
});

describe('firstLine', () => {
  it('skips blank lines', () => {
    expect(firstLine('\n  \nfirst\nsecond')).toBe('first');
  });

  it('shortens a long line to the limit with an ellipsis', () => {
    const line = firstLine('x'.repeat(100));
    expect(line).toHaveLength(80);
    expect(line.endsWith('…')).toBe(true);
  });

  it('keeps a line of exactly the limit', () => {
    expect(firstLine('y'.repeat(80))).toBe('y'.repeat(80));
  });
});

describe('lineDelta', () => {
  it.each([
    { oldText: null, newText: 'hi', added: 1, removed: 0 },
    { oldText: '', newText: '', added: 0, removed: 0 },
    { oldText: 'a\nb\n', newText: 'a\nb\n', added: 0, removed: 0 },
    { oldText: 'a\nb\nc\n', newText: 'a\nc\nd\ne\n', added: 2, removed: 1 },
    { oldText: 'a\na\n', newText: 'a\n', added: 0, removed: 1 },
  ])('$oldText -> $newText is +$added -$removed', ({ oldText, newText, added, removed }) => {
    expect(lineDelta(oldText, newText)).toEqual({ added, removed });
  });
});
