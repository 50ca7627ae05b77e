import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { Event, ToolEvent } from '../../../src/events/types.js';
import { TextRenderer } from '../../../src/render/text.js';
import { capture, finished } from './capture.js';

// A text renderer without colour over two capture writers; `run` emits events and finishes.
function setup(isTTY = false) {
  const out = capture(isTTY);
  const err = capture(isTTY);
  const renderer = new TextRenderer(out, err, new Chalk({ level: 0 }));
  const run = (events: Event[], output = finished()) => {
    for (const e of events) renderer.emit(e);
    renderer.finish(output);
  };
  return { out, err, renderer, run };
}

const ls = (status: ToolEvent['status'], output: ToolEvent['output'] = null): ToolEvent => ({
  type: 'tool',
  toolCallId: 'tool_e15b',
  kind: 'execute',
  title: '`ls -la`',
  status,
  input: { command: 'ls -la' },
  output,
  locations: [],
});

const LS_OUTPUT = { exitCode: 0, stdout: 'total 20\n-rw-r--r-- hello.txt\n', stderr: '' };

describe('TextRenderer', () => {
  it('writes the message text, and nothing else, to stdout', () => {
    const { out, err, run } = setup();
    run([
      { type: 'message', text: 'Sure, I will' },
      { type: 'thought', text: 'reading first' },
      ls('pending'),
      ls('completed', LS_OUTPUT),
      { type: 'warning', code: 'policy-fences-nothing', message: 'nothing fenced' },
      { type: 'message', text: ' tidy up.\n' },
    ]);
    expect(out.text).toBe('Sure, I will tidy up.\n');
    expect(err.text).not.toContain('Sure');
  });

  it('holds stdout until flush', () => {
    const { out, renderer } = setup();
    renderer.emit({ type: 'message', text: 'Hello' });
    expect(out.writes).toEqual([]);
    renderer.flush();
    expect(out.text).toBe('Hello');
  });

  it.each([
    {
      name: 'adds a trailing newline to text that lacks one',
      chunks: ['Hello', ', world'],
      stdout: 'Hello, world\n',
    },
    { name: 'keeps text that ends with a newline', chunks: ['Hello\n'], stdout: 'Hello\n' },
    { name: 'ignores an empty last chunk', chunks: ['Hello', ''], stdout: 'Hello\n' },
    { name: 'writes nothing when there was no text', chunks: [], stdout: '' },
  ])('$name', ({ chunks, stdout }) => {
    const { out, run } = setup();
    run(chunks.map((text) => ({ type: 'message', text })));
    expect(out.text).toBe(stdout);
  });

  it('prints a tool line once, when the tool reaches a terminal status', () => {
    const { err, run } = setup();
    run([ls('pending'), ls('in_progress'), ls('completed', LS_OUTPUT), ls('completed', LS_OUTPUT)]);
    expect(err.text).toBe('execute `ls -la` completed · exit 0 · total 20\nstopReason: end_turn\n');
  });

  it('prints a tool that never finished at the end, with its last status', () => {
    const { err, run } = setup();
    run([{ ...ls('in_progress'), kind: 'read', title: 'Read hello.txt' }]);
    expect(err.text).toBe('read Read hello.txt in_progress\nstopReason: end_turn\n');
  });

  it('says a rejected tool did not run', () => {
    const { err, run } = setup();
    run([ls('pending'), { ...ls('rejected'), reportedStatus: 'completed' }]);
    expect(err.text.split('\n')[0]).toBe(
      'execute `ls -la` rejected · did not run (Cursor reported it completed)',
    );
  });

  it('prefixes thoughts with thinking: and joins their chunks on one line', () => {
    const { err, run } = setup();
    run([
      { type: 'thought', text: 'Five small steps,' },
      { type: 'thought', text: ' in order.\n\nFirst' },
      { type: 'message', text: 'ok' },
      { type: 'thought', text: 'again' },
    ]);
    expect(err.text).toBe(
      'thinking: Five small steps, in order. First\nthinking: again\nstopReason: end_turn\n',
    );
  });

  it.each<{ stopReason: string | null; line: string }>([
    { stopReason: 'end_turn', line: 'stopReason: end_turn' },
    { stopReason: 'max_tokens', line: 'stopReason: max_tokens' },
    { stopReason: null, line: 'stopReason: none' },
  ])('closes stderr with $line', ({ stopReason, line }) => {
    const { err, run } = setup();
    run([], finished({ stopReason }));
    expect(err.text).toBe(line + '\n');
  });

  it('prints the error before the closing line', () => {
    const { out, err, run } = setup();
    run(
      [{ type: 'message', text: 'partial' }],
      finished({
        stopReason: null,
        exitCode: 1,
        error: { code: 'agent_exited', message: 'the agent exited (code 1)' },
      }),
    );
    expect(err.text).toBe('error: the agent exited (code 1)\nstopReason: none\n');
    expect(out.text).toBe('partial\n');
  });

  it('prints permission decisions with the reason and what Cursor said', () => {
    const { err, run } = setup();
    run([
      {
        type: 'permission',
        toolCallId: 'tool_ba1e',
        title: '`wc -l hello.txt`',
        kind: 'execute',
        options: [],
        decision: { optionId: 'reject-once', kind: 'reject_once' },
        reason: '--permissions reject',
        agentReason: 'Shell allowlist is empty',
        decidedBy: 'policy',
      },
      {
        type: 'permission',
        toolCallId: 'web_fetch_0',
        title: 'Fetch https://example.com',
        kind: 'fetch',
        options: [],
        decision: { outcome: 'cancelled' },
        reason: 'no allow_once option offered',
        agentReason: null,
        decidedBy: 'no-option',
      },
    ]);
    expect(err.text.split('\n').slice(0, 2)).toEqual([
      'permission execute `wc -l hello.txt` → reject-once (--permissions reject) · Cursor: Shell allowlist is empty',
      'permission fetch Fetch https://example.com → cancelled (no allow_once option offered)',
    ]);
  });

  it('prints todos, mode and warnings on stderr, and nothing for extensions', () => {
    const { err, run } = setup();
    run([
      { type: 'mode', mode: 'plan' },
      {
        type: 'todos',
        source: 'tool',
        todos: [
          { id: 'a', content: 'Read the greeting', status: 'completed' },
          { id: 'b', content: 'Pick a wording', status: 'in_progress' },
          { id: 'c', content: 'Write it', status: 'pending' },
        ],
      },
      { type: 'extension', method: 'session/update', params: { update: { sessionUpdate: 'x' } } },
      { type: 'warning', code: 'plan-allows-shell', message: 'plan mode does not block shell commands' },
    ]);
    expect(err.text).toBe(
      [
        'mode: plan',
        'todos',
        '  [x] Read the greeting',
        '  [~] Pick a wording',
        '  [ ] Write it',
        'warning: plan mode does not block shell commands',
        'stopReason: end_turn',
        '',
      ].join('\n'),
    );
  });

  it('breaks an open message line before a stderr line on a shared terminal', () => {
    const { out, err, run } = setup(true);
    run([
      { type: 'message', text: 'Hi' },
      { type: 'mode', mode: 'plan' },
    ]);
    expect(out.text).toBe('Hi');
    expect(err.text).toBe('\nmode: plan\nstopReason: end_turn\n');
  });

  it('leaves an open message line alone when stdout is not the terminal', () => {
    const { out, err, run } = setup(false);
    run([
      { type: 'message', text: 'Hi' },
      { type: 'mode', mode: 'plan' },
    ]);
    expect(out.text).toBe('Hi\n');
    expect(err.text).toBe('mode: plan\nstopReason: end_turn\n');
  });
});
