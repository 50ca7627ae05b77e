// Where the prompt comes from (words, `-`, a pipe, -f, `--`) and usage errors that still write `result`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finish, runCli, startCli, tempDir, type CliRun } from '../helpers/cli.js';
import { execa } from 'execa';
import { BIN, REPLAY_SHIM } from '../helpers/agent-path.js';

const SJ = ['--output-format', 'stream-json'];
// The prompt text the agent received.
const promptOf = (r: CliRun): unknown =>
  r.log.find((e) => e.event === 'recv' && e.msg.method === 'session/prompt')?.msg.params.prompt[0].text;

describe('the prompt', () => {
  it('`-` among the words sends the words, a blank line, then stdin', async () => {
    const r = await runCli(['run', ...SJ, 'review this diff:', '-'], {
      recording: 'tools.jsonl',
      input: 'diff --git a/x b/x\n+hello\n',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(promptOf(r)).toBe('review this diff:\n\ndiff --git a/x b/x\n+hello\n');
    expect(r.events.filter((e) => e.type === 'warning').map((e) => e.code)).not.toContain('stdin-ignored');
  });

  it('words without `-` never read a piped stdin, and say so with a stdin-ignored warning', async () => {
    const r = await runCli(['run', ...SJ, 'review', 'this'], { recording: 'tools.jsonl', input: 'the diff' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(promptOf(r)).toBe('review this');
    expect(r.events.find((e) => e.code === 'stdin-ignored')).toMatchObject({ type: 'warning' });
    expect(r.stderr).toMatch(/warning: standard input is not read/);
  });

  it('words after `--` are prompt words even when they look like options', async () => {
    const r = await runCli(
      ['run', ...SJ, '--agent', REPLAY_SHIM, '--', 'how', 'do', 'I', 'bump', '--version', '-q'],
      {
        agent: null,
        recording: 'tools.jsonl',
      },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(promptOf(r)).toBe('how do I bump --version -q');
  });

  it('-f reads the prompt from a file, after the words', async () => {
    const dir = tempDir();
    const file = join(dir, 'task.md');
    writeFileSync(file, '# Task\nDo it.\n');
    const r = await runCli(['run', ...SJ, 'context first', '-f', file], { recording: 'tools.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(promptOf(r)).toBe('context first\n\n# Task\nDo it.\n');
  });

  it('a missing --prompt-file is a usage error naming it', async () => {
    const r = await runCli(['run', ...SJ, '-f', '/nonexistent/task.md'], { recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /'--prompt-file' cannot read '\/nonexistent\/task.md' \(no such file\) \(see --help\)/,
    );
    expect(r.events).toEqual([
      expect.objectContaining({
        type: 'result',
        exitCode: 2,
        error: expect.objectContaining({ code: 'usage' }),
      }),
    ]);
    expect(r.log).toEqual([]);
  });

  it('--timeout bounds reading stdin: exit 124 with a result line', async () => {
    const started = startCli(['run', ...SJ, '--timeout', '300ms', '-'], { recording: 'tools.jsonl' });
    // stdin is a pipe that stays open: the prompt never ends.
    const r = await execa(BIN, ['run', ...SJ, '--timeout', '300ms', '-'], {
      reject: false,
      stdin: 'pipe',
      timeout: 15_000,
      env: { CURSOR_CONFIG_DIR: started.configDir, NO_COLOR: '1' },
    });
    started.child.kill('SIGKILL');
    await finish(started, false).catch(() => undefined);
    expect(r.exitCode).toBe(124);
    expect(r.stderr).toMatch(/standard input did not end within 300ms \(--timeout\)/);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: 'result',
      exitCode: 124,
      error: { code: 'run_timeout' },
    });
  });
});

describe('usage errors write the result event where the format asks for one', () => {
  it.each([
    [['run', '--output-format', 'stream-json', '--timeout', 'abc', 'go'], /'--timeout'/],
    [['run', '--permissions', 'maybe', '--output-format', 'stream-json', 'go'], /'--permissions'/],
    [['run', '--output-format', 'stream-json', '--bogus', 'go'], /unknown option '--bogus'/],
    [['run', '--output-format', 'stream-json', '   '], /prompt is empty/],
  ])('%j', async (args, pattern) => {
    const r = await runCli(args, { agent: null, recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.events).toEqual([
      expect.objectContaining({
        type: 'result',
        stopReason: null,
        exitCode: 2,
        error: expect.objectContaining({ code: 'usage' }),
      }),
    ]);
    expect(r.log).toEqual([]);
  });

  it('json writes the one object, with the result fields and empty collections', async () => {
    const r = await runCli(['run', '--output-format', 'json', '--timeout', 'abc', 'go'], {
      recording: 'tools.jsonl',
    });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: 'result',
      exitCode: 2,
      text: '',
      tools: [],
      error: { code: 'usage' },
    });
  });

  it('gives one stderr line for each bad value', async () => {
    const r = await runCli(['run', '--timeout', 'abc', '--color', 'pink', '--allow', 'teleport', 'go'], {
      recording: 'tools.jsonl',
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^rho-cursor: option '--color' must be one of auto, always, never \(got 'pink'\) \(see --help\)$/,
      ),
      expect.stringMatching(/^rho-cursor: option '--allow'/),
      expect.stringMatching(/^rho-cursor: option '--timeout'/),
    ]);
    expect(r.stdout).toBe('');
  });

  it('text mode: an error is one rho-cursor: line, and no stopReason when nothing ran', async () => {
    const r = await runCli(['run', 'go'], { agent: '/nonexistent/agent', recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(127);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^rho-cursor: agent \/nonexistent\/agent does not exist/),
    ]);
  });

  it("--agent '' says what it needs, without a double space", async () => {
    const r = await runCli(['run', '--agent', '', 'go'], { agent: null, recording: 'tools.jsonl' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      "rho-cursor: option '--agent' needs a path or a command name (got '') (see --help)",
    );
  });
});

describe('--help', () => {
  it('shows examples, the exit codes with their error codes, and the environment variables read', async () => {
    const r = await execa(BIN, ['run', '--help'], { reject: false });
    expect(r.exitCode).toBe(0);
    for (const s of [
      '-m, --model',
      '-f, --prompt-file',
      '-q, --quiet',
      '--color',
      '--idle-timeout',
      'Examples:',
      'git diff | rho-cursor run "review this diff:" -',
      'Exit codes',
      'run_timeout',
      '130',
      'Environment:',
      'CURSOR_API_KEY',
      'NO_COLOR',
      'FORCE_COLOR',
      'RHO_CURSOR_AGENT',
      'TMPDIR',
      'GIT_WORK_TREE',
      'GITHUB_STATE',
    ])
      expect(r.stdout).toContain(s);
  });
});

describe('-o, --output-last-message', () => {
  it('writes the final answer to the file when the turn ended', async () => {
    const dir = tempDir();
    const file = join(dir, 'answer.md');
    const r = await runCli(['run', '-o', file, 'go'], { recording: 'tools.jsonl' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(r.stdout + '\n'); // execa strips stdout's last newline
    expect(readdirSync(dir)).toEqual(['answer.md']);
  });

  it('leaves the file untouched when no turn ended', async () => {
    const dir = tempDir();
    const file = join(dir, 'answer.md');
    writeFileSync(file, 'before');
    const r = await runCli(['run', '--output-last-message', file, 'go'], {
      recording: 'auth-required.jsonl',
    });
    expect(r.exitCode).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe('before');
  });
});

// Standard input has the prompt file's cap, 10 MiB (found by review: unbounded, 1.2 GB read before V8's string
// limit ended it as `internal`; `-f /dev/stdin` skipped -f's cap; a directory read as an empty prompt).
describe('standard input is bounded as -f is', () => {
  const big = 'x'.repeat(11 * 1024 * 1024);

  it.each([
    [
      ['-'],
      /^rho-cursor: standard input is over 10 MiB \(the cap of the prompt, as of -f\): not read further/m,
    ],
    [[], /^rho-cursor: standard input is over 10 MiB/m],
    [['-f', '/dev/stdin'], /^rho-cursor: option '--prompt-file': '\/dev\/stdin' is over 10 MiB/m],
    [['-f', '/proc/self/fd/0'], /^rho-cursor: option '--prompt-file': '\/proc\/self\/fd\/0' is over 10 MiB/m],
  ])('11 MiB piped with %j: exit 2 naming the cap', async (args, said) => {
    const r = await runCli(['run', ...SJ, ...args], { recording: 'tools.jsonl', input: big });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(said);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', error: { code: 'usage' } });
    expect(r.log).toEqual([]);
  });

  it('11 MiB in a regular file on stdin: exit 2', async () => {
    const file = join(tempDir(), 'big.txt');
    writeFileSync(file, big);
    const r = await execa('sh', ['-c', `exec "$0" run --agent "$1" - < "$2"`, BIN, REPLAY_SHIM, file], {
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/standard input is over 10 MiB/);
  });

  it('an endless pipe: exit 2 at the cap, quickly, reading stopped', async () => {
    const started = Date.now();
    const r = await execa(
      'sh',
      ['-c', `head -c 300000000 /dev/zero | "$0" run --agent "$1" -; echo "rc=$?" >&2`, BIN, REPLAY_SHIM],
      { reject: false, timeout: 15_000 },
    );
    expect(r.stderr).toMatch(/standard input is over 10 MiB/);
    expect(r.stderr).toMatch(/rc=2$/m);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a directory on stdin is named as one', async () => {
    const dir = tempDir();
    const r = await execa('sh', ['-c', `exec "$0" run --agent "$1" - < "$2"`, BIN, REPLAY_SHIM, dir], {
      reject: false,
      timeout: 15_000,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/standard input is a directory/);
  });
});

// What the README says of the prompt's bytes: read as UTF-8, an invalid byte becomes U+FFFD, a BOM is kept.
describe('the prompt is read as UTF-8', () => {
  const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0xff, 0x78, 0x0a]);

  it('from -f and from stdin alike', async () => {
    const file = join(tempDir(), 'bom.txt');
    writeFileSync(file, bytes);
    const fromFile = await runCli(['run', ...SJ, '-f', file], { recording: 'tools.jsonl' });
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    expect(promptOf(fromFile)).toBe('\ufeffhi\ufffdx\n');
    const fromStdin = await runCli(['run', ...SJ, '-'], {
      recording: 'tools.jsonl',
      input: bytes,
    });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect(promptOf(fromStdin)).toBe('\ufeffhi\ufffdx\n');
  });
});
