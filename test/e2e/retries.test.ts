// --retries: a failure before any tool started is tried again with a fresh agent; nothing else is.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, runCli, startCli, tempDir } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { testTiming } from '../helpers/timing.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const answer = {
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 'fixture-session-0001',
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the answer' } },
  },
};

// A short backoff, for the tests that do not look at how long it is (those keep the product's 1 s).
const SHORT_BACKOFF = testTiming({ retryBaseMs: 50 });

async function retryRun(args: string[], script: object, env: Record<string, string> = {}) {
  const dir = tempDir();
  const counterFile = join(dir, 'count');
  const pidFile = join(dir, 'pid');
  const r = await finish(
    startCli(['run', ...args, 'go'], {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ counterFile, pidFile, before: [answer], ...script }), ...env },
    }),
    args.includes('stream-json'),
  );
  const tries = Number(readFileSync(counterFile, 'utf8'));
  return { r, tries, lastPid: Number(readFileSync(pidFile, 'utf8')) };
}

describe('--retries', () => {
  it.each([
    ['the agent dies mid-turn', 'exit', 'agent_exited'],
    ['session/prompt answers an error', 'error', 'rpc_error'],
    ['the reply is an API error as text', 'apiError', 'reply_error'],
  ])('%s: tried again with a fresh agent, an attempt event between', async (_what, failWith, code) => {
    const { r, tries, lastPid } = await retryRun([...SJ, '--retries', '2'], { failTimes: 1, failWith });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(tries).toBe(2);
    const attempts = r.events.filter((e) => e.type === 'attempt');
    expect(attempts).toEqual([
      { type: 'attempt', attempt: 1, error: expect.objectContaining({ code }) as unknown, retryInMs: 1000 },
    ]);
    // One session per try; the result is the last try's.
    expect(r.events.filter((e) => e.type === 'session')).toHaveLength(2);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    expect(await waitForGone(lastPid)).toBe(true);
  });

  it('gives up after --retries more tries, with the last failure', async () => {
    const { r, tries } = await retryRun(
      [...SJ, '--retries', '1'],
      { failTimes: 5, failWith: 'error' },
      SHORT_BACKOFF,
    );
    expect(r.exitCode).toBe(1);
    expect(tries).toBe(2);
    expect(r.events.filter((e) => e.type === 'attempt')).toHaveLength(1);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'rpc_error' } });
  });

  it('out of retries, an answer that reads as an API error fails the run: exit 1, reply_error', async () => {
    const { r, tries } = await retryRun(
      [...SJ, '--retries', '1'],
      { failTimes: 5, failWith: 'apiError' },
      SHORT_BACKOFF,
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect(tries).toBe(2);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      stopReason: 'end_turn',
      exitCode: 1,
      error: { code: 'reply_error', message: expect.stringContaining('Error: ConnectError') as unknown },
    });
    expect(r.stderr).toMatch(/rho-cursor: the answer reads as an API error/);
  });

  it.each([
    'Error: T: [internal] Failed to run step, exceeded max retries',
    'Connect error resource_exhausted: Error',
  ])('%j is an API error to --retries and to --strict', async (apiErrorText) => {
    const retried = await retryRun(
      [...SJ, '--retries', '1'],
      { failTimes: 1, failWith: 'apiError', apiErrorText },
      SHORT_BACKOFF,
    );
    expect(retried.r.exitCode, retried.r.stderr).toBe(0);
    expect(retried.tries).toBe(2);
    expect(retried.r.events.filter((e) => e.type === 'attempt')).toHaveLength(1);
    const strict = await retryRun([...SJ, '--strict'], { failTimes: 1, failWith: 'apiError', apiErrorText });
    expect(strict.r.exitCode).toBe(1);
    expect(strict.r.events.at(-1)).toMatchObject({
      error: { code: 'reply_error', message: expect.stringContaining(apiErrorText) as unknown },
    });
    // Without either, the run still says so.
    const plain = await retryRun(SJ, { failTimes: 1, failWith: 'apiError', apiErrorText });
    expect(plain.r.exitCode).toBe(0);
    expect(plain.r.events.filter((e) => e.type === 'warning').map((e) => e.code)).toContain(
      'reply-looks-like-error',
    );
  });

  it('is off by default', async () => {
    const { r, tries } = await retryRun(SJ, { failTimes: 1, failWith: 'exit' });
    expect(r.exitCode).toBe(1);
    expect(tries).toBe(1);
  });

  it('never retries once a tool started: it may have changed something', async () => {
    const { r, tries } = await retryRun([...SJ, '--retries', '3'], {
      failTimes: 1,
      failWith: 'toolThenExit',
    });
    expect(r.exitCode).toBe(1);
    expect(tries).toBe(1);
    expect(r.events.some((e) => e.type === 'attempt')).toBe(false);
  });

  // Found by review: an allowed request with no toolCallId started no tool, so the try was made again,
  // though what it allowed had run.
  it('never retries once a request was allowed, with or without a toolCallId', async () => {
    const allowed = await retryRun([...SJ, '--permissions', 'allow', '--retries', '3'], {
      failTimes: 1,
      failWith: 'askThenExit',
    });
    expect(allowed.r.exitCode).toBe(1);
    expect(allowed.tries).toBe(1);
    expect(allowed.r.events.some((e) => e.type === 'attempt')).toBe(false);
    // A rejected one ran nothing: tried again.
    const rejected = await retryRun(
      [...SJ, '--permissions', 'reject', '--retries', '3'],
      {
        failTimes: 1,
        failWith: 'askThenExit',
      },
      SHORT_BACKOFF,
    );
    expect(rejected.tries).toBe(2);
    expect(rejected.r.exitCode).toBe(0);
  });

  it("json: the text is the last try's alone; text mode says it retried", async () => {
    const json = await retryRun(
      ['--output-format', 'json', '--retries', '1'],
      { failTimes: 1, failWith: 'exit' },
      SHORT_BACKOFF,
    );
    expect(json.r.exitCode, json.r.stderr).toBe(0);
    expect((JSON.parse(json.r.stdout) as { text: string }).text).toBe('the answer');
    const text = await retryRun(['--retries', '1'], { failTimes: 1, failWith: 'error' });
    expect(text.r.exitCode).toBe(0);
    expect(text.r.stderr).toMatch(
      /attempt 1 failed: .*model backend unreachable.*trying again with a fresh agent in 1s/,
    );
    expect(text.r.stdout).toBe('the answer');
  });

  it('a bad --retries is a usage error', async () => {
    const r = await finish(
      startCli(['run', ...SJ, '--retries', 'x', 'go'], { agent: await agentPath }),
      true,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/'--retries' takes a whole number/);
  });
});

// Found by review: what a run hands on (-o, the summary, stopReason) after a turn that did not end was the
// turn before's, or a failed try's.
describe('what a run hands on after a turn that did not end', () => {
  it('an --output-schema follow-up cut by --timeout: no stopReason, -o left as it was (it was written empty)', async () => {
    const dir = tempDir();
    const marker = join(dir, 'prompted');
    const out = join(dir, 'answer.txt');
    writeFileSync(out, 'old\n');
    const schema = join(dir, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', required: ['a'], properties: { a: { type: 'number' } } }),
    );
    // The first prompt answers "the answer" (no match); the follow-up blocks the agent past the timeout.
    const block = { effect: { sh: `[ -f '${marker}' ] && sleep 5; touch '${marker}'` } };
    const r = await runCli(
      [
        'run',
        '--output-format',
        'json',
        '--timeout',
        '1500ms',
        '--schema-retries',
        '1',
        '--output-schema',
        schema,
        '-o',
        out,
        'go',
      ],
      {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [block, answer] }) },
      },
    );
    expect(r.exitCode, r.stderr).toBe(124);
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result.stopReason).toBeNull();
    expect(readFileSync(out, 'utf8')).toBe('old\n');
  });

  it('a try that fails before its prompt hands on no answer: the summary does not show the failed try text', async () => {
    const dir = tempDir();
    const marker = join(dir, 'tried');
    const summary = join(dir, 'summary.md');
    // The first agent streams a part of an answer and dies; the second exits before it answers initialize.
    const agent = join(dir, 'cursor-agent');
    writeFileSync(agent, `#!/bin/sh\n[ -f '${marker}' ] && exit 3\nexec '${await agentPath}' "$@"\n`);
    chmodSync(agent, 0o755);
    const partial = {
      ...answer,
      params: {
        ...answer.params,
        update: { ...answer.params.update, content: { type: 'text', text: 'TRY1-partial' } },
      },
    };
    const die = { effect: { sh: `touch '${marker}'; kill -9 $PPID` } };
    const r = await runCli(
      ['run', '--output-format', 'json', '--retries', '1', '--summary-file', summary, 'go'],
      {
        agent,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [partial, die] }), ...SHORT_BACKOFF },
      },
    );
    expect(r.exitCode, r.stderr).toBe(1);
    expect((JSON.parse(r.stdout) as { text: string }).text).toBe('');
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('agent');
    expect(md).not.toContain('TRY1-partial');
  });
});
