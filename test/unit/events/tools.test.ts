import { describe, expect, it } from 'vitest';
import {
  MAX_INPUT_KEYS,
  ToolStore,
  cleanDiff,
  contentText,
  normalizeOutput,
  normalizeTodos,
} from '../../../src/events/tools.js';

const NEW_FILE_DIFF = {
  type: 'diff',
  path: '/workspace/out.txt',
  oldText: '-- /dev/null',
  newText: '++ b//workspace/out.txt\nhi',
};

describe('ToolStore.apply', () => {
  it('fills an empty rawInput from a later update and keeps the title current', () => {
    const store = new ToolStore();
    const id = 'tool_550b';
    const first = store.apply({
      toolCallId: id,
      title: 'grep',
      kind: 'search',
      status: 'pending',
      rawInput: {},
    });
    store.apply({
      toolCallId: id,
      title: 'grep "hello"',
      rawInput: { pattern: 'hello', path: '/workspace' },
    });
    store.apply({ toolCallId: id, status: 'in_progress' });
    const last = store.apply({
      toolCallId: id,
      status: 'completed',
      rawOutput: { totalMatches: 2, truncated: false },
    });
    // Each event is a snapshot: the first one still says what the tool was then (issue 22: no live objects).
    expect(first).toEqual({
      type: 'tool',
      toolCallId: id,
      kind: 'search',
      title: 'grep',
      status: 'pending',
      input: {},
      output: null,
      locations: [],
    });
    expect(last).toEqual({
      type: 'tool',
      toolCallId: id,
      kind: 'search',
      title: 'grep "hello"',
      status: 'completed',
      input: { pattern: 'hello', path: '/workspace' },
      output: { totalMatches: 2, truncated: false },
      locations: [],
    });
  });

  it('keeps kind, title and input when an update leaves them out', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', title: '`ls -la`', kind: 'execute', rawInput: { command: 'ls -la' } });
    const tool = store.apply({ toolCallId: 't', status: 'in_progress' });
    expect(tool).toMatchObject({ kind: 'execute', title: '`ls -la`', input: { command: 'ls -la' } });
    expect(tool.status).toBe('in_progress');
  });

  it('keeps the status when an update leaves it out', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', kind: 'execute', status: 'in_progress' });
    expect(store.apply({ toolCallId: 't', rawOutput: { stdout: 'partial' } }).status).toBe('in_progress');
    store.apply({ toolCallId: 't', status: 'completed' });
    expect(store.apply({ toolCallId: 't', title: 'ls' }).status).toBe('completed');
  });

  it('reads an unknown status as pending, and a later known one as it is', () => {
    const store = new ToolStore();
    expect(store.apply({ toolCallId: 't', status: 'running' }).status).toBe('pending');
    expect(store.apply({ toolCallId: 't', status: 'failed' }).status).toBe('failed');
  });

  it('keeps the diffs when an update carries no content (absent or null)', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'e', kind: 'edit', status: 'in_progress', content: [NEW_FILE_DIFF] });
    const diffs = { diffs: [{ path: '/workspace/out.txt', oldText: null, newText: 'hi' }] };
    expect(store.apply({ toolCallId: 'e', status: 'completed' }).output).toEqual(diffs);
    expect(store.apply({ toolCallId: 'e', content: null }).output).toEqual(diffs);
  });

  it('keeps the output when an update carries no rawOutput', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'r', kind: 'read', rawOutput: { content: 'A' } });
    expect(store.apply({ toolCallId: 'r', status: 'completed' }).output).toEqual({ content: 'A' });
  });

  it('takes a later content over the earlier one', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'x', content: [{ type: 'text', text: 'first' }] });
    expect(store.apply({ toolCallId: 'x', content: [{ type: 'text', text: 'second' }] }).output).toEqual({
      content: 'second',
    });
  });

  it('ignores a rawInput that is no object, never spreading a string into its characters', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', kind: 'execute', rawInput: { command: 'ls' } });
    for (const rawInput of ['ls -la', ['ls'], 7, null]) {
      expect(store.apply({ toolCallId: 't', rawInput }).input).toEqual({ command: 'ls' });
    }
    expect(new ToolStore().apply({ toolCallId: 'u', rawInput: 'ls' }).input).toEqual({});
  });

  it('merges a later rawInput into the earlier one', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', rawInput: { command: 'ls', cwd: '/a' } });
    expect(store.apply({ toolCallId: 't', rawInput: { cwd: '/b' } }).input).toEqual({
      command: 'ls',
      cwd: '/b',
    });
  });

  it('keeps a rawInput key named __proto__ as a key', () => {
    const store = new ToolStore();
    const tool = store.apply({ toolCallId: 't', rawInput: JSON.parse('{"__proto__":{"x":1},"a":2}') });
    expect(Object.keys(tool.input)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(tool.input)).toBe(Object.prototype);
  });

  it('starts a tool as pending, of kind other, with no title, input, output or locations', () => {
    expect(new ToolStore().apply({ toolCallId: 'n' })).toEqual({
      type: 'tool',
      toolCallId: 'n',
      kind: 'other',
      title: '',
      status: 'pending',
      input: {},
      output: null,
      locations: [],
    });
  });

  it('reads a toolCallId that is no string as text, and a missing one as empty', () => {
    const store = new ToolStore();
    expect(store.apply({ toolCallId: 7 }).toolCallId).toBe('7');
    expect(store.apply({}).toolCallId).toBe('');
    expect(store.apply({ toolCallId: null }).toolCallId).toBe('');
    expect(store.calls).toBe(2);
  });

  it('ignores a kind or title that is no string', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', kind: 'read', title: 'Read' });
    expect(store.apply({ toolCallId: 't', kind: 3, title: null })).toMatchObject({
      kind: 'read',
      title: 'Read',
    });
  });

  it('keeps only well-formed locations, and the old ones when an update carries none', () => {
    const store = new ToolStore();
    const locations = [
      { path: '/a' },
      { path: '/b', line: 3 },
      { path: '/c', line: '3' },
      { path: '/e', line: Infinity },
      { line: 1 },
      { path: 4 },
      '/d',
      null,
    ];
    expect(store.apply({ toolCallId: 't', locations }).locations).toEqual([
      { path: '/a' },
      { path: '/b', line: 3 },
    ]);
    expect(store.apply({ toolCallId: 't', locations: 'x' }).locations).toEqual([
      { path: '/a' },
      { path: '/b', line: 3 },
    ]);
  });

  it('counts each toolCallId once', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'a' });
    store.apply({ toolCallId: 'a', status: 'in_progress' });
    store.apply({ toolCallId: 'b' });
    expect(store.calls).toBe(2);
    expect(store.get('a')?.status).toBe('in_progress');
    expect(store.get('c')).toBeUndefined();
  });

  it('replaces locations when an update carries them', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'e', kind: 'edit', title: 'Edit File', rawInput: {} });
    const tool = store.apply({ toolCallId: 'e', locations: [{ path: '/workspace/out.txt' }] });
    expect(tool.locations).toEqual([{ path: '/workspace/out.txt' }]);
  });

  it('keeps separate state per toolCallId, in arrival order', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'a', kind: 'read', title: 'Read a' });
    store.apply({ toolCallId: 'b', kind: 'read', title: 'Read b' });
    store.apply({ toolCallId: 'a', status: 'completed', rawOutput: { content: 'A' } });
    expect(store.all().map((t) => [t.toolCallId, t.status, t.output])).toEqual([
      ['a', 'completed', { content: 'A' }],
      ['b', 'pending', null],
    ]);
  });

  it('turns a new-file diff into oldText null and the file text', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'e', kind: 'edit', title: 'Edit File', rawInput: {} });
    const tool = store.apply({ toolCallId: 'e', status: 'completed', content: [NEW_FILE_DIFF] });
    expect(tool.output).toEqual({ diffs: [{ path: '/workspace/out.txt', oldText: null, newText: 'hi' }] });
  });
});

describe('normalizeOutput', () => {
  it.each([
    {
      name: 'execute keeps exitCode, stdout and stderr',
      kind: 'execute',
      raw: { exitCode: 0, stdout: 'total 20\n', stderr: '', extra: 1 },
      content: undefined,
      output: { exitCode: 0, stdout: 'total 20\n', stderr: '' },
    },
    {
      name: 'execute fills missing streams',
      kind: 'execute',
      raw: { exitCode: 2 },
      content: undefined,
      output: { exitCode: 2, stdout: '', stderr: '' },
    },
    {
      name: 'execute without an exit code',
      kind: 'execute',
      raw: { stdout: 'x' },
      content: undefined,
      output: { exitCode: null, stdout: 'x', stderr: '' },
    },
    {
      name: 'read keeps content',
      kind: 'read',
      raw: { content: 'hello, world\n', totalLines: 1 },
      content: undefined,
      output: { content: 'hello, world\n' },
    },
    {
      name: 'grep keeps totalMatches and truncated',
      kind: 'search',
      raw: { totalMatches: 2, truncated: false },
      content: undefined,
      output: { totalMatches: 2, truncated: false },
    },
    {
      name: 'glob keeps totalFiles',
      kind: 'search',
      raw: { totalFiles: 3, truncated: false },
      content: undefined,
      output: { totalFiles: 3, truncated: false },
    },
    {
      name: 'edit collects its diffs',
      kind: 'edit',
      raw: undefined,
      content: [
        { type: 'diff', path: '/workspace/hello.txt', oldText: 'hello, world\n', newText: 'Hello, world\n' },
      ],
      output: {
        diffs: [{ path: '/workspace/hello.txt', oldText: 'hello, world\n', newText: 'Hello, world\n' }],
      },
    },
    {
      name: 'text content becomes content',
      kind: 'other',
      raw: undefined,
      content: [{ type: 'content', content: { type: 'text', text: 'done' } }],
      output: { content: 'done' },
    },
    { name: 'nothing is null', kind: 'execute', raw: undefined, content: undefined, output: null },
    { name: 'a null rawOutput is null', kind: 'read', raw: null, content: [], output: null },
    // Claude's adapter sends a string for Read and Bash results.
    {
      name: 'a string for read is its content',
      kind: 'read',
      raw: 'a\nb',
      content: undefined,
      output: { content: 'a\nb' },
    },
    {
      name: 'a string for another kind is its content',
      kind: 'other',
      raw: 'ok',
      content: undefined,
      output: { content: 'ok' },
    },
    {
      name: 'a string for execute is its stdout',
      kind: 'execute',
      raw: 'total 2\n',
      content: undefined,
      output: { exitCode: null, stdout: 'total 2\n', stderr: '' },
    },
    {
      name: 'an array passes through',
      kind: 'search',
      raw: ['a.ts', 'b.ts'],
      content: undefined,
      output: ['a.ts', 'b.ts'],
    },
    { name: 'a number passes through', kind: 'other', raw: 3, content: undefined, output: 3 },
    { name: 'a boolean passes through', kind: 'other', raw: false, content: undefined, output: false },
  ])('$name', ({ kind, raw, content, output }) => {
    expect(normalizeOutput(kind, raw, content)).toEqual(output);
  });
});

describe('cleanDiff', () => {
  it.each([
    {
      name: 'a new file loses its /dev/null side and header line',
      oldText: '-- /dev/null',
      newText: '++ b//workspace/out.txt\nhi',
      diff: { oldText: null, newText: 'hi' },
    },
    {
      name: 'a new file with only a header is empty',
      oldText: '-- /dev/null',
      newText: '++ b//workspace/empty.txt',
      diff: { oldText: null, newText: '' },
    },
    {
      name: 'a modified file is kept as it is',
      oldText: 'hello, world\n',
      newText: 'Hello, world\n',
      diff: { oldText: 'hello, world\n', newText: 'Hello, world\n' },
    },
    {
      name: 'an edit whose new text starts like a header keeps it',
      oldText: 'old\n',
      newText: '++ b/not-a-header\nnew\n',
      diff: { oldText: 'old\n', newText: '++ b/not-a-header\nnew\n' },
    },
    { name: 'non-string sides', oldText: undefined, newText: 42, diff: { oldText: null, newText: '' } },
  ])('$name', ({ oldText, newText, diff }) => {
    expect(cleanDiff('/p', oldText, newText)).toEqual({ path: '/p', ...diff });
  });
});

describe('contentText', () => {
  it('joins text blocks, wrapped or bare, and skips the rest', () => {
    const content = [
      { type: 'content', content: { type: 'text', text: 'a' } },
      { type: 'text', text: 'b' },
      { type: 'content', content: { type: 'image', data: '' } },
      'junk',
    ];
    expect(contentText(content)).toBe('a\nb');
  });

  it.each([[undefined], [[]], [[{ type: 'diff', path: 'x' }]]])('is undefined for %j', (content) => {
    expect(contentText(content)).toBeUndefined();
  });
});

describe('ToolStore.markVerdict', () => {
  const execute = { toolCallId: 'sh', kind: 'execute', title: '`wc -l hello.txt`', status: 'pending' };
  const completed = { toolCallId: 'sh', status: 'completed' };

  it.each([
    { when: 'before the tool call', steps: ['verdict', 'call', 'completed'] },
    { when: 'before the completion', steps: ['call', 'verdict', 'completed'] },
    { when: 'after the completion', steps: ['call', 'completed', 'verdict'] },
  ])('marks a rejected tool Cursor reports completed as rejected, verdict $when', ({ steps }) => {
    const store = new ToolStore();
    for (const step of steps) {
      if (step === 'verdict') store.markVerdict('sh', 'rejected');
      else store.apply(step === 'call' ? execute : completed);
    }
    const [tool] = store.all();
    expect(tool).toMatchObject({ status: 'rejected', reportedStatus: 'completed', output: null });
  });

  it('marks a cancelled permission as cancelled', () => {
    const store = new ToolStore();
    store.apply(execute);
    store.apply(completed);
    expect(store.markVerdict('sh', 'cancelled')).toMatchObject({
      status: 'cancelled',
      reportedStatus: 'completed',
    });
  });

  it('leaves a rejected tool that is still running as Cursor says', () => {
    const store = new ToolStore();
    store.apply({ ...execute, status: 'in_progress' });
    const tool = store.markVerdict('sh', 'rejected');
    expect(tool?.status).toBe('in_progress');
    expect(tool).not.toHaveProperty('reportedStatus');
  });

  it('marks a rejected tool the agent never updates again rejected, not pending', () => {
    const store = new ToolStore();
    store.apply(execute);
    expect(store.markVerdict('sh', 'rejected')).toMatchObject({
      status: 'rejected',
      reportedStatus: 'pending',
    });
  });

  it('believes a completion that carries output', () => {
    const store = new ToolStore();
    store.apply(execute);
    store.markVerdict('sh', 'rejected');
    const tool = store.apply({
      ...completed,
      rawOutput: { exitCode: 0, stdout: '1 hello.txt\n', stderr: '' },
    });
    expect(tool.status).toBe('completed');
    expect(tool).not.toHaveProperty('reportedStatus');
  });

  it('keeps a completed tool without a verdict completed', () => {
    const store = new ToolStore();
    store.apply(execute);
    expect(store.apply(completed)).toMatchObject({ status: 'completed', output: null });
  });

  it('returns undefined for a tool not seen yet', () => {
    expect(new ToolStore().markVerdict('unknown', 'rejected')).toBeUndefined();
  });
});

describe('normalizeTodos', () => {
  it.each([
    { status: 'TODO_STATUS_IN_PROGRESS', normalised: 'in_progress' },
    { status: 'TODO_STATUS_COMPLETED', normalised: 'completed' },
    { status: 'TODO_STATUS_PENDING', normalised: 'pending' },
    { status: 'TODO_STATUS_CANCELLED', normalised: 'cancelled' },
    { status: 'in_progress', normalised: 'in_progress' },
    { status: undefined, normalised: 'pending' },
  ])('maps status $status to $normalised', ({ status, normalised }) => {
    expect(normalizeTodos([{ id: 'a', content: 'A', status }])).toEqual([
      { id: 'a', content: 'A', status: normalised },
    ]);
  });

  it('keeps only id, content and status, stringifying ids and dropping non-objects', () => {
    const todos = [
      { id: 7, content: 'seven', status: 'TODO_STATUS_PENDING', createdAt: '1', dependencies: [] },
      'x',
    ];
    expect(normalizeTodos(todos)).toEqual([{ id: '7', content: 'seven', status: 'pending' }]);
  });

  it.each([[undefined], [{}], ['todos']])('is empty for %j', (value) => {
    expect(normalizeTodos(value)).toEqual([]);
  });

  // A request's todos (cursor/update_todos, cursor/create_plan) keep what they name not: nothing the agent
  // sent is lost. A tool's are read without it: its input holds them whole.
  it('with extra: the rest of each todo, and a status it rewrote, as sent', () => {
    const todos = [
      { id: 7, content: 'seven', status: 'TODO_STATUS_PENDING', priority: 'high', dependencies: [] },
      { id: 'b', content: 'B', status: 'in_progress' },
      'x',
    ];
    expect(normalizeTodos(todos, true)).toEqual([
      {
        id: '7',
        content: 'seven',
        status: 'pending',
        extra: { status: 'TODO_STATUS_PENDING', priority: 'high', dependencies: [] },
      },
      { id: 'b', content: 'B', status: 'in_progress' },
    ]);
  });

  it('with extra: a content or status of another type is kept; null is nothing sent', () => {
    expect(
      normalizeTodos(
        [
          { id: 'a', content: { rich: true }, status: 3 },
          { id: 'b', content: null, status: null },
          { id: 'c', status: 'DONE_TODO_STATUS_X' },
        ],
        true,
      ),
    ).toEqual([
      { id: 'a', content: '', status: 'pending', extra: { content: { rich: true }, status: 3 } },
      { id: 'b', content: '', status: 'pending' },
      { id: 'c', content: '', status: 'done_todo_status_x', extra: { status: 'DONE_TODO_STATUS_X' } },
    ]);
  });

  it('with extra: an own __proto__ key stays a key, never a prototype', () => {
    const [todo] = normalizeTodos(JSON.parse('[{"id":"a","content":"A","__proto__":{"x":1}}]'), true);
    expect(Object.getPrototypeOf(todo!.extra)).toBe(Object.prototype);
    expect(JSON.stringify(todo!.extra)).toBe('{"__proto__":{"x":1}}');
  });
});

describe('ToolStore.todosOf', () => {
  it('reads the todos of an updateTodos tool', () => {
    const store = new ToolStore();
    const tool = store.apply({
      toolCallId: 'todo',
      kind: 'other',
      title: 'Update TODOs',
      rawInput: {
        _toolName: 'updateTodos',
        todos: [{ id: 'r', content: 'Read', status: 'TODO_STATUS_IN_PROGRESS' }],
      },
    });
    expect(store.todosOf(tool)).toEqual([{ id: 'r', content: 'Read', status: 'in_progress' }]);
  });

  it('is undefined for any other tool', () => {
    const store = new ToolStore();
    const tool = store.apply({ toolCallId: 'r', kind: 'read', rawInput: { todos: [] } });
    expect(store.todosOf(tool)).toBeUndefined();
  });
});

describe('ToolStore without finished tools (text and stream-json)', () => {
  const call = (i: number) => ({ toolCallId: `t${i}`, kind: 'execute', title: `ls ${i}`, status: 'pending' });
  const done = (i: number, status = 'completed') => ({
    toolCallId: `t${i}`,
    status,
    rawOutput: { exitCode: 0, stdout: `out ${i}\n`, stderr: '' },
  });

  it('returns the same merged states as a store that keeps them', () => {
    const keep = new ToolStore();
    const drop = new ToolStore(false);
    for (const u of [call(1), done(1), call(2), done(2, 'failed'), call(3)]) {
      expect(JSON.stringify(drop.apply(u))).toBe(JSON.stringify(keep.apply(u)));
    }
  });

  // Found by review: applied, such an update started a blank pending tool and counted a new call.
  it('knows an update of a tool it let go: not to be applied (json, which keeps them, merges it)', () => {
    const drop = new ToolStore(false);
    const keep = new ToolStore();
    const late = { sessionUpdate: 'tool_call_update', toolCallId: 't1', _meta: { x: 1 } };
    for (const store of [drop, keep]) {
      store.apply(call(1));
      expect(store.lateForFinished(late)).toBe(false);
      store.apply(done(1));
    }
    expect(drop.lateForFinished(late)).toBe(true);
    expect(drop.lateForFinished({ ...late, sessionUpdate: 'tool_call' })).toBe(false);
    expect(drop.lateForFinished({ ...late, toolCallId: 't2' })).toBe(false);
    expect(keep.lateForFinished(late)).toBe(false);
    expect(drop.facts().calls).toBe(1);
  });

  it('holds only unfinished tools and keeps finished ones as counts', () => {
    const store = new ToolStore(false);
    for (let i = 0; i < 1000; i++) {
      store.apply(call(i));
      store.apply(done(i, i % 10 === 0 ? 'failed' : 'completed'));
    }
    store.apply(call(1000));
    expect(store.all().map((t) => t.toolCallId)).toEqual(['t1000']);
    expect(store.facts()).toEqual({
      calls: 1001,
      finished: { completed: 900, failed: 100, rejected: 0, cancelled: 0 },
    });
  });

  it('counts the same facts as a store that keeps every tool', () => {
    const keep = new ToolStore();
    const drop = new ToolStore(false);
    for (const store of [keep, drop]) {
      store.apply(call(1));
      store.apply(done(1));
      store.apply(call(2));
      store.apply(done(2, 'failed'));
      store.apply(call(3));
    }
    expect(drop.facts()).toEqual(keep.facts());
  });

  it('still corrects a tool reported completed with no output when its rejection comes after', () => {
    const store = new ToolStore(false);
    store.apply(call(1));
    store.apply({ toolCallId: 't1', status: 'completed' });
    expect(store.markVerdict('t1', 'rejected')).toMatchObject({
      status: 'rejected',
      reportedStatus: 'completed',
    });
    expect(store.all()).toEqual([]);
    expect(store.facts().finished.rejected).toBe(1);
  });

  it('keeps a tool rejected while still pending, so its later update (with no kind) stays rejected', () => {
    const store = new ToolStore(false);
    store.apply({ ...call(1), kind: 'edit' });
    expect(store.markVerdict('t1', 'rejected')).toMatchObject({ status: 'rejected' });
    expect(store.apply({ toolCallId: 't1', status: 'completed' })).toMatchObject({
      kind: 'edit',
      status: 'rejected',
      reportedStatus: 'completed',
    });
    expect(store.all()).toEqual([]);
  });

  it('forgets a finished tool whole: get, all and its verdict', () => {
    const store = new ToolStore(false);
    store.apply(call(1));
    store.markVerdict('t1', 'rejected');
    expect(store.verdictOf('t1')).toBe('rejected');
    store.apply({ toolCallId: 't1', status: 'failed', rawOutput: { exitCode: 1, stdout: '', stderr: 'no' } });
    expect(store.get('t1')).toBeUndefined();
    expect(store.all()).toEqual([]);
    expect(store.verdictOf('t1')).toBeUndefined();
    expect(store.facts()).toEqual({
      calls: 1,
      finished: { completed: 0, failed: 1, rejected: 0, cancelled: 0 },
    });
  });

  it('keeps a tool that has not finished, and one only our verdict finished', () => {
    const store = new ToolStore(false);
    store.apply({ ...call(1), status: 'in_progress' });
    store.apply(call(2));
    store.markVerdict('t2', 'cancelled');
    expect(store.all().map((t) => [t.toolCallId, t.status])).toEqual([
      ['t1', 'in_progress'],
      ['t2', 'cancelled'],
    ]);
    expect(store.facts().finished).toEqual({ completed: 0, failed: 0, rejected: 0, cancelled: 0 });
  });

  it('counts a completed tool with output as completed even after a rejection', () => {
    const store = new ToolStore(false);
    store.apply(call(1));
    store.markVerdict('t1', 'rejected');
    store.apply(done(1));
    expect(store.all()).toEqual([]);
    expect(store.facts().finished).toEqual({ completed: 1, failed: 0, rejected: 0, cancelled: 0 });
  });
});

describe('ToolStore keeping finished tools (json)', () => {
  it('holds every tool to the end and counts the finished ones by status', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'a', status: 'completed', rawOutput: { content: 'A' } });
    store.apply({ toolCallId: 'b', status: 'failed' });
    store.apply({ toolCallId: 'c', status: 'completed' });
    store.markVerdict('c', 'rejected');
    store.apply({ toolCallId: 'd', status: 'completed' });
    store.markVerdict('d', 'cancelled');
    store.apply({ toolCallId: 'e', status: 'in_progress' });
    store.apply({ toolCallId: 'f' });
    expect(store.all().map((t) => [t.toolCallId, t.status])).toEqual([
      ['a', 'completed'],
      ['b', 'failed'],
      ['c', 'rejected'],
      ['d', 'cancelled'],
      ['e', 'in_progress'],
      ['f', 'pending'],
    ]);
    expect(store.get('a')?.output).toEqual({ content: 'A' });
    expect(store.verdictOf('c')).toBe('rejected');
    expect(store.facts()).toEqual({
      calls: 6,
      finished: { completed: 1, failed: 1, rejected: 1, cancelled: 1 },
    });
  });

  it('counts each finished tool once however often it is updated', () => {
    const store = new ToolStore();
    for (let i = 0; i < 3; i++) store.apply({ toolCallId: 'a', status: 'completed', rawOutput: 'ok' });
    expect(store.facts().finished.completed).toBe(1);
    expect(store.facts().finished.completed).toBe(1);
  });
});

describe('normalising, the edge cases', () => {
  it('gives a diff without a string path the path ""', () => {
    expect(
      normalizeOutput('edit', undefined, [{ type: 'diff', path: 3, oldText: 'a', newText: 'b' }]),
    ).toEqual({
      diffs: [{ path: '', oldText: 'a', newText: 'b' }],
    });
  });

  it('takes the diffs over any rawOutput, and skips what is no diff', () => {
    const content = ['x', { type: 'content', content: { type: 'text', text: 't' } }, { ...NEW_FILE_DIFF }];
    expect(normalizeOutput('edit', { ok: true }, content)).toEqual({
      diffs: [{ path: '/workspace/out.txt', oldText: null, newText: 'hi' }],
    });
  });

  it('takes rawOutput over content text, and content text when there is no rawOutput', () => {
    const content = [{ type: 'text', text: 'from content' }];
    expect(normalizeOutput('other', { a: 1 }, content)).toEqual({ a: 1 });
    expect(normalizeOutput('other', 'raw', content)).toEqual({ content: 'raw' });
    expect(normalizeOutput('other', null, content)).toEqual({ content: 'from content' });
    expect(normalizeOutput('other', undefined, 'not an array')).toBeNull();
  });

  it.each([
    { kind: 'execute', raw: { stderr: 'only' }, output: { stderr: 'only' } },
    {
      kind: 'execute',
      raw: { exitCode: '1', stdout: 2, stderr: 3 },
      output: { exitCode: null, stdout: '', stderr: '' },
    },
    { kind: 'read', raw: { content: 5 }, output: { content: 5 } },
    { kind: 'read', raw: { stdout: 'x' }, output: { stdout: 'x' } },
    { kind: 'search', raw: { stdout: 'x', exitCode: 0 }, output: { stdout: 'x', exitCode: 0 } },
    { kind: 'search', raw: { content: 'c', totalLines: 1 }, output: { content: 'c', totalLines: 1 } },
    {
      kind: 'execute',
      raw: { exitCode: 1, stderr: 'boom' },
      output: { exitCode: 1, stdout: '', stderr: 'boom' },
    },
  ])('carries $kind rawOutput $raw as $output', ({ kind, raw, output }) => {
    expect(normalizeOutput(kind, raw, undefined)).toEqual(output);
  });

  it('gives a todo without an id the id "" and one without content the content ""', () => {
    expect(normalizeTodos([{ status: 'completed' }, { id: null, content: 4 }])).toEqual([
      { id: '', content: '', status: 'completed' },
      { id: '', content: '', status: 'pending' },
    ]);
  });

  it('lower-cases a status without the TODO_STATUS_ prefix, and keeps the prefix anywhere else', () => {
    expect(normalizeTodos([{ id: 'a', status: 'DONE_TODO_STATUS_X' }])).toEqual([
      { id: 'a', content: '', status: 'done_todo_status_x' },
    ]);
  });

  it('reads no todos from an updateTodos tool whose todos are no list', () => {
    const store = new ToolStore();
    const tool = store.apply({ toolCallId: 't', rawInput: { _toolName: 'updateTodos', todos: 'a' } });
    expect(store.todosOf(tool)).toBeUndefined();
  });

  it('keeps a header-like first line when the old side is no /dev/null, and cuts only the first line', () => {
    expect(cleanDiff('/p', '-- /dev/null', '++ b/p\n++ b/q\nx')).toEqual({
      path: '/p',
      oldText: null,
      newText: '++ b/q\nx',
    });
    expect(cleanDiff('/p', null, '++ b/p\nx')).toEqual({ path: '/p', oldText: null, newText: '++ b/p\nx' });
    expect(cleanDiff('/p', '-- /dev/null', 'plain\nx')).toEqual({
      path: '/p',
      oldText: null,
      newText: 'plain\nx',
    });
  });
});

describe('contentText, the edge cases', () => {
  it('takes only text blocks with string text, wrapped or bare', () => {
    const content = [
      { type: 'content', content: null },
      { type: 'content', content: 'text' },
      { type: 'image', text: 'alt' },
      { type: 'content', content: { type: 'image', text: 'alt' } },
      { type: 'text', text: 5 },
      { type: 'content', content: { type: 'text', text: 5 } },
    ];
    expect(contentText(content)).toBeUndefined();
    expect(contentText([...content, { type: 'text', text: 'kept' }])).toBe('kept');
  });
});

describe('ToolStore without finished tools: failures', () => {
  it('forgets a failed tool that returned nothing, and counts it', () => {
    const store = new ToolStore(false);
    store.apply({ toolCallId: 'f', kind: 'execute', status: 'in_progress' });
    store.apply({ toolCallId: 'f', status: 'failed' });
    expect(store.all()).toEqual([]);
    expect(store.facts().finished.failed).toBe(1);
  });
});

describe('ToolStore.close', () => {
  it('gives every tool still pending or in progress a final state, and leaves the finished alone', () => {
    const store = new ToolStore(false);
    store.apply({ toolCallId: 'p', status: 'pending', title: 'a' });
    store.apply({ toolCallId: 'r', status: 'in_progress', title: 'b' });
    store.apply({ toolCallId: 'c', status: 'completed', rawOutput: 'done' });
    store.apply({ toolCallId: 'f', status: 'failed', rawOutput: 'no' });
    const closed = store.close(false);
    // The agent left them unfinished (the run was not stopped): cancelled, its last word kept.
    expect(closed.map((t) => [t.toolCallId, t.status, t.reportedStatus])).toEqual([
      ['p', 'cancelled', 'pending'],
      ['r', 'cancelled', 'in_progress'],
    ]);
    expect(store.get('p')?.status).toBe('cancelled');
    expect(store.close(false)).toEqual([]);
  });

  it('a stopped run cancels them without the agent’s last word', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'p', status: 'in_progress' });
    const [t] = store.close(true);
    expect(t?.status).toBe('cancelled');
    expect(t?.reportedStatus).toBeUndefined();
  });

  it('one whose request rho-cursor rejected is rejected, stopped or not, with the agent’s last word', () => {
    for (const stopped of [false, true]) {
      const store = new ToolStore();
      store.apply({ toolCallId: 'x', status: 'in_progress' });
      store.markVerdict('x', 'rejected');
      expect(store.get('x')?.status).toBe('in_progress');
      const [t] = store.close(stopped);
      expect([t?.status, t?.reportedStatus]).toEqual(['rejected', 'in_progress']);
    }
  });

  it('returns snapshots: changing one changes nothing held', () => {
    const store = new ToolStore();
    store.apply({ toolCallId: 'p', status: 'pending' });
    const [t] = store.close(true);
    t!.status = 'completed';
    expect(store.get('p')?.status).toBe('cancelled');
  });
});

describe('what a tool holds stays bounded, whatever the updates (found by review)', () => {
  it('adds no input key beyond MAX_INPUT_KEYS, and still updates the keys it holds', () => {
    const store = new ToolStore();
    const many = Object.fromEntries(Array.from({ length: MAX_INPUT_KEYS + 50 }, (_, i) => [`k${i}`, i]));
    const first = store.apply({ toolCallId: 't', rawInput: many });
    expect(Object.keys(first.input)).toHaveLength(MAX_INPUT_KEYS);
    const next = store.apply({ toolCallId: 't', rawInput: { k0: 'changed', extra: 1 } });
    expect(next.input.k0).toBe('changed');
    expect(next.input).not.toHaveProperty('extra');
    expect(Object.keys(next.input)).toHaveLength(MAX_INPUT_KEYS);
    // The snapshot already written keeps its own input.
    expect(first.input.k0).toBe(0);
  });

  it('keeps an own __proto__ key a key on the capped path too', () => {
    const store = new ToolStore();
    const many = Object.fromEntries(Array.from({ length: MAX_INPUT_KEYS - 1 }, (_, i) => [`k${i}`, i]));
    store.apply({ toolCallId: 't', rawInput: many });
    const t = store.apply({ toolCallId: 't', rawInput: JSON.parse('{"__proto__":{"x":1},"y":2}') as object });
    expect(Object.getPrototypeOf(t.input)).toBe(Object.prototype);
    expect(Object.hasOwn(t.input, '__proto__')).toBe(true);
    expect(t.input).not.toHaveProperty('y');
  });

  it('says an update that changes nothing of a held tool is unchanged, and any other is not', () => {
    const store = new ToolStore();
    expect(store.unchangedBy({ toolCallId: 't' })).toBe(false);
    store.apply({ toolCallId: 't', status: 'in_progress', rawInput: { a: 1 } });
    expect(store.unchangedBy({ toolCallId: 't', sessionUpdate: 'tool_call_update' })).toBe(true);
    expect(store.unchangedBy({ toolCallId: 't', status: 'in_progress', rawInput: {} })).toBe(true);
    expect(store.unchangedBy({ toolCallId: 't', status: 'completed' })).toBe(false);
    // Review of the first fix: the same kind, title, input or status again, or a null kind, changed nothing.
    store.apply({ toolCallId: 't', kind: 'read', title: 'Read a' });
    expect(
      store.unchangedBy({
        toolCallId: 't',
        kind: 'read',
        title: 'Read a',
        rawInput: { a: 1 },
        status: 'in_progress',
      }),
    ).toBe(true);
    expect(store.unchangedBy({ toolCallId: 't', kind: null, title: null, locations: null })).toBe(true);
    // A value the event cannot carry in its field is a change: the event carries it as extra.
    expect(store.unchangedBy({ toolCallId: 't', title: 7 })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', locations: 'x' })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', rawInput: { a: 2 } })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', rawInput: { b: 1 } })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', rawInput: { a: {} } })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', kind: 'edit' })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', locations: [] })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', content: [] })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', _meta: {} })).toBe(false);
    // A null the event does not name is the agent's too: it is carried, so it is a change.
    expect(store.unchangedBy({ toolCallId: 't', _meta: null })).toBe(false);
    expect(store.unchangedBy({ toolCallId: 't', rawOutput: null })).toBe(false);
  });
});

describe('ToolStore.announcedKind: the kind a permission request is judged by', () => {
  it("is the first tool_call's kind, which no later update or tool_call changes", () => {
    const store = new ToolStore();
    store.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', kind: 'read', status: 'pending' });
    store.apply({ sessionUpdate: 'tool_call_update', toolCallId: 't1', kind: 'execute' });
    store.apply({ sessionUpdate: 'tool_call', toolCallId: 't1', kind: 'edit' });
    expect(store.announcedKind('t1')).toEqual({ kind: 'read' });
    // The event shows the latest kind; the judge reads the announced one.
    expect(store.get('t1')?.kind).toBe('edit');
  });

  it('is the kind as sent, none included, and nothing for a call only updates named or none named', () => {
    const store = new ToolStore();
    store.apply({ sessionUpdate: 'tool_call', toolCallId: 'bare', status: 'pending' });
    store.apply({ sessionUpdate: 'tool_call_update', toolCallId: 'late', kind: 'read', status: 'pending' });
    expect(store.announcedKind('bare')).toEqual({ kind: undefined });
    expect(store.announcedKind('late')).toBeUndefined();
    expect(store.announcedKind('never')).toBeUndefined();
  });
});

describe('what of an update its tool event cannot carry is its extra, as sent', () => {
  const held = (): ToolStore => {
    const store = new ToolStore();
    store.apply({ toolCallId: 't', kind: 'read', title: 'Read a', status: 'in_progress' });
    return store;
  };

  it("keeps an execute rawOutput's keys beyond exitCode, stdout and stderr (marker 1)", () => {
    const store = new ToolStore();
    const t = store.apply({
      toolCallId: 'e1',
      kind: 'execute',
      status: 'completed',
      rawOutput: { stdout: 'ok', exitCode: 0, extraKey: 'LOST-1', stderr: 5 },
    });
    expect(t.output).toEqual({ exitCode: 0, stdout: 'ok', stderr: '' });
    expect(t.extra).toEqual({ rawOutput: { extraKey: 'LOST-1', stderr: 5 } });
  });

  it('keeps the text content sent beside a rawOutput (marker 2)', () => {
    const store = new ToolStore();
    const content = [{ type: 'content', content: { type: 'text', text: 'LOST-2' } }];
    const t = store.apply({
      toolCallId: 'e1',
      kind: 'execute',
      rawOutput: { stdout: 'ok', exitCode: 0 },
      content,
    });
    expect(t.extra).toEqual({ content });
    // Also when the content comes after the rawOutput, in an update of its own.
    const later = store.apply({ toolCallId: 'e1', content });
    expect(later.output).toEqual({ exitCode: 0, stdout: 'ok', stderr: '' });
    expect(later.extra).toEqual({ content });
  });

  it("keeps an edit's rawOutput and its content that is no diff, whenever a diff is present (markers 3, 4)", () => {
    const store = new ToolStore();
    const note = { type: 'content', content: { type: 'text', text: 'LOST-4' } };
    const diff = { type: 'diff', path: 'a.txt', oldText: 'a', newText: 'b' };
    const t = store.apply({
      toolCallId: 'e2',
      kind: 'edit',
      status: 'completed',
      rawOutput: { note: 'LOST-3' },
      content: [diff, note, { type: 'terminal', terminalId: 'x' }],
    });
    expect(t.output).toEqual({ diffs: [{ path: 'a.txt', oldText: 'a', newText: 'b' }] });
    expect(t.extra).toEqual({
      rawOutput: { note: 'LOST-3' },
      content: [note, { type: 'terminal', terminalId: 'x' }],
    });
    // A rawOutput of any kind after the diffs is not carried either: the output stays the diffs.
    expect(store.apply({ toolCallId: 'e2', rawOutput: 'done' }).extra).toEqual({ rawOutput: 'done' });
  });

  it('keeps a diff with a field the output drops, and the text blocks the output joins only when whole', () => {
    const store = new ToolStore();
    const diff = { type: 'diff', path: 'a.txt', newText: 'b', _meta: { x: 1 } };
    expect(store.apply({ toolCallId: 'd', kind: 'edit', content: [diff] }).extra).toEqual({
      content: [diff],
    });
    const text = { type: 'text', text: 'a' };
    const annotated = { type: 'content', content: { type: 'text', text: 'b' }, annotations: { p: 1 } };
    const t = store.apply({ toolCallId: 'o', kind: 'other', content: [text, annotated, 'junk'] });
    expect(t.output).toEqual({ content: 'a\nb' });
    expect(t.extra).toEqual({ content: [annotated, 'junk'] });
    expect(store.apply({ toolCallId: 'p', kind: 'other', content: { text: 'no array' } }).extra).toEqual({
      content: { text: 'no array' },
    });
  });

  it('keeps a status ACP does not name, shown as pending, and says it once (found by review)', () => {
    const store = held();
    const t = store.apply({ toolCallId: 't', status: 'cancelled' });
    expect(t.status).toBe('pending');
    expect(t.extra).toEqual({ status: 'cancelled' });
    // The same status again changes nothing; a named one afterwards carries no extra.
    expect(store.unchangedBy({ toolCallId: 't', status: 'cancelled' })).toBe(true);
    const done = store.apply({ toolCallId: 't', status: 'completed', rawOutput: { content: 'x' } });
    expect(done.status).toBe('completed');
    expect(done.extra).toBeUndefined();
  });

  it('keeps a title, kind, status, rawInput or locations of another type (marker 5)', () => {
    const store = held();
    const t = store.apply({
      toolCallId: 't',
      title: { note: 'LOST-5' },
      kind: 3,
      status: ['done'],
      rawInput: 'cat a',
      locations: [{ path: 'a' }, { line: 2 }, 'b'],
    });
    expect(t).toMatchObject({ title: 'Read a', kind: 'read', status: 'in_progress', input: {} });
    expect(t.locations).toEqual([{ path: 'a' }]);
    expect(t.extra).toEqual({
      title: { note: 'LOST-5' },
      kind: 3,
      status: ['done'],
      rawInput: 'cat a',
      locations: [{ line: 2 }, 'b'],
    });
    expect(store.apply({ toolCallId: 't', locations: 'here' }).extra).toEqual({ locations: 'here' });
  });

  it("keeps a read rawOutput's keys beyond its content (marker 8)", () => {
    const store = held();
    const t = store.apply({
      toolCallId: 't',
      status: 'completed',
      rawOutput: { content: 'r', note: 'LOST-8' },
    });
    expect(t.output).toEqual({ content: 'r' });
    expect(t.extra).toEqual({ rawOutput: { note: 'LOST-8' } });
  });

  it('has no extra when the event carries it all: the shapes Cursor sends, nulls, a rawOutput passed whole', () => {
    const store = new ToolStore();
    const updates = [
      { toolCallId: 'r', kind: 'read', title: 'Read', rawInput: { path: 'a' }, locations: [{ path: 'a' }] },
      { toolCallId: 'r', status: 'completed', rawOutput: { content: 'x' } },
      { toolCallId: 'x', kind: 'execute', rawOutput: { exitCode: 0, stdout: 'o', stderr: '' } },
      { toolCallId: 'x', rawOutput: { exitCode: null, stdout: null } },
      { toolCallId: 's', kind: 'search', rawOutput: { totalMatches: 2, truncated: false, more: 1 } },
      { toolCallId: 'e', kind: 'edit', content: [{ type: 'diff', path: 'a', oldText: null, newText: 'b' }] },
      { toolCallId: 'e', content: [NEW_FILE_DIFF] },
      {
        toolCallId: 'o',
        kind: 'other',
        content: [{ type: 'content', content: { type: 'text', text: 'ok' } }],
      },
      {
        toolCallId: 'n',
        title: null,
        kind: null,
        status: null,
        rawInput: null,
        locations: null,
        rawOutput: null,
      },
      { toolCallId: 'n', content: null },
      { toolCallId: 'q', kind: 'read', rawOutput: 'text' },
      { toolCallId: 'q', rawOutput: ['a', 'b'] },
    ];
    for (const u of updates) expect(store.apply(u), JSON.stringify(u)).not.toHaveProperty('extra');
  });

  it('keeps an own __proto__ key a key in what it keeps', () => {
    const store = new ToolStore();
    const raw = JSON.parse('{"stdout":"o","__proto__":{"x":1}}') as object;
    const t = store.apply({ toolCallId: 'x', kind: 'execute', rawOutput: raw });
    const rest = (t.extra as { rawOutput: object }).rawOutput;
    expect(Object.getPrototypeOf(rest)).toBe(Object.prototype);
    expect(Object.hasOwn(rest, '__proto__')).toBe(true);
  });

  it("leaves the store's state without it: the next event of the tool has none", () => {
    const store = held();
    expect(store.apply({ toolCallId: 't', title: 7 }).extra).toEqual({ title: 7 });
    expect(store.apply({ toolCallId: 't', status: 'completed' })).not.toHaveProperty('extra');
    expect(store.get('t')).not.toHaveProperty('extra');
  });
});
