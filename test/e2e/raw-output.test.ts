// A tool's rawOutput of any JSON type is carried and shown, never an internal error (issue 19, item 1):
// Claude's ACP adapter sends a string for Read and Bash results.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { runCli } from '../helpers/cli.js';
import { chunk, FIXTURE_SESSION } from '../helpers/lines.js';

const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

const update = (u: object): object => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: FIXTURE_SESSION, update: u },
});
const tool = (id: string, kind: string, title: string, rawOutput: unknown): object[] => [
  update({ sessionUpdate: 'tool_call', toolCallId: id, kind, title, status: 'pending', rawInput: {} }),
  update({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', rawOutput }),
];

// What Claude's adapter sends, and the other JSON types an agent may send.
const SCRIPT = {
  before: [
    ...tool('read_1', 'read', 'Read README.md', '# Title\nline two\n'),
    ...tool('bash_1', 'execute', 'ls', 'a.ts\nb.ts\n'),
    ...tool('glob_1', 'search', 'Glob *.ts', ['a.ts', 'b.ts']),
    ...tool('n_1', 'other', 'count', 42),
    chunk('the answer'),
  ],
  answer: { result: { stopReason: 'end_turn' } },
};

async function run(format: string[]) {
  return runCli(['run', ...format, 'go'], {
    agent: await agentPath,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify(SCRIPT) },
  });
}

describe('rawOutput of any JSON type', () => {
  it('text mode shows every tool and keeps the answer', async () => {
    const r = await run([]);
    expect(r.stderr).not.toMatch(/internal/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('the answer');
    expect(r.stderr).toMatch(/Read README\.md.*2 lines/);
    expect(r.stderr).toMatch(/ls.*exit \? · a\.ts/);
    expect(r.stderr).toMatch(/Glob \*\.ts.*2 items/);
  });

  it('stream-json carries each in a documented shape', async () => {
    const r = await run(['--output-format', 'stream-json']);
    expect(r.exitCode).toBe(0);
    const done = r.events.filter((e) => e.type === 'tool' && e.status === 'completed');
    const byId = Object.fromEntries(done.map((e) => [e.toolCallId, e.output]));
    expect(byId).toEqual({
      read_1: { content: '# Title\nline two\n' },
      bash_1: { exitCode: null, stdout: 'a.ts\nb.ts\n', stderr: '' },
      glob_1: ['a.ts', 'b.ts'],
      n_1: 42,
    });
  });

  it('json keeps the final state of each', async () => {
    const r = await run(['--output-format', 'json']);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout) as { tools: Array<{ toolCallId: string; output: unknown }> };
    expect(out.tools.find((t) => t.toolCallId === 'read_1')?.output).toEqual({
      content: '# Title\nline two\n',
    });
  });
});
