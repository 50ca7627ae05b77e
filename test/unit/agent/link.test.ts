// The agent link's failure naming against a real child process: which of "closed its output" and "exited
// with code N" the run reports must not depend on how busy our own event loop was.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkAgent } from '../../../src/agent/link.js';
import { AgentProcess, MAX_UNREAD_BYTES } from '../../../src/agent/process.js';
import { RhoError } from '../../../src/errors.js';

const started: AgentProcess[] = [];
afterEach(async () => {
  for (const a of started.splice(0)) {
    a.child.kill('SIGKILL');
    await a.exited;
  }
});

function link(source: string) {
  const agent = new AgentProcess(process.execPath, ['-e', source], process.cwd(), process.env);
  started.push(agent);
  const conn = linkAgent(agent, {
    label: 'agent',
    phase: () => 'initialize',
    wire: undefined,
    onActivity: () => {},
    onText: () => {},
    onNotification: () => {},
    onInvalid: () => {},
    flush: () => true,
    whenWritable: (go) => go(),
  });
  return { agent, conn };
}

async function failure(p: Promise<unknown>): Promise<RhoError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(RhoError);
  return e as RhoError;
}

const busy = (ms: number): void => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

describe('linkAgent: the agent closing its output', () => {
  it('names the exit when the agent exited while our loop was busy past the grace', async () => {
    // Output closed first, the exit 50 ms later: the exit is there before our loop looks again, 400 ms on.
    const { agent, conn } = link("require('fs').closeSync(1); setTimeout(() => process.exit(3), 50);");
    const asked = conn.request('initialize', {});
    agent.child.stdout.on('end', () => busy(400));
    const e = await failure(asked);
    expect(e.code).toBe('agent_exited');
    expect(e.message).toMatch(/exited with code 3 during initialize/);
  });

  it('names the close when the agent closed its output and stays alive', async () => {
    const { conn } = link("require('fs').closeSync(1); setInterval(() => {}, 1000);");
    const e = await failure(conn.request('initialize', {}));
    expect(e.code).toBe('agent_closed');
    expect(e.message).toMatch(/closed its output during initialize/);
  });
});

describe('linkAgent: an agent that cannot be started', () => {
  it('a working directory that is not there is named as such, never as a missing agent (found by review)', async () => {
    // The agent exists; the spawn fails with ENOENT all the same, for its cwd.
    const gone = join(tmpdir(), `rho-no-such-dir-${process.pid}`, 'sub');
    const agent = new AgentProcess(process.execPath, ['-e', ''], gone, process.env);
    started.push(agent);
    const conn = linkAgent(agent, {
      label: 'agent',
      phase: () => 'initialize',
      wire: undefined,
      onActivity: () => {},
      onText: () => {},
      onNotification: () => {},
      onInvalid: () => {},
      flush: () => true,
      whenWritable: (go) => go(),
    });
    const e = await failure(conn.request('initialize', {}));
    expect(e.code).not.toBe('agent_not_found');
    expect(e.message).toContain(`its working directory ${gone} is not there`);
  });
});

describe('AgentProcess.write: what the agent has not read', () => {
  it('bounds only answers to its requests: our own requests are written however large', () => {
    // An agent that never reads its stdin.
    const agent = new AgentProcess(
      process.execPath,
      ['-e', 'process.stdin.pause(); setInterval(() => {}, 1000)'],
      process.cwd(),
      process.env,
    );
    started.push(agent);
    // Found by review: a prompt with large attachments counted against the bound, and failed the run.
    const big = 'x'.repeat(MAX_UNREAD_BYTES + 1024);
    expect(agent.write(big)).toBe(true);
    expect(agent.write('{"jsonrpc":"2.0","method":"session/cancel"}')).toBe(true);
    // An answer now would pile up behind what it has not read: refused.
    expect(agent.write('{"jsonrpc":"2.0","id":1,"result":{}}', true)).toBe(false);
  });
});
