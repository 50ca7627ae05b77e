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
