// What a new user tripped on (issue 23): output paths checked before anything starts, usage errors under
// GitHub Actions written where the job reads them, and the habits other agents' CLIs taught.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { FIXTURES, makeAgentDir, REPO_ROOT } from '../helpers/agent-path.js';
import { runCli, tempDir, waitForStdout, type CliRun } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { receivedMethods } from '../helpers/replay-log.js';

const SJ = ['--output-format', 'stream-json'];
const oneLine = (stderr: string): void => expect(stderr.trim().split('\n'), stderr).toHaveLength(1);

describe.concurrent('every output path is checked before anything is spawned', () => {
  const dir = tempDir('rho-paths-');
  const missing = join(dir, 'no-such-dir', 'file.txt');
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'x');
  it.each([
    [
      ['-o', missing],
      {},
      `option '--output-last-message' cannot be written: no such directory: ${join(dir, 'no-such-dir')}`,
    ],
    [['-o', dir], {}, `option '--output-last-message' names a directory, not a file: ${dir}`],
    [['--summary-file', dir], {}, `option '--summary-file' names a directory, not a file: ${dir}`],
    [['--wire-log', missing], {}, `option '--wire-log' cannot be written: no such directory`],
    [
      ['--wire-log', join(aFile, 'log')],
      {},
      `option '--wire-log' cannot be written: not a directory: ${aFile}`,
    ],
    [
      [],
      { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: missing },
      '$GITHUB_OUTPUT cannot be written: no such directory',
    ],
    [
      [],
      { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: dir },
      `$GITHUB_STEP_SUMMARY names a directory, not a file: ${dir}`,
    ],
  ])('%j %j: exit 2 naming the path, nothing spawned', async (args, env, message) => {
    const r = await runCli(['run', ...args, 'go'], { recording: 'tools.jsonl', env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`rho-cursor: ${message}`);
    expect(r.stderr).not.toMatch(/\.tmp|EISDIR|ENOENT/);
    expect(r.log).toEqual([]);
  });

  it('stream-json still gets its result; a device such as /dev/null is fine', async () => {
    const bad = await runCli(['run', ...SJ, '-o', missing, 'go'], { recording: 'tools.jsonl' });
    expect(bad.events).toEqual([
      expect.objectContaining({
        type: 'result',
        exitCode: 2,
        error: expect.objectContaining({ code: 'usage' }) as unknown,
      }),
    ]);
    const ok = await runCli(['run', '-o', '/dev/null', '--wire-log', '/dev/null', 'go'], {
      recording: 'tools.jsonl',
    });
    expect(ok.exitCode, ok.stderr).toBe(0);
  });
});

describe.concurrent('under GitHub Actions every failure writes exit-code, usage errors too', () => {
  it.each([
    [['--timeout', 'abc', 'go'], /--timeout/],
    [['--nope', 'go'], /unknown option '--nope'/],
    [['  '], /the prompt is empty/],
    [['--attach', 'missing.png', 'go'], /missing\.png/],
  ])('%j', async (args, pattern) => {
    const dir = tempDir('rho-gh-');
    const [output, summary] = [join(dir, 'output'), join(dir, 'summary.md')];
    writeFileSync(output, 'earlier=1\n');
    const r = await runCli(['run', ...args], {
      recording: 'tools.jsonl',
      env: { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(readFileSync(output, 'utf8')).toBe('earlier=1\nexit-code=2\nstop-reason=\nsession-id=\n');
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^### rho-cursor: failed\n/);
    expect(md).toMatch(/\| none \| 2 \| [\d.]+ s \| unknown \| none \|/);
    expect(md).toMatch(/\*\*Error\*\* \(`usage`\): /);
  });

  it('--no-summary and an unknown command write exit-code only', async () => {
    const dir = tempDir('rho-gh-');
    const [output, summary] = [join(dir, 'output'), join(dir, 'summary.md')];
    const env = { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary };
    const a = await runCli(['run', '--no-summary', '--timeout', 'abc', 'go'], { env });
    const b = await runCli(['frobnicate'], { env, agent: null });
    expect([a.exitCode, b.exitCode]).toEqual([2, 2]);
    expect(readFileSync(output, 'utf8').match(/exit-code=2/g)).toHaveLength(2);
    expect(existsSync(summary)).toBe(false);
  });
});

describe.concurrent("the peers' habits", () => {
  it('`rho-cursor "..."` says how to run it', async () => {
    const r = await runCli(['summarise the README', '--plan'], { agent: null });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "rho-cursor: unknown command 'summarise the README'; did you mean: rho-cursor run 'summarise the README' --plan (see --help)",
    );
    oneLine(r.stderr);
    const typo = await runCli(['rnu', 'go'], { agent: null });
    expect(typo.stderr).toMatch(/unknown command 'rnu' \(Did you mean run\?\) \(see --help\)/);
    oneLine(typo.stderr);
  });

  it('`rho-cursor -p "..."` runs the prompt as `run` does', async () => {
    const [p, run] = await Promise.all([
      runCli(['-p', 'go'], { recording: 'tools.jsonl' }),
      runCli(['run', 'go'], { recording: 'tools.jsonl' }),
    ]);
    expect(p.exitCode, p.stderr).toBe(0);
    expect(p.stdout).toBe(run.stdout);
    expect(p.stdout.length).toBeGreaterThan(0);
    expect(receivedMethods(p.log)).toContain('session/prompt');
  });

  it('-C <dir> is --cwd', async () => {
    const dir = tempDir('rho-c-');
    mkdirSync(join(dir, 'ws'));
    const r = await runCli(['run', ...SJ, '-C', join(dir, 'ws'), 'go'], { recording: 'tools.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({ cwd: join(dir, 'ws') });
    const bad = await runCli(['run', '-C', join(dir, 'nope'), 'go'], { recording: 'tools.jsonl' });
    expect(bad.stderr).toMatch(/option '--cwd' must name a directory/);
    const doctor = await runCli(['doctor', '-C', join(dir, 'nope')], { agent: null });
    // A usage error found by doctor or sessions points at --help too.
    expect(doctor.stderr).toMatch(/option '--cwd' must name a directory \(got '.*nope'\) \(see --help\)/);
  });
});

// The prompt text the agent received.
const promptOf = (r: CliRun): unknown =>
  r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/prompt')?.msg.params.prompt[0].text;

describe.concurrent('standard input', () => {
  it('`-f /dev/stdin` reads it, and does not warn that it was ignored', async () => {
    const r = await runCli(['run', ...SJ, 'first', '-f', '/dev/stdin'], {
      recording: 'tools.jsonl',
      input: 'X',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(promptOf(r)).toBe('first\n\nX');
    expect(r.events.filter((e) => e.type === 'warning').map((e) => e.code)).not.toContain('stdin-ignored');
    expect(r.stderr).not.toMatch(/standard input is not read/);
  });

  it('a second `-` is a usage error', async () => {
    const r = await runCli(['run', 'a', '-', 'b', '-'], { recording: 'tools.jsonl', input: 'X' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      'rho-cursor: `-` (standard input) can stand only once among the prompt words (see --help)',
    );
    expect(r.log).toEqual([]);
  });
});

describe.concurrent('run --help', () => {
  it('lists exit code 131, --max-tool-calls under exit 4, --no-warning and the warning codes', async () => {
    const r = await runCli(['run', '--help'], { agent: null });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ {2}131 +ended by SIGQUIT/m);
    expect(r.stdout).toMatch(/^ {2}4 +max_tokens, max_turn_requests, or --max-tool-calls reached/m);
    expect(r.stdout).toMatch(/--no-warning <code>/);
    expect(r.stdout).toMatch(/^ {2}reads-edits-never-ask +/m);
    expect(r.stdout).toMatch(/-C, --cwd <dir>/);
  });
});

describe.concurrent('tools the agent never finished', () => {
  const tool = (id: string, title: string, kind: string, status: string) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'fixture-session-0001',
      update: { sessionUpdate: 'tool_call', toolCallId: id, title, kind, status },
    },
  });
  const chunk = {
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'fixture-session-0001',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } },
    },
  };
  const script = {
    before: [
      tool('f1', 'fetch https://example.com', 'fetch', 'pending'),
      tool('e1', 'npm test', 'execute', 'in_progress'),
      tool('r1', 'read a.txt', 'read', 'completed'),
      chunk,
    ],
  };
  const agent = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
  const go = async (args: string[]) =>
    runCli(['run', ...args, 'go'], {
      agent: await agent,
      cliConfig: { version: 1, approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify(script) },
    });

  it('end in a final state in json, text and the summary, saying the agent never finished them', async () => {
    const dir = tempDir('rho-unfinished-');
    const [json, text] = await Promise.all([
      go(['--output-format', 'json']),
      go(['--summary-file', join(dir, 's.md')]),
    ]);
    expect(json.exitCode, json.stderr).toBe(0);
    const tools = (JSON.parse(json.stdout) as { tools: Array<Record<string, unknown>> }).tools;
    expect(tools.map((t) => [t.toolCallId, t.status, t.reportedStatus])).toEqual([
      ['f1', 'cancelled', 'pending'],
      ['e1', 'cancelled', 'in_progress'],
      ['r1', 'completed', undefined],
    ]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stderr).toMatch(
      /fetch fetch https:\/\/example\.com cancelled · never finished: the agent left it pending/,
    );
    expect(text.stderr).toMatch(/execute npm test cancelled · never finished: the agent left it in progress/);
    const md = readFileSync(join(dir, 's.md'), 'utf8');
    expect(md).toContain('| cancelled (never finished: left pending) |');
    expect(md).toContain('| cancelled (never finished: left in progress) |');
    expect(md).not.toMatch(/\| (pending|in_progress) \|/);
  });
});

describe('npm run demo', () => {
  it('removes its /tmp/rho-demo-* config dir when it is done', async () => {
    const tmp = tempDir('rho-demo-tmp-');
    const r = await execa('node', [join(REPO_ROOT, 'scripts', 'demo.mjs')], {
      reject: false,
      env: { TMPDIR: tmp, RHO_REPLAY_SPEED: '0' },
      timeout: 30_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/demo: rho-cursor exited with 0/);
    expect(readdirSync(tmp)).toEqual([]);
  });

  // Found by review: only SIGINT was handled, so a SIGTERM or SIGHUP left the dir behind (and the run).
  // The cancel recording waits for a cancel: the signal reaches the demo mid-turn, the run its alone.
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s: removes its config dir, ends the run, exits %i', async (signal, code) => {
    const tmp = tempDir('rho-demo-sig-');
    // Bounded waits, so the finally below always runs (and a failure leaves no process behind).
    const within = <T>(p: Promise<T>, what: string): Promise<T> =>
      Promise.race([
        p,
        new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: not within 8s`)), 8000)),
      ]);
    // The demo's processes (node, rho-cursor, the replay agent): those with this TMPDIR in their environment.
    const demoPids = (): number[] =>
      readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((d) => {
          try {
            return readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(`TMPDIR=${tmp}`);
          } catch {
            return false;
          }
        })
        .map(Number);
    const demo = execa('node', [join(REPO_ROOT, 'scripts', 'demo.mjs'), 'cancel'], {
      reject: false,
      env: { TMPDIR: tmp, RHO_REPLAY_SPEED: '0' },
      timeout: 30_000,
    });
    try {
      // A whole line of the answer (text is written a line at a time).
      await within(waitForStdout(demo, '## The Pharos of Alexandria'), 'the answer');
      const pids = demoPids();
      expect(pids.length).toBeGreaterThanOrEqual(2);
      demo.kill(signal);
      // A run left behind would hold the demo's stdout open, and this wait with it.
      const r = await within(demo, 'the end of the demo and its run');
      expect(r.exitCode, r.stderr).toBe(code);
      expect(readdirSync(tmp)).toEqual([]);
      for (const pid of pids) expect(await waitForGone(pid), `pid ${pid}`).toBe(true);
    } finally {
      for (const pid of demoPids()) process.kill(pid, 'SIGKILL');
    }
  });

  it('shows the command line it runs, which runs the same when typed in the project folder', async () => {
    const tmp = tempDir('rho-demo-typed-');
    const env = { TMPDIR: tmp, RHO_REPLAY_SPEED: '0' };
    const demo = await execa(
      'node',
      [join(REPO_ROOT, 'scripts', 'demo.mjs'), 'permission-reject.jsonl', '--output-format', 'stream-json'],
      { reject: false, cwd: REPO_ROOT, env, timeout: 30_000 },
    );
    expect(demo.exitCode, demo.stderr).toBe(0);
    const typed = /^demo: (RHO_REPLAY=.*)$/m.exec(demo.stderr)?.[1];
    // The recording's own flag once, then the one added after its name; the prompt in quotes.
    expect(typed).toMatch(
      /^RHO_REPLAY=recordings\/permission-reject\.jsonl CURSOR_CONFIG_DIR=\$\(mktemp -d\) bin\/rho-cursor run --agent tools\/cursor-agent --permissions reject --output-format stream-json 'Read hello\.txt, /,
    );
    const again = await execa('sh', ['-c', typed!], { reject: false, cwd: REPO_ROOT, env, timeout: 30_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    const result = (out: string): unknown => {
      const r = JSON.parse(out.trimEnd().split('\n').pop()!) as Record<string, unknown>;
      return { type: r.type, stopReason: r.stopReason, exitCode: r.exitCode };
    };
    expect(result(again.stdout)).toEqual(result(demo.stdout));
    expect(result(again.stdout)).toEqual({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
  });
});
