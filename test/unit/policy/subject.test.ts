import { describe, expect, it } from 'vitest';
import type { ToolEvent } from '../../../src/events/types.js';
import { subjectOf } from '../../../src/policy/subject.js';

const known = (over: Partial<ToolEvent>): ToolEvent => ({
  type: 'tool',
  toolCallId: 't',
  kind: 'execute',
  title: '',
  status: 'pending',
  input: {},
  output: null,
  locations: [],
  ...over,
});

describe('subjectOf reads what a request is about', () => {
  it("takes the command from the announced tool_call's rawInput, as Cursor sends it", () => {
    const s = subjectOf({ toolCallId: 't', title: '`npm test`' }, known({ input: { command: 'npm test' } }));
    expect(s.commands).toEqual(['npm test']);
  });

  it('falls back to the backquoted title when no rawInput names a command', () => {
    expect(subjectOf({ title: '`ls -la`' }, undefined).commands).toEqual(['ls -la']);
  });

  it('keeps every command named, so each must pass', () => {
    const s = subjectOf({ rawInput: { command: 'rm -rf /' } }, known({ input: { command: 'npm test' } }));
    expect(s.commands.sort()).toEqual(['npm test', 'rm -rf /']);
  });

  it('collects edit paths from rawInput, locations and diffs, of the request and of the announced tool', () => {
    const s = subjectOf(
      {
        rawInput: { file_path: '/ws/a.ts' },
        locations: [{ path: '/ws/b.ts' }],
        content: [{ type: 'diff', path: '/ws/c.ts', oldText: null, newText: 'x' }],
      },
      known({
        kind: 'edit',
        input: { path: '/ws/d.ts' },
        output: { diffs: [{ path: '/ws/e.ts', oldText: null, newText: '' }] },
      }),
    );
    expect(s.paths.sort()).toEqual(['/ws/a.ts', '/ws/b.ts', '/ws/c.ts', '/ws/d.ts', '/ws/e.ts']);
  });

  it("takes a fetch's URL from rawInput, else from the title", () => {
    expect(subjectOf({ title: 'Fetch https://example.com/x' }, undefined).urls).toEqual([
      'https://example.com/x',
    ]);
    expect(
      subjectOf({ rawInput: { url: 'https://a.b' }, title: 'Fetch https://c.d' }, undefined).urls,
    ).toEqual(['https://a.b']);
  });
});
