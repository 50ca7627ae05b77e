// Agents that misbehave: the run ends with the right exit code, a clear one-line error and no process left.
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { alive, runCli, startCli, finish } from '../helpers/cli.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';

const SJ = ['--output-format', 'stream-json'];
const fixture = async (name: string): Promise<string> =>
  join(await makeAgentDir(join(FIXTURES, name)), 'cursor-agent');
const noStack = (stderr: string): void => expect(stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);

describe('an agent that fails', () => {
  it('exits 1 naming the exit code and the stderr tail when the agent crashes mid-request', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { agent: await fixture('exit-early.mjs') });
    expect(r.exitCode).toBe(1);
    const result = r.events.at(-1)!;
    expect(result).toMatchObject({
      type: 'result',
      stopReason: null,
      exitCode: 1,
      error: { code: 'agent_exited' },
    });
    expect(String((result.error as { message: string }).message)).toMatch(
      /exited with code 3 during initialize: fatal: simulated crash/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(2); // a config warning and the error: one line each
    noStack(r.stderr);
  });

  // Found by review: the answer was a warning only, and the prompt waited for ever (or for --timeout).
  it.each([
    ['error null', { error: null }],
    ['neither result nor error', {}],
  ])('exits 1 at once when the prompt is answered with %s (a malformed answer)', async (_what, answer) => {
    const r = await runCli(['run', ...SJ, 'go'], {
      agent: await fixture('scripted.mjs'),
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ answer }) },
      watchdogMs: 10_000,
    });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: null,
      error: {
        code: 'protocol',
        message: 'the agent answered session/prompt with neither a result nor an error',
      },
    });
    noStack(r.stderr);
  });

  it('exits 1 when the agent closes its output but stays alive, and still kills it', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { agent: await fixture('close-stdout.mjs') });
    expect(r.exitCode).toBe(1);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'agent_closed' } });
    expect(String((r.events.at(-1)!.error as { message: string }).message)).toMatch(
      /closed its output during session\/new/,
    );
  });

  it('keeps a last line the agent sent without a newline before it died', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { agent: await fixture('unterminated.mjs') });
    expect(r.exitCode).toBe(1);
    expect(r.events.some((e) => e.type === 'message' && e.text === 'last words')).toBe(true);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', error: { code: 'agent_exited' } });
  });

  it('times out a silent handshake step with exit 124', async () => {
    const r = await runCli(['run', ...SJ, '--step-timeout', '300ms', 'go'], {
      agent: await fixture('silent.mjs'),
    });
    expect(r.exitCode).toBe(124);
    expect(r.events.at(-1)).toMatchObject({
      error: {
        code: 'step_timeout',
        message: expect.stringMatching(/initialize got no answer within 300ms/),
      },
    });
  });

  it('drains a noisy stderr so the agent never stalls', async () => {
    const r = await runCli(['run', ...SJ, 'go'], { agent: await fixture('noisy-stderr.mjs') });
    expect(r.exitCode, r.stderr.slice(-500)).toBe(0);
  });

  it('carries a 20 MiB tool output line whole', async () => {
    const r = await runCli(['run', ...SJ, 'go'], {
      agent: await fixture('huge-output.mjs'),
      env: { HUGE_MIB: '20' },
    });
    expect(r.exitCode).toBe(0);
    const tool = r.events.filter((e) => e.type === 'tool').at(-1)!;
    expect((tool.output as { stdout: string }).stdout.length).toBe(20 * 1024 * 1024);
  });

  it('exits 127 with an install hint when the agent is not on PATH', async () => {
    const r = await runCli(['run', ...SJ, 'go'], {
      agent: null,
      env: { PATH: dirname(process.execPath), RHO_CURSOR_AGENT: '' },
    });
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toMatch(/cursor-agent was not found on PATH.*install/);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      exitCode: 127,
      error: { code: 'agent_not_found' },
    });
  });

  it('exits 127 when --agent is not executable', async () => {
    const r = await runCli(['run', 'go'], { agent: join(FIXTURES, '_acp.mjs') });
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toMatch(/is not executable/);
  });

  it('kills the whole process group with SIGKILL when the agent ignores SIGTERM', async () => {
    const started = startCli(['run', ...SJ, 'go'], {
      agent: await fixture('stay-alive.mjs'),
      env: testTiming(SHORT_GRACE),
    });
    const t0 = Date.now();
    const r = await finish(started, true);
    expect(r.exitCode).toBe(0);
    expect(Date.now() - t0).toBeLessThan(6000);
  });
});

describe('the replay agent keeps its promise of never exiting', () => {
  it('leaves no grandchild behind after the run', async () => {
    const r = await runCli(['run', ...SJ, 'go'], {
      recording: 'tools.jsonl',
      env: { RHO_REPLAY_GRANDCHILD: '1', RHO_REPLAY_IGNORE_SIGTERM: '1', ...testTiming(SHORT_GRACE) },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const gc = r.log.find((e) => e.event === 'grandchild')!;
    const start = r.log.find((e) => e.event === 'start')!;
    expect(gc.pid).toBeGreaterThan(0);
    expect(alive(gc.pid)).toBe(false);
    expect(alive(start.pid)).toBe(false);
    expect(r.log.some((e) => e.event === 'signal' && e.signal === 'SIGTERM')).toBe(true);
  });
});
