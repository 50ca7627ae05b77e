// The run's own lifecycle when the environment misbehaves (issue "Reliability"): signals at any moment,
// write failures, a leaked key, a slow stdin, a forged wire log, unhelpful errors, an id-null request and a
// process that left the agent's group. One data-driven fixture (scripted.mjs) plays each hostile agent.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, parseNdjson, startCli, tempDir, waitForStdout } from '../helpers/cli.js';
import { isRunning, waitForGone } from '../helpers/processes.js';
import { hasPty, onPty, type PtyStep } from '../helpers/pty.js';
import { chunk, FIXTURE_SESSION } from '../helpers/lines.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';

const SJ = ['--output-format', 'stream-json'];
const SESSION = FIXTURE_SESSION;
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));

const permission = (id: number | null): object => ({
  jsonrpc: '2.0',
  id,
  method: 'session/request_permission',
  params: {
    sessionId: SESSION,
    toolCall: { toolCallId: 'tool_late', title: 'ls', kind: 'execute', status: 'pending' },
    options: [
      { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
  },
});

interface Script {
  [key: string]: unknown;
}

// Starts a run whose agent follows the script; files the script names go in a fresh directory.
async function start(args: string[], script: Script, env: Record<string, string> = {}) {
  return startCli(args, {
    agent: await agentPath,
    cliConfig: { approvalMode: 'allowlist' },
    env: { RHO_SCRIPT: JSON.stringify(script), ...env },
  });
}

const readPid = (file: string): number => Number(readFileSync(file, 'utf8'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const shows = (path: string, text: string): boolean =>
  existsSync(path) && readFileSync(path, 'utf8').includes(text);

// A turn that never ends, an agent that ignores SIGTERM, and a grandchild that left its group with setsid.
function hostile(dir: string): Script {
  return {
    before: [chunk('working')],
    answer: false,
    ignoreTerm: true,
    pidFile: join(dir, 'agent.pid'),
    escapee: join(dir, 'escapee.pid'),
  };
}

async function expectNoneLeft(dir: string): Promise<void> {
  for (const f of ['agent.pid', 'escapee.pid']) {
    const pid = readPid(join(dir, f));
    expect(await waitForGone(pid, 3000), `${f} ${pid} still running`).toBe(true);
  }
}

describe('signals end the agent and still write the result', () => {
  it.each([
    ['SIGHUP', 129],
    ['SIGQUIT', 131],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i, result last, no process left (setsid escapee included)', async (signal, code) => {
    const dir = tempDir();
    // The agent sits out both graces: only that they end matters here, not how long they are.
    const s = await start(['run', ...SJ, 'go'], hostile(dir), testTiming(SHORT_GRACE));
    await waitForStdout(s.child, 'working');
    s.child.kill(signal);
    const r = await finish(s, true);
    expect(r.exitCode).toBe(code);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: code });
    await expectNoneLeft(dir);
  });

  // Found by review: SIGPWR, SIGVTALRM, SIGPROF, SIGIO, SIGSYS, SIGSTKFLT (and SIGABRT) end a process by
  // default, and none was answered: exit 128+n, no result, the agent left running.
  it.each([
    ['SIGPWR', 158],
    ['SIGVTALRM', 154],
    ['SIGPROF', 155],
    ['SIGIO', 157],
    ['SIGSYS', 159],
    ['SIGSTKFLT', 144],
    ['SIGABRT', 134],
  ] as const)('%s: ended at once, exit %i, result last, no process left', async (signal, code) => {
    const dir = tempDir();
    const s = await start(['run', ...SJ, 'go'], hostile(dir), testTiming(SHORT_GRACE));
    await waitForStdout(s.child, 'working');
    process.kill(s.child.pid!, signal);
    const r = await finish(s, true);
    expect(r.exitCode, r.stderr).toBe(code);
    expect(r.events.at(-1)).toMatchObject({
      type: 'result',
      exitCode: code,
      error: { code: 'cancelled', message: `ended by ${signal}` },
    });
    await expectNoneLeft(dir);
  });

  it("a run under V8's CPU profiler (node --cpu-prof) is not ended by the profiler's SIGPROF", async () => {
    // The profiler's samples are SIGPROF sent to the process itself; Node takes --cpu-prof on its command
    // line only (not in NODE_OPTIONS), so the CLI is started through a script that passes it.
    const dir = tempDir();
    const prof = join(dir, 'prof');
    const bin = join(dir, 'rho-cursor-profiled');
    writeFileSync(
      bin,
      `#!/bin/sh\nexec "${process.execPath}" --cpu-prof --cpu-prof-dir="${prof}" "${BIN}" "$@"\n`,
    );
    chmodSync(bin, 0o755);
    const r = await finish(
      startCli(['run', ...SJ, 'go'], {
        agent: await agentPath,
        bin,
        cliConfig: { approvalMode: 'allowlist' },
        env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('done')] }) },
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
    expect(readdirSync(prof).some((f) => f.endsWith('.cpuprofile'))).toBe(true);
  });

  it("SIGUSR1 (an agent's `kill -USR1 $PPID`) opens no debugger into rho-cursor and ends nothing", async () => {
    const dir = tempDir();
    const s = await start(['run', ...SJ, 'go'], {
      before: [chunk('working')],
      answer: false,
      pidFile: join(dir, 'agent.pid'),
    });
    let stderr = '';
    s.child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitForStdout(s.child, 'working');
    s.child.kill('SIGUSR1');
    await sleep(500);
    // Node's inspector says so on stderr when it starts (or fails to, the port taken).
    expect(stderr).not.toMatch(/Debugger listening|inspector/i);
    expect(isRunning(s.child.pid!)).toBe(true);
    s.child.kill('SIGINT');
    const r = await finish(s, true);
    expect(r.exitCode).toBe(130);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 130 });
    expect(await waitForGone(readPid(join(dir, 'agent.pid')), 3000)).toBe(true);
  });

  it.each(['SIGINT', 'SIGPWR'] as const)(
    '%s during teardown does not orphan an agent that ignores SIGTERM',
    async (signal) => {
      const dir = tempDir();
      const termLog = join(dir, 'term.log');
      const s = await start(['run', ...SJ, 'go'], { ...hostile(dir), answer: undefined, termLog });
      // The turn ends, the teardown sends SIGTERM (the agent ignores it, and says so): a signal now lands in
      // the kill grace, and ends everything at once.
      let over = false;
      void s.child.then(() => (over = true));
      while (!over && !shows(termLog, 'SIGTERM')) await sleep(20);
      process.kill(s.child.pid!, signal);
      const r = await finish(s, true);
      expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
      expect(r.exitCode).toBe(0);
      await expectNoneLeft(dir);
    },
  );

  it('a process that left the group with setsid is ended after a normal turn too', async () => {
    const dir = tempDir();
    const s = await start(
      ['run', ...SJ, 'go'],
      { ...hostile(dir), answer: undefined },
      testTiming(SHORT_GRACE),
    );
    const r = await finish(s, true);
    expect(r.exitCode, r.stderr).toBe(0);
    await expectNoneLeft(dir);
  });
});

describe('after the answer', () => {
  it.each(['separately', 'in the same read'])(
    'what the agent sends after it answered (%s) is not rendered: result is last',
    async (how) => {
      const dir = tempDir();
      const recvLog = join(dir, 'recv');
      for (const format of ['stream-json', 'json']) {
        const s = await start(['run', '--output-format', format, 'go'], {
          before: [chunk('early')],
          after: [chunk('LATE'), permission(7)],
          together: how === 'in the same read',
          recvLog,
        });
        const r = await finish(s, format === 'stream-json');
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stdout).toContain('early');
        expect(r.stdout).not.toContain('LATE');
        expect(r.stdout).not.toContain('tool_late');
        if (format === 'stream-json') expect(r.events.at(-1)!.type).toBe('result');
      }
      // The late permission is not reported as decided; an answer to it, if the agent was still there to
      // take it, is `cancelled`, never an allow.
      const answers = readFileSync(recvLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"id":7'))
        .map((l) => JSON.parse(l) as { result?: unknown });
      for (const a of answers) expect(a.result).toEqual({ outcome: { outcome: 'cancelled' } });
    },
  );
});

describe('durations', () => {
  it('a duration over 24 hours is a usage error, not an instant timeout', async () => {
    const r = await finish(await start(['run', ...SJ, '--step-timeout', '99999999999', 'go'], {}), true);
    expect(r.exitCode).toBe(2);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({ type: 'result', error: { code: 'usage' } });
    expect(r.stderr).toMatch(/--step-timeout.*at most 24h/);
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
  });

  it("--idle-timeout does not count rho-cursor's own wait for the ledger's snapshot: exit 0", async () => {
    // Found by review: a large workspace's snapshot (200,000 files) outlasted --idle-timeout 500ms before the
    // prompt was sent: exit 124, "the agent sent nothing". Here git itself is slow (a `git` first on PATH that
    // waits 1.5 s before each command); the agent answers every step at once.
    const dir = tempDir();
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    expect(spawnSync('git', ['init', '-q', ws]).status).toBe(0);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const git = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nsleep 1.5\nexec ${git} "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const r = await finish(
      startCli(['run', ...SJ, '--idle-timeout', '500ms', 'go'], {
        agent: await agentPath,
        cliConfig: { approvalMode: 'allowlist' },
        cwd: ws,
        env: { RHO_SCRIPT: JSON.stringify({ before: [chunk('done')] }), PATH: `${bin}:${process.env.PATH}` },
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
    expect((r.events.at(-1)!.timings as { promptMs: number | null }).promptMs).not.toBeNull();
  });

  it('--idle-timeout does not count the wait before a retry (--retries): the second try answers, exit 0', async () => {
    // The wait (1 s before the second try) is rho-cursor's, and the first try's agent is gone.
    const dir = tempDir();
    const script = {
      before: [chunk('done')],
      counterFile: join(dir, 'tries'),
      failTimes: 1,
      failWith: 'exit',
    };
    const r = await finish(
      await start(['run', ...SJ, '--idle-timeout', '700ms', '--retries', '1', 'go'], script),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.filter((e) => e.type === 'attempt')).toHaveLength(1);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', stopReason: 'end_turn', exitCode: 0 });
  });

  it('--timeout bounds reading the prompt from stdin', async () => {
    const agent = await agentPath;
    const t0 = Date.now();
    // stdin is a pipe nobody writes to or closes until after the run.
    const child = spawn(BIN, ['run', '--timeout', '1s', '--agent', agent, '-'], {
      env: { ...process.env, CURSOR_CONFIG_DIR: tempDir(), NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.end();
    expect(code).toBe(124);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(stderr).toMatch(/standard input did not end within 1s/);
  });
});

describe('a signal while the prompt is read from stdin', () => {
  // Are rho-cursor's handlers subscribed yet? SIGHUP is caught (SigCgt in /proc) only by them: Node itself
  // catches SIGINT and SIGTERM from its start.
  const subscribed = (pid: number): boolean => {
    try {
      const mask = /SigCgt:\s*([0-9a-f]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
      return ((BigInt('0x' + mask) >> BigInt(constants.signals.SIGHUP - 1)) & 1n) === 1n;
    } catch {
      return false;
    }
  };

  it.each([
    ['SIGINT', 130, 'stream-json'],
    ['SIGTERM', 143, 'stream-json'],
    ['SIGHUP', 129, 'stream-json'],
    ['SIGINT', 130, 'json'],
  ] as const)('%s: exit %i, the result in %s, nothing spawned', async (signal, exit, format) => {
    // Found by review: the signal's default action ended rho-cursor with no result and nothing on stderr.
    const dir = tempDir();
    const child = spawn(BIN, ['run', '--output-format', format, '--agent', await agentPath, '-'], {
      env: {
        ...process.env,
        CURSOR_CONFIG_DIR: dir,
        RHO_SCRIPT: JSON.stringify({ pidFile: join(dir, 'agent.pid') }),
      },
      // stdin is a pipe nobody writes to or closes until after the run.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Ready once the handlers are subscribed; a build without them gets the signal after 3 s all the same.
    for (let i = 0; i < 150 && !subscribed(child.pid!); i++) await sleep(20);
    child.kill(signal);
    const code = await exited;
    child.stdin.end();
    expect(code, stderr).toBe(exit);
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    if (format === 'stream-json') expect(result.type).toBe('result');
    expect(result).toMatchObject({
      exitCode: exit,
      error: { code: 'cancelled', message: `cancelled by ${signal} while reading the prompt` },
    });
    expect(stderr).toBe(`rho-cursor: cancelled by ${signal} while reading the prompt\n`);
    expect(existsSync(join(dir, 'agent.pid'))).toBe(false);
  });
});

describe('the terminal closed', () => {
  // rho-cursor on a pseudo-terminal that is closed mid-turn (a terminal window closed): the kernel hangs the
  // terminal up and sends SIGHUP. Found by review: Node, exiting, restored the settings of the terminal it
  // started on, which failed on the hung-up one, and it aborted (SIGABRT, a native stack) after the result.
  // redirect: the shell redirections of stdout and stderr (what is not redirected stays on the terminal).
  async function closedAt(args: string[], script: Script, wait: PtyStep, redirect: string) {
    const dir = tempDir();
    const r = await onPty(
      ['sh', '-c', `exec "$0" run --agent "$1" "$@" ${redirect}`, BIN, await agentPath, ...args, 'go'],
      [wait, { hangup: true }],
      {
        env: {
          RHO_SCRIPT: JSON.stringify(script),
          CURSOR_CONFIG_DIR: dir,
          TERM: 'xterm',
          NO_COLOR: '1',
          RHO_CURSOR_NO_WARNING: 'policy-fences-nothing',
          // A person's terminal: CI (set by the runner) is no person's.
          CI: null,
        },
      },
    );
    return { ...r, dir };
  }
  const lastLine = (path: string): Record<string, unknown> =>
    JSON.parse(readFileSync(path, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;

  it.skipIf(!hasPty)('stream-json, stdin the terminal: exit 129, the result last, no abort', async () => {
    const dir = tempDir();
    const [out, err] = [join(dir, 'out'), join(dir, 'err')];
    const r = await closedAt(
      SJ,
      { hangAt: 'session/prompt', onCancel: {}, before: [chunk('done')] },
      { file: out, contains: '"type":"message"' },
      `>'${out}' 2>'${err}'`,
    );
    expect(r.failed, r.screen).toBeNull();
    const stderr = readFileSync(err, 'utf8');
    expect(r.code, stderr).toBe(129);
    expect(stderr).not.toMatch(/Assertion|Native stack/);
    expect(lastLine(out)).toMatchObject({
      type: 'result',
      exitCode: 129,
      error: { code: 'cancelled', message: 'cancelled by SIGHUP' },
    });
  });

  it.skipIf(!hasPty)('text, stdin, stdout and stderr the terminal: exit 129, no abort', async () => {
    const r = await closedAt(
      [],
      { hangAt: 'session/prompt', onCancel: {}, before: [chunk('done')] },
      { wait: 'done' },
      '',
    );
    expect(r.failed, r.screen).toBeNull();
    expect(r.code, r.screen).toBe(129);
  });

  it.skipIf(!hasPty)('while a question waits: exit 129, the result last, no abort', async () => {
    const out = join(tempDir(), 'out');
    // stderr stays on the terminal: the question is asked there.
    const r = await closedAt(
      [...SJ, '--permissions', 'ask'],
      { hangAt: 'session/prompt', onCancel: {}, before: [permission(0)] },
      { wait: '[a] allow once  [r] reject once > ' },
      `>'${out}'`,
    );
    expect(r.failed, r.screen).toBeNull();
    expect(r.code, r.screen).toBe(129);
    expect(lastLine(out)).toMatchObject({ type: 'result', exitCode: 129 });
    // The terminal that went away answered nothing: the request is cancelled, by nobody's choice (found by
    // review: the hangup was the person's reject once).
    const events = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const decided = events.filter((e) => e.type === 'permission');
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ decision: { outcome: 'cancelled' } });
    expect(decided[0]!.decidedBy).not.toBe('person');
  });
});

describe('write failures', () => {
  const full = existsSync('/dev/full');

  it.skipIf(!full).each(['text', 'stream-json', 'json'])(
    '%s: stdout on a full disk is exit 1 with one line saying so',
    async (format) => {
      const dir = tempDir();
      const child = spawn(
        'sh',
        ['-c', `exec "$0" run --output-format ${format} --agent "$1" go >/dev/full`, BIN, await agentPath],
        {
          env: {
            ...process.env,
            CURSOR_CONFIG_DIR: dir,
            NO_COLOR: '1',
            RHO_SCRIPT: JSON.stringify({ before: [chunk('hello')] }),
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/^rho-cursor: cannot write to stdout: ENOSPC/m);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
  );

  it.skipIf(!full)('--wire-log on a full disk fails the run with a result, not a crash', async () => {
    const r = await finish(await start(['run', ...SJ, '--wire-log', '/dev/full', 'go'], {}), true);
    expect(r.exitCode).toBe(1);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', error: { code: 'write_failed' } });
    expect(r.stderr).toMatch(/cannot write the wire log \/dev\/full/);
    expect(r.stderr).not.toMatch(/internal error/);
  });

  it.skipIf(!full).each([['--version'], ['--help'], ['schema']])(
    '%s to a full disk is one line and exit 1',
    async (arg) => {
      const child = spawn('sh', ['-c', `exec "$0" ${arg} >/dev/full`, BIN], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^rho-cursor: cannot write to stdout/);
    },
  );

  it('a reader that closes stdout early is a quiet 141 and the agent is ended', async () => {
    const dir = tempDir();
    const child = spawn(BIN, ['run', ...SJ, '--agent', await agentPath, 'go'], {
      env: {
        ...process.env,
        CURSOR_CONFIG_DIR: dir,
        RHO_SCRIPT: JSON.stringify({ ...hostile(dir), dripMs: 20 }),
        ...testTiming(SHORT_GRACE),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Like `| head -n 3`: read a little, then close the pipe while the agent is still writing.
    let lines = 0;
    child.stdout.on('data', (d: Buffer) => {
      lines += d.toString().split('\n').length - 1;
      if (lines >= 3) child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(141);
    expect(stderr).not.toMatch(/^rho-cursor: (?!warning)/m);
    await expectNoneLeft(dir);
  });
});

describe('a stdout nobody reads', () => {
  it('a second signal stops waiting for it: the run ends, the agent too', async () => {
    const dir = tempDir();
    const termLog = join(dir, 'term.log');
    const child = spawn(BIN, ['run', ...SJ, '--agent', await agentPath, 'go'], {
      env: {
        ...process.env,
        CURSOR_CONFIG_DIR: dir,
        RHO_SCRIPT: JSON.stringify({ ...hostile(dir), dripMs: 1, termLog }),
      },
      // stdout is a pipe this test never reads: it fills, and rho-cursor's output waits on it.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    while (!existsSync(join(dir, 'escapee.pid'))) await sleep(20);
    await sleep(500);
    child.kill('SIGINT');
    // The cancel grace (2 s) passes and the teardown begins: the agent's kill ladder starts (the agent says
    // when its SIGTERM comes) while the result waits on the full pipe. A fixed wait here was too short on a
    // loaded machine: the second signal then came before the teardown.
    while (!shows(termLog, 'SIGTERM')) await sleep(20);
    await sleep(300);
    const t0 = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(code).toBe(130);
    expect(stderr).toMatch(/stdout did not take the output before a second signal/);
    child.stdout.destroy();
    await expectNoneLeft(dir);
  });
});

describe('--timeout and signals bound the last writes too', () => {
  // A run whose stdout is a pipe this test never reads (until the end): it fills, and the output waits on it.
  function unread(args: string[], env: Record<string, string>) {
    const child = spawn(BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 12_000);
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => (clearTimeout(watchdog), resolve(code))),
    );
    return { child, exited, stderr: () => stderr };
  }

  it('a turn over in time, json of 2 MiB to a pipe nobody reads: the deadline ends the wait, exit 1, said once', async () => {
    // Found by review: the run lived for ever once the turn had ended; one SIGINT then exited 0.
    const dir = tempDir();
    const t0 = Date.now();
    const r = unread(
      ['run', '--output-format', 'json', '--timeout', '4s', '--agent', await agentPath, 'go'],
      {
        CURSOR_CONFIG_DIR: dir,
        RHO_SCRIPT: JSON.stringify({ hugeMiB: 2, pidFile: join(dir, 'agent.pid') }),
        ...testTiming(SHORT_GRACE),
      },
    );
    const code = await r.exited;
    r.child.stdout.destroy();
    expect(code, r.stderr()).toBe(1);
    expect(Date.now() - t0).toBeLessThan(9000);
    const said = r.stderr().match(/^rho-cursor: (?!warning: approvalMode).*$/gm);
    expect(said).toEqual([
      'rho-cursor: stdout did not take the output within 300ms of the timeout: the rest is dropped',
    ]);
    expect(await waitForGone(readPid(join(dir, 'agent.pid')), 3000)).toBe(true);
  });

  it('a signal while the result of a finished turn waits on a reader that takes nothing: exit 1, never 0', async () => {
    const dir = tempDir();
    // json writes nothing until the end: with stream-json the 1 MiB chunk fills the pipe during the turn, the
    // run stops reading the agent (memory stays flat), and whether the turn's answer was read with the end of
    // that line or is still waiting behind it is a race (the turn would then not be over when the signal comes).
    const r = unread(['run', '--output-format', 'json', '--agent', await agentPath, 'go'], {
      CURSOR_CONFIG_DIR: dir,
      RHO_SCRIPT: JSON.stringify({ before: [chunk('start')], hugeMiB: 1, pidFile: join(dir, 'agent.pid') }),
    });
    // The turn is over once the run ends its agent (it does not ignore SIGTERM); the output still waits.
    while (!existsSync(join(dir, 'agent.pid'))) await sleep(20);
    expect(await waitForGone(readPid(join(dir, 'agent.pid')), 8000)).toBe(true);
    expect(r.child.exitCode).toBeNull();
    const t0 = Date.now();
    r.child.kill('SIGINT');
    const code = await r.exited;
    r.child.stdout.destroy();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(code, r.stderr()).toBe(1);
    expect(r.stderr()).toMatch(
      /^rho-cursor: stdout did not take the output before SIGINT: the rest is dropped$/m,
    );
  });
});

describe('the key is never written', () => {
  // A key with characters JSON escapes, so its escaped copy must be caught too.
  const KEY = 'sk-te"st\\key/0123456789';
  // The key as a JSON string may also spell it: some characters \u-escaped, "/" as \/, the rest as usual.
  const MIXED = [...KEY]
    .map((c, i) =>
      i % 3 === 0
        ? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')
        : (({ '"': '\\"', '\\': '\\\\', '/': '\\/' } as Record<string, string>)[c] ?? c),
    )
    .join('');

  it('not in the error, stderr, stdout nor the wire log, in any JSON form', async () => {
    const dir = tempDir();
    const wire = join(dir, 'wire.jsonl');
    const s = await start(
      ['run', ...SJ, '--wire-log', wire, 'go'],
      {
        stderr: `login with ${KEY} failed\n`,
        before: [
          chunk(`the key is ${KEY}`),
          `{"broken ${KEY}`,
          JSON.stringify(chunk(' and again @')).replace('@', MIXED),
        ],
        crash: `token ${KEY} rejected`,
      },
      { CURSOR_API_KEY: KEY },
    );
    const r = await finish(s, true);
    expect(r.exitCode).toBe(1);
    const last = r.events.at(-1) as { error: { message: string } };
    expect(last.error.message).toMatch(/token \[redacted\] rejected/);
    const escaped = JSON.stringify(KEY).slice(1, -1);
    for (const [where, text] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ['wire log', readFileSync(wire, 'utf8')],
    ] as const) {
      expect(text, where).not.toContain(KEY);
      expect(text, where).not.toContain(escaped);
      expect(text, where).not.toContain('0123456789');
    }
    expect(r.stdout).toContain('the key is [redacted]');
    expect(r.stdout).toContain('and again [redacted]');
    // Read back as JSON, no string in the wire log holds the key, however the agent spelled it.
    const strings = (v: unknown): string[] =>
      typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];
    for (const row of parseNdjson(readFileSync(wire, 'utf8')))
      for (const text of strings(row)) expect(text).not.toContain(KEY);
  });
});

describe('the wire log', () => {
  it('stays JSON Lines and cannot be forged by the agent; each line is logged once', async () => {
    const dir = tempDir();
    const wire = join(dir, 'wire.jsonl');
    const forged = '{"x":1},"dir":"c2a","ms":0';
    const r = await finish(
      await start(['run', ...SJ, '--wire-log', wire, 'go'], { before: [forged, '{not json', 'plain text'] }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = parseNdjson(readFileSync(wire, 'utf8')) as Array<{ dir: string; msg: unknown }>;
    for (const bad of [forged, '{not json', 'plain text']) {
      const found = rows.filter((row) => row.msg === bad);
      expect(found, bad).toHaveLength(1);
      expect(found[0]!.dir).toBe('a2c');
    }
    // The client sent exactly initialize, session/new and session/prompt.
    expect(rows.filter((row) => row.dir === 'c2a')).toHaveLength(3);
  });
});

describe('errors say what happened', () => {
  it.each([
    [{ error: 'oops' }, /session\/prompt failed: .*"oops"/],
    [{ result: null }, /session\/prompt answered null, without a stopReason/],
    [{ result: { stopReason: 'weird' } }, /stopReason "weird", which ACP v1 does not define/],
    [
      { error: { code: -32603, message: 'Internal error', data: { details: 'model backend unreachable' } } },
      /Internal error: model backend unreachable/,
    ],
  ])('answer %j: exit 1 with a message and an error code', async (answer, message) => {
    const r = await finish(await start(['run', ...SJ, 'go'], { answer }), true);
    expect(r.exitCode).toBe(1);
    const last = r.events.at(-1) as { error?: { code: string; message: string } };
    expect(last.error?.code).toMatch(/^[a-z_]+$/);
    expect(last.error?.message).toMatch(message);
    expect(r.stderr).not.toMatch(/undefined|Cannot read properties/);
  });

  it("an agent's uncaught exception is reported by its message, not its stack frames", async () => {
    const r = await finish(await start(['run', ...SJ, 'go'], { crash: 'the model is on fire' }), true);
    expect(r.exitCode).toBe(1);
    const last = r.events.at(-1) as { error: { code: string; message: string } };
    expect(last.error.code).toBe('agent_exited');
    expect(last.error.message).toMatch(/the model is on fire/);
    expect(last.error.message).not.toMatch(/\bat .*\.mjs:\d+/);
  });
});

describe('requests', () => {
  it('a request with "id": null is answered, not taken for a notification', async () => {
    const dir = tempDir();
    const recvLog = join(dir, 'recv');
    const r = await finish(
      await start(['run', ...SJ, 'go'], {
        before: [{ jsonrpc: '2.0', id: null, method: 'cursor/unknown_thing', params: {} }],
        waitAnswers: 1,
        recvLog,
      }),
      true,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const answers = readFileSync(recvLog, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"id":null'));
    expect(answers).toHaveLength(1);
    expect(JSON.parse(answers[0]!)).toMatchObject({ id: null, error: { code: -32601 } });
  });
});

// Nothing above may leave its agents behind: every pid file a test wrote names a process that is gone.
it('the fixture itself is ended by a plain run', async () => {
  const dir = tempDir();
  const r = await finish(await start(['run', ...SJ, 'go'], { pidFile: join(dir, 'agent.pid') }), true);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(isRunning(readPid(join(dir, 'agent.pid')))).toBe(false);
});
