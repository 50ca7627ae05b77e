// Every stream-json line of every recording's run is an event the published schema accepts, result last; and
// nothing a known update kind carries is lost on the way (README: it rides along as `extra`).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Event, JsonOutput } from '../../src/events/schema.js';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, runCli, startCli } from '../helpers/cli.js';
import { FIXTURE_SESSION } from '../helpers/lines.js';

const ALLOWLIST = {
  version: 1,
  approvalMode: 'allowlist',
  permissions: { deny: ['Read(**)', 'WebFetch(*)'] },
};
const CASES: Array<[string, string[], object?]> = [
  ['tools.jsonl', []],
  ['permission-reject.jsonl', ['--permissions', 'reject']],
  ['permission-allow.jsonl', ['--permissions', 'allow']],
  ['plan-mode.jsonl', ['--plan', '--permissions', 'reject']],
  ['deny-read-fetch.jsonl', ['--allow', 'fetch'], ALLOWLIST],
  ['update-todos.jsonl', ['--plan']],
  ['auth-required.jsonl', []],
  ['plan-refused.jsonl', ['--plan']],
  ['refusal.jsonl', []],
  ['max-tokens.jsonl', []],
  ['extensions.jsonl', []],
  ['retriable-error.jsonl', []],
];

describe('the event schema holds for every run', () => {
  it.each(CASES)('%s', async (recording, flags, cliConfig) => {
    const r = await runCli(['run', '--output-format', 'stream-json', ...flags, 'go'], {
      recording,
      cliConfig,
    });
    expect(r.events.length).toBeGreaterThan(0);
    for (const e of r.events) {
      const parsed = Event.safeParse(e);
      expect(parsed.success, JSON.stringify(e).slice(0, 300)).toBe(true);
    }
    expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
    expect(r.events.at(-1)!.type).toBe('result');
    expect(r.events.at(-1)!.exitCode).toBe(r.exitCode);
  });

  it('the cancelled run too', async () => {
    const r = await finish(
      startCli(['run', '--output-format', 'stream-json', '--timeout', '400ms', 'go'], {
        recording: 'cancel.jsonl',
      }),
      true,
    );
    for (const e of r.events) expect(Event.safeParse(e).success).toBe(true);
  });

  it('and the json output matches its schema', async () => {
    const r = await runCli(['run', '--output-format', 'json', '--permissions', 'reject', 'go'], {
      recording: 'extensions.jsonl',
    });
    const parsed = JsonOutput.safeParse(JSON.parse(r.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
  });
});

// The ten shapes a review found reaching the wire log but not stream-json, each with its own marker.
const update = (u: object): object => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: FIXTURE_SESSION, update: u },
});
const text = (t: string): object => ({ type: 'content', content: { type: 'text', text: t } });
const entry = { content: 'step', status: 'pending', note: 'LOST-6' };
const DROPPED = [
  // 1, 2: an execute tool's rawOutput key beyond stdout/stderr/exitCode, and its text content beside rawOutput
  update({
    sessionUpdate: 'tool_call',
    toolCallId: 'e1',
    title: 'run',
    kind: 'execute',
    status: 'completed',
    rawOutput: { stdout: 'ok', exitCode: 0, extraKey: 'LOST-1' },
    content: [text('LOST-2 content text')],
  }),
  // 3, 4: an edit's rawOutput and its content that is no diff, beside a diff
  update({
    sessionUpdate: 'tool_call',
    toolCallId: 'e2',
    title: 'edit',
    kind: 'edit',
    status: 'completed',
    rawOutput: { note: 'LOST-3' },
    content: [{ type: 'diff', path: 'a.txt', oldText: 'a', newText: 'b' }, text('LOST-4')],
  }),
  // 5: a tool_call_update whose title is an object
  update({ sessionUpdate: 'tool_call', toolCallId: 'e3', title: 'x', kind: 'read', status: 'in_progress' }),
  update({ sessionUpdate: 'tool_call_update', toolCallId: 'e3', title: { note: 'LOST-5' } }),
  // 6: a plan entry's own field; 7: the same plan again, with an update-level field
  update({ sessionUpdate: 'plan', entries: [entry] }),
  update({ sessionUpdate: 'plan', entries: [entry], note: 'LOST-7' }),
  // 8: a read tool's rawOutput key beside its content
  update({
    sessionUpdate: 'tool_call_update',
    toolCallId: 'e3',
    status: 'completed',
    rawOutput: { content: 'r', note: 'LOST-8' },
  }),
  // 9: an empty text chunk's extra (Claude's adapter sends empty chunks); 10: a chunk of half a surrogate pair
  update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, messageId: 'LOST-9' }),
  update({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: '\ud83d' },
    messageId: 'LOST-10',
  }),
  update({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: '\ude00 ok' },
    messageId: 'KEPT',
  }),
];
const MARKERS = Array.from({ length: 10 }, (_, i) => `LOST-${i + 1}`);

describe('nothing a known update kind carries is lost', () => {
  const agent = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
  const play = async (format: string) =>
    runCli(['run', '--permissions', 'reject', '--output-format', format, 'go'], {
      agent: await agent,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ before: DROPPED }), GITHUB_ACTIONS: undefined },
    });

  it('stream-json carries every marker, in events the printed schema accepts', async () => {
    const [r, printed] = await Promise.all([play('stream-json'), execa(BIN, ['schema'])]);
    expect(r.exitCode).toBe(0);
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(printed.stdout));
    for (const e of r.events) {
      expect(validate(e), `${JSON.stringify(e).slice(0, 300)}\n${JSON.stringify(validate.errors)}`).toBe(
        true,
      );
      expect(Event.safeParse(e).success, JSON.stringify(e).slice(0, 300)).toBe(true);
    }
    for (const marker of MARKERS) expect.soft(r.stdout, marker).toMatch(new RegExp(`${marker}(?!\\d)`));
    // Where each is: the event of its own update, beside what the event names.
    const tools = r.events.filter((e) => e.type === 'tool');
    expect(tools).toEqual([
      expect.objectContaining({
        toolCallId: 'e1',
        output: { exitCode: 0, stdout: 'ok', stderr: '' },
        extra: { rawOutput: { extraKey: 'LOST-1' }, content: [text('LOST-2 content text')] },
      }),
      expect.objectContaining({
        toolCallId: 'e2',
        output: { diffs: [{ path: 'a.txt', oldText: 'a', newText: 'b' }] },
        extra: { rawOutput: { note: 'LOST-3' }, content: [text('LOST-4')] },
      }),
      expect.not.objectContaining({ extra: expect.anything() as unknown }),
      expect.objectContaining({ toolCallId: 'e3', title: 'x', extra: { title: { note: 'LOST-5' } } }),
      expect.objectContaining({ output: { content: 'r' }, extra: { rawOutput: { note: 'LOST-8' } } }),
    ]);
    const todos = { id: '1', content: 'step', status: 'pending', extra: { note: 'LOST-6' } };
    expect(r.events.filter((e) => e.type === 'todos')).toEqual([
      { type: 'todos', todos: [todos], source: 'plan' },
      { type: 'todos', todos: [todos], source: 'plan', extra: { note: 'LOST-7' } },
    ]);
    expect(r.events.filter((e) => e.type === 'message')).toEqual([
      { type: 'message', text: '', extra: { messageId: 'LOST-9' } },
      { type: 'message', text: '', extra: { messageId: 'LOST-10' } },
      { type: 'message', text: '😀 ok', extra: { messageId: 'KEPT' } },
    ]);
  });

  it('text mode shows none of them, and the json output still matches its schema', async () => {
    const [t, j] = await Promise.all([play('text'), play('json')]);
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toBe('😀 ok');
    for (const marker of MARKERS) expect(t.stdout + t.stderr).not.toContain(marker);
    const parsed = JsonOutput.safeParse(JSON.parse(j.stdout));
    expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
  });
});

// The same for the agent's requests: what their events do not name is their `extra` (the params' own fields
// as `params.<name>`, a todo's, question's or option's under their own names), each a marker here.
const request = (id: number, method: string, params: object): object => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const REQUESTS = [
  request(201, 'cursor/update_todos', {
    toolCallId: 'REQ-1',
    merge: 'REQ-2',
    todos: [{ id: 't1', content: 'step', status: 'TODO_STATUS_IN_PROGRESS', priority: 'REQ-3' }],
  }),
  request(202, 'cursor/ask_question', {
    toolCallId: 'q',
    title: 'Pick',
    _meta: 'REQ-4',
    questions: [
      {
        id: 'tone',
        prompt: 'Which tone?',
        allowMultiple: 'REQ-5',
        options: [{ id: 'formal', label: 'Formal', description: 'REQ-6' }],
      },
    ],
  }),
  request(203, 'cursor/create_plan', {
    toolCallId: 'p',
    name: 'Tidy',
    plan: '# steps',
    isProject: 'REQ-7',
    todos: [{ id: 'p1', content: 'tidy', status: 'pending', priority: 'REQ-8' }],
  }),
  request(204, 'session/request_permission', {
    sessionId: FIXTURE_SESSION,
    toolCall: { toolCallId: 'r1', title: 'Read a.txt', kind: 'read' },
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    _meta: 'REQ-9',
  }),
  request(205, 'session/request_permission', {
    sessionId: FIXTURE_SESSION,
    toolCall: { toolCallId: 'r2', title: 'Keep the formatting?', kind: 'other' },
    options: [
      { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
      { optionId: '__ask_question_skip__', name: 'Skip', kind: 'reject_once' },
    ],
    _meta: 'REQ-10',
  }),
];

describe('nothing a request of the agent carries is lost', () => {
  const agent = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
  const play = async (format: string) =>
    runCli(['run', '--permissions', 'reject', '--output-format', format, 'go'], {
      agent: await agent,
      cliConfig: { approvalMode: 'allowlist' },
      env: {
        RHO_SCRIPT: JSON.stringify({ before: REQUESTS, waitAnswers: REQUESTS.length }),
        GITHUB_ACTIONS: undefined,
      },
    });

  it('stream-json carries every marker in its event, and the printed schema accepts every line', async () => {
    const [r, printed] = await Promise.all([play('stream-json'), execa(BIN, ['schema'])]);
    expect(r.exitCode, r.stderr).toBe(0);
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(printed.stdout));
    for (const e of r.events) {
      expect(validate(e), `${JSON.stringify(e).slice(0, 300)}\n${JSON.stringify(validate.errors)}`).toBe(
        true,
      );
      expect(Event.safeParse(e).success, JSON.stringify(e).slice(0, 300)).toBe(true);
    }
    const of = (type: string) => r.events.filter((e) => e.type === type);
    expect(of('todos')).toEqual([
      {
        type: 'todos',
        todos: [
          {
            id: 't1',
            content: 'step',
            status: 'in_progress',
            extra: { status: 'TODO_STATUS_IN_PROGRESS', priority: 'REQ-3' },
          },
        ],
        source: 'cursor/update_todos',
        extra: { 'params.toolCallId': 'REQ-1', 'params.merge': 'REQ-2' },
      },
    ]);
    const [asked, skipped] = of('question');
    expect(asked).toMatchObject({
      source: 'cursor/ask_question',
      questions: [
        {
          id: 'tone',
          options: [{ id: 'formal', label: 'Formal', extra: { description: 'REQ-6' } }],
          extra: { allowMultiple: 'REQ-5' },
        },
      ],
      extra: { 'params._meta': 'REQ-4' },
    });
    expect(skipped).toMatchObject({
      source: 'session/request_permission',
      extra: { 'params._meta': 'REQ-10' },
    });
    expect(of('plan')).toEqual([
      expect.objectContaining({
        todos: [{ id: 'p1', content: 'tidy', status: 'pending', extra: { priority: 'REQ-8' } }],
        extra: { 'params.isProject': 'REQ-7' },
      }),
    ]);
    expect(of('permission')).toEqual([
      expect.objectContaining({ toolCallId: 'r1', extra: { 'params._meta': 'REQ-9' } }),
    ]);
  });

  it('the json output keeps them in its permissions, questions, plans and todos, and matches its schema', async () => {
    const j = await play('json');
    expect(j.exitCode, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout) as Record<string, unknown>;
    const parsed = JsonOutput.safeParse(out);
    expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
    for (let i = 3; i <= 10; i++) expect.soft(j.stdout, `REQ-${i}`).toMatch(new RegExp(`REQ-${i}(?!\\d)`));
  });
});
