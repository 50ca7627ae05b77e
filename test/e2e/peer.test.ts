// rho-cursor against an agent it did not write: the official SDK's agent side, playing every message of the
// ACP v1 schema. Every stream-json line must pass `rho-cursor schema`, and every message rho-cursor sends
// must pass the SDK's own schemas (the peer logs each one's problems).
import { execa } from 'execa';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import { Event, JsonOutput } from '../../src/events/schema.js';
import { BIN } from '../helpers/agent-path.js';
import type { CliRun } from '../helpers/cli.js';
import { peerAgent, runPeer, startPeer, type PeerLogEntry } from '../peer/run.js';
import { everything, simple, type Script } from '../peer/script.js';

const SJ = ['--output-format', 'stream-json'];
type Run = CliRun & { peer: PeerLogEntry[] };
let published: { event: z.ZodType; json: z.ZodType };

beforeAll(async () => {
  // The JSON Schemas `rho-cursor schema` prints, turned back into validators.
  const print = async (format: string): Promise<z.ZodType> =>
    z.fromJSONSchema(JSON.parse((await execa(BIN, ['schema', '--output-format', format])).stdout));
  published = { event: await print('stream-json'), json: await print('json') };
  await peerAgent();
});

// Every stream-json line passes both the zod schemas and the published JSON Schema; `result` is last.
function expectValidStream(r: Run): void {
  for (const e of r.events) {
    expect(Event.safeParse(e).success, JSON.stringify(e).slice(0, 300)).toBe(true);
    const p = published.event.safeParse(e);
    expect(p.success, `${JSON.stringify(e).slice(0, 300)}\n${p.error?.message.slice(0, 500)}`).toBe(true);
  }
  expect(r.events.filter((e) => e.type === 'result')).toHaveLength(1);
  expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: r.exitCode });
}

// Every message rho-cursor sent the peer passed the SDK's schemas.
function expectSdkValid(r: Run): void {
  const received = r.peer.filter((e) => e.dir === 'recv');
  expect(received.length).toBeGreaterThan(0);
  for (const e of received) expect(e.problems, JSON.stringify(e.msg)).toEqual([]);
}

const byType = (r: Run, type: string) => r.events.filter((e) => e.type === type);
const resultOf = (r: Run) => r.events.at(-1) as { error?: { code: string; message: string } };

describe('against the SDK-built peer, every v1 message', () => {
  let r: Run;
  beforeAll(async () => {
    r = await runPeer(everything(), ['run', ...SJ, '--permissions', 'reject', 'go']);
  });

  it('ends the turn normally, every line valid, every message it sent valid for the SDK', () => {
    expect(r.exitCode, r.stderr).toBe(0);
    expectValidStream(r);
    expectSdkValid(r);
  });

  it('names every non-text content block and keeps an embedded resource’s text', () => {
    const contents = byType(r, 'message').flatMap((e) => (e.content ? [e.content] : []));
    expect(contents.map((c) => (c as { type: string }).type)).toEqual([
      'image',
      'audio',
      'resource_link',
      'resource',
      'resource',
    ]);
    expect(
      byType(r, 'message')
        .map((e) => e.text)
        .join(''),
    ).toBe('Here is the answer. EMBEDDED TEXTDone.');
  });

  it('turns plan into todos, usage_update into result.usage, and warning/error notices into warnings', () => {
    expect(byType(r, 'todos')).toEqual([
      expect.objectContaining({
        source: 'plan',
        todos: expect.arrayContaining([
          expect.objectContaining({ id: '2', content: 'Write the fix', status: 'in_progress' }),
        ]),
      }),
    ]);
    expect(r.events.at(-1)!.usage).toEqual({
      used: 5400,
      size: 200000,
      cost: { amount: 0.12, currency: 'USD' },
    });
    expect(byType(r, 'warning').map((w) => w.code)).toEqual(
      expect.arrayContaining(['agent-warning', 'agent-error']),
    );
    expect(r.stderr).not.toMatch(/Indexed the workspace/);
  });

  it('carries every tool kind, and every status from pending to rejected and cancelled', () => {
    const tools = byType(r, 'tool');
    expect(new Set(tools.map((t) => t.kind))).toEqual(
      new Set([
        'read',
        'edit',
        'delete',
        'move',
        'search',
        'execute',
        'think',
        'fetch',
        'switch_mode',
        'other',
      ]),
    );
    expect(new Set(tools.map((t) => t.status))).toEqual(
      new Set(['pending', 'in_progress', 'completed', 'failed', 'rejected', 'cancelled']),
    );
  });

  it('ends a rejected tool the agent never updates rejected, and makes a tool of an unannounced one', () => {
    const last = (id: string) =>
      byType(r, 'tool')
        .filter((t) => t.toolCallId === id)
        .at(-1);
    expect(last('asked-shell')).toMatchObject({ kind: 'execute', status: 'rejected' });
    expect(last('unannounced')).toMatchObject({
      kind: 'fetch',
      title: 'Fetch example.com',
      status: 'rejected',
    });
    expect(last('always-only')).toMatchObject({ status: 'cancelled' });
    expect(byType(r, 'permission').find((p) => p.toolCallId === 'asked-shell')).toMatchObject({
      kind: 'execute',
      title: 'rm -rf build',
    });
  });

  it('answers permissions with a once option, never an always one, and cancelled where none is offered', () => {
    const answers = r.peer.filter((e) => e.event === 'answered' && e.method === 'session/request_permission');
    expect(answers.map((a) => [a.toolCallId, a.result])).toEqual([
      ['asked-shell', { outcome: { outcome: 'selected', optionId: 'reject-once' } }],
      ['unannounced', { outcome: { outcome: 'selected', optionId: 'reject-once' } }],
      ['always-only', { outcome: { outcome: 'cancelled' } }],
    ]);
  });

  it('answers every request the client did not advertise with an error at once, never a hang', () => {
    const others = r.peer.filter((e) => e.event === 'answered' && e.method !== 'session/request_permission');
    expect(others.map((e) => e.method)).toEqual([
      'fs/read_text_file',
      'fs/write_text_file',
      'terminal/create',
      'terminal/output',
      'elicitation/create',
      'peer/no_params',
    ]);
    for (const e of others) expect(e).toMatchObject({ error: { code: -32601 } });
  });

  it('keeps a request or notification without params as an extension with params null', () => {
    const ext = byType(r, 'extension').filter((e) => String(e.method).startsWith('peer/'));
    expect(ext).toEqual([
      { type: 'extension', method: 'peer/no_params', params: null },
      { type: 'extension', method: 'peer/ping', params: null },
    ]);
  });
});

describe('against the SDK-built peer, the other outputs', () => {
  it('text mode lists non-text content by kind and name, and shows warning and error notices', async () => {
    const r = await runPeer(everything(), ['run', '--permissions', 'allow', 'go']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Here is the answer. EMBEDDED TEXTDone.'); // execa strips the final newline
    expect(r.stderr).toMatch(/^image: image\/png$/m);
    expect(r.stderr).toMatch(/^resource_link: notes\.md$/m);
    expect(r.stderr).toMatch(/^resource: file:\/\/\/w\/embedded\.txt$/m);
    expect(r.stderr).toMatch(/warning: the agent reports a warning: Rate limited \(slowing down\)/);
    expect(r.stderr).toMatch(/the agent reports an error: Backend hiccup/);
    expect(r.stderr).toMatch(/Write the fix/);
    // Under allow, the once option; the persistent ones are never picked.
    const answers = r.peer.filter((e) => e.event === 'answered' && e.method === 'session/request_permission');
    expect(answers.map((a) => a.result)).toEqual([
      { outcome: { outcome: 'selected', optionId: 'allow-once' } },
      { outcome: { outcome: 'selected', optionId: 'allow-once' } },
      { outcome: { outcome: 'cancelled' } },
    ]);
    expectSdkValid(r);
  });

  it('json output: the whole text with the embedded resource, final tool states and usage', async () => {
    const r = await runPeer(everything(), [
      'run',
      '--output-format',
      'json',
      '--permissions',
      'reject',
      'go',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(JsonOutput.safeParse(out).success).toBe(true);
    expect(published.json.safeParse(out).success).toBe(true);
    expect(out.text).toBe('Here is the answer. EMBEDDED TEXTDone.');
    expect(out.usage).toMatchObject({ used: 5400 });
    const tools = out.tools as Array<{ toolCallId: string; status: string }>;
    expect(tools.find((t) => t.toolCallId === 'asked-shell')?.status).toBe('rejected');
    expect(tools.find((t) => t.toolCallId === 'unannounced')?.status).toBe('rejected');
  });
});

describe('against the SDK-built peer, answers a v1 client must not go on with', () => {
  it.each([
    { said: '2', result: { protocolVersion: 2, agentCapabilities: {} }, code: 'protocol_version' },
    { said: '"1"', result: { protocolVersion: '1', agentCapabilities: {} }, code: 'protocol_version' },
    { said: 'null', result: null, code: 'protocol' },
  ])('initialize answering $said: exit 1 naming it', async ({ said, result, code }) => {
    const r = await runPeer(simple({ stopReason: 'end_turn' }, { initialize: { result } }), [
      'run',
      ...SJ,
      'go',
    ]);
    expect(r.exitCode).toBe(1);
    expect(resultOf(r).error).toMatchObject({ code, message: expect.stringContaining(said) });
    expect(r.peer.some((e) => e.msg?.method === 'session/new')).toBe(false);
    expectValidStream(r);
  });

  it('a v2-only agent refusing v1 with -32022: said so', async () => {
    const script = simple(
      { stopReason: 'end_turn' },
      {
        initialize: {
          error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [2] } },
        },
      },
    );
    const r = await runPeer(script, ['run', ...SJ, 'go']);
    expect(r.exitCode).toBe(1);
    expect(resultOf(r).error?.code).toBe('protocol_version');
    expect(resultOf(r).error?.message).toMatch(/refused ACP version 1.*-32022.*ACP v2/);
  });

  it('a JSON-RPC error shows its data, where the real reason is', async () => {
    const error = { code: -32603, message: 'Internal error', data: 'model backend unreachable' };
    const r = await runPeer(simple({ error }), ['run', ...SJ, 'go']);
    expect(r.exitCode).toBe(1);
    expect(resultOf(r).error).toEqual({
      code: 'rpc_error',
      message: 'session/prompt failed: Internal error: model backend unreachable (code -32603)',
    });
    expect(r.stderr).toMatch(/model backend unreachable/);
  });

  it('authRequired from another agent says what it offers, without Cursor’s hint', async () => {
    const script = simple(
      { stopReason: 'end_turn' },
      {
        authMethods: [{ id: 'peer-login', name: 'Peer login', description: 'run `peer login`' }],
        newSessionError: { code: -32000, message: 'Authentication required' },
      },
    );
    const r = await runPeer(script, ['run', ...SJ, 'go']);
    expect(r.exitCode).toBe(3);
    expect(resultOf(r).error?.code).toBe('auth_required');
    expect(resultOf(r).error?.message).toMatch(/it offers: Peer login \(peer-login\): run `peer login`/);
    expect(resultOf(r).error?.message).not.toMatch(/CURSOR_API_KEY/);
  });

  it.each([
    { stopReason: 'finished', why: /stopReason "finished", which ACP v1 does not define/ },
    { stopReason: 'cancelled', why: /ended the turn as cancelled though rho-cursor did not cancel it/ },
  ])('stopReason $stopReason unasked: exit 1, error protocol, never 130', async ({ stopReason, why }) => {
    const r = await runPeer(simple({ stopReason }), ['run', ...SJ, 'go']);
    expect(r.exitCode).toBe(1);
    expect(resultOf(r).error).toMatchObject({ code: 'protocol', message: expect.stringMatching(why) });
    expect(r.events.at(-1)!.stopReason).toBe(stopReason);
  });

  it('plan mode and Ctrl-C: session/set_mode and session/cancel pass the SDK, exit 130', async () => {
    const script: Script = {
      turn: [
        {
          update: {
            sessionUpdate: 'tool_call',
            toolCallId: 'sh',
            title: 'ls',
            kind: 'execute',
            status: 'pending',
          },
        },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'waiting' } } },
        { awaitCancel: true },
      ],
      stop: { stopReason: 'cancelled' },
    };
    const { started, done } = await startPeer(script, [
      'run',
      ...SJ,
      '--plan',
      // A fence would mark the shell call rejected at once (its rule stops it in Cursor): without one, the
      // call still pending at Ctrl-C must end cancelled.
      '--fence',
      'none',
      '--permissions',
      'reject',
      'go',
    ]);
    started.child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('"waiting"')) started.child.kill('SIGINT');
    });
    const r = await done();
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.peer.map((e) => e.msg?.method ?? e.event).filter(Boolean)).toEqual([
      'initialize',
      'session/new',
      'session/set_mode',
      'session/prompt',
      'session/cancel',
      'session/cancel',
    ]);
    expect(r.events.at(-1)).toMatchObject({ stopReason: 'cancelled', error: { code: 'cancelled' } });
    expect(byType(r, 'tool').at(-1)).toMatchObject({ toolCallId: 'sh', status: 'cancelled' });
    expectValidStream(r);
    expectSdkValid(r);
  });

  it('an update for another session warns and is never this run’s answer', async () => {
    const script: Script = {
      turn: [
        {
          foreignUpdate: {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: 'NOT OURS' },
          },
        },
        { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ours' } } },
      ],
      stop: { stopReason: 'end_turn' },
    };
    const text = await runPeer(script, ['run', 'go']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toBe('ours');
    expect(text.stderr).toMatch(/warning: the agent sent updates for another session \(someone-else/);
    const stream = await runPeer(script, ['run', ...SJ, 'go']);
    expect(byType(stream, 'message')).toEqual([{ type: 'message', text: 'ours' }]);
    expect(byType(stream, 'warning').map((w) => w.code)).toContain('foreign-session-update');
    expectValidStream(stream);
  });
});
